package main

import (
	"math"
	"slices"
	"time"
)

// Stats summarizes samples: milliseconds for times, plain counts for
// commands and bytes.
type Stats struct {
	N    int     `json:"n"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	Mean float64 `json:"mean"`
}

// summarize returns the nearest-rank p50 and p90 and the mean of xs (the
// zero Stats for none).
func summarize(xs []float64) Stats {
	n := len(xs)
	if n == 0 {
		return Stats{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	return Stats{N: n, P50: round3(quantile(s, 50)), P90: round3(quantile(s, 90)), Mean: round3(sum / float64(n))}
}

// quantile is the nearest-rank p-th percentile of sorted (non-empty): the
// smallest sample with at least p% of the samples at or below it.
func quantile(sorted []float64, p int) float64 {
	k := (p*len(sorted) + 99) / 100 // ceil(p/100 * n)
	return sorted[min(max(k, 1), len(sorted))-1]
}

// millis turns durations into milliseconds.
func millis(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = float64(d.Microseconds()) / 1000
	}
	return out
}

// Pair is ours against the baseline for one measure: ratios are ours over
// the baseline's, at p50 and at p90 (below 1: ours is faster or smaller).
type Pair struct {
	Ours     Stats   `json:"ours"`
	Baseline Stats   `json:"baseline"`
	RatioP50 float64 `json:"ratio_p50"`
	RatioP90 float64 `json:"ratio_p90"`
}

func pair(ours, base []float64) Pair {
	p := Pair{Ours: summarize(ours), Baseline: summarize(base)}
	p.RatioP50 = ratio(p.Ours.P50, p.Baseline.P50)
	p.RatioP90 = ratio(p.Ours.P90, p.Baseline.P90)
	return p
}

// ratio is a/b rounded to 3 decimals; 0 when b is 0 (nothing to compare).
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return round3(a / b)
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// Target is a ceiling on a p50 ratio, judged on one profile.
type Target struct {
	Profile  string  `json:"profile"`
	What     string  `json:"what"` // "kind screenshot", "task login"
	MaxRatio float64 `json:"max_ratio_p50"`
	Ratio    float64 `json:"ratio_p50"`
	Pass     bool    `json:"pass"`
}

// targetProfile is the profile the targets are set for.
const targetProfile = "pixel-usb"

// kindTargets are the step kinds' targets (p50 ratio ceilings); every task
// has taskTarget.
var kindTargets = map[string]float64{kindScreenshot: 0.5, kindTap: 0.1, kindStep: 0.5}

const taskTarget = 0.5

// judge returns the targets that apply to rep (those of targetProfile).
func judge(rep ProfileReport) []Target {
	if rep.Profile != targetProfile {
		return nil
	}
	var out []Target
	for _, k := range rep.Kinds {
		if ceil, ok := kindTargets[k.Kind]; ok {
			out = append(out, Target{Profile: rep.Profile, What: "kind " + k.Kind, MaxRatio: ceil, Ratio: k.Time.RatioP50,
				Pass: k.Time.RatioP50 > 0 && k.Time.RatioP50 <= ceil})
		}
	}
	for _, t := range rep.Tasks {
		out = append(out, Target{Profile: rep.Profile, What: "task " + t.Task, MaxRatio: taskTarget, Ratio: t.Time.RatioP50,
			Pass: t.Time.RatioP50 > 0 && t.Time.RatioP50 <= taskTarget})
	}
	return out
}
