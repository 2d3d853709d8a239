package main

import (
	"math"
	"slices"
	"strings"
	"sync"
	"time"
)

// outOK is the outcome of an answered call without error; the others are
// the protocol's error codes or the client's own (see classify).
const outOK = "ok"

// recorder collects each operation's outcomes and the latencies of its ok
// calls (an error such as rate_limited is answered at once and would pull
// the percentiles down). Safe for concurrent use.
type recorder struct {
	mu  sync.Mutex
	ops map[string]*opLog
}

type opLog struct {
	lat      []time.Duration
	outcomes map[string]int
}

func newRecorder() *recorder { return &recorder{ops: map[string]*opLog{}} }

// add records one call of op (a tool id, or "download") that ended with
// outcome after d.
func (r *recorder) add(op, outcome string, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.ops[op]
	if l == nil {
		l = &opLog{outcomes: map[string]int{}}
		r.ops[op] = l
	}
	l.outcomes[outcome]++
	if outcome == outOK {
		l.lat = append(l.lat, d)
	}
}

// OpStats is one operation's line of the report; the latencies are those
// of its ok calls, in milliseconds.
type OpStats struct {
	Op        string  `json:"op"`
	Calls     int     `json:"calls"`
	OK        int     `json:"ok"`
	PerSecond float64 `json:"calls_per_s"`
	P50MS     float64 `json:"p50_ms"`
	P90MS     float64 `json:"p90_ms"`
	P99MS     float64 `json:"p99_ms"`
	MaxMS     float64 `json:"max_ms"`
	// Errors counts the calls that did not end ok, by error code.
	Errors map[string]int `json:"errors,omitempty"`
}

// stats returns every operation's figures over elapsed, sorted by name,
// and the errors of all operations by code.
func (r *recorder) stats(elapsed time.Duration) ([]OpStats, map[string]int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []OpStats
	errs := map[string]int{}
	for op, l := range r.ops {
		s := OpStats{Op: op}
		for o, n := range l.outcomes {
			s.Calls += n
			if o == outOK {
				s.OK = n
				continue
			}
			if s.Errors == nil {
				s.Errors = map[string]int{}
			}
			s.Errors[o] += n
			errs[o] += n
		}
		if elapsed > 0 {
			s.PerSecond = round3(float64(s.Calls) / elapsed.Seconds())
		}
		lat := slices.Clone(l.lat)
		slices.Sort(lat)
		s.P50MS, s.P90MS, s.P99MS = ms(percentile(lat, 50)), ms(percentile(lat, 90)), ms(percentile(lat, 99))
		if len(lat) > 0 {
			s.MaxMS = ms(lat[len(lat)-1])
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b OpStats) int { return strings.Compare(a.Op, b.Op) })
	return out, errs
}

// percentile is the nearest-rank p-th percentile (0 < p <= 100) of sorted:
// the smallest value with at least p % of the values at or below it
// (0 when sorted is empty).
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

func ms(d time.Duration) float64 { return round3(float64(d) / float64(time.Millisecond)) }

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// perPhoneKB is (to - from) / phones: what each attached phone costs.
func perPhoneKB(from, to int64, phones int) float64 {
	if phones <= 0 {
		return 0
	}
	return round3(float64(to-from) / float64(phones))
}
