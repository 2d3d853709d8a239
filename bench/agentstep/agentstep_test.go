package main

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/emulator/android"
)

// The bench itself runs for minutes against serve (make bench-agentstep);
// these test its statistics and, on an instant phone, the baseline's side
// of every task with the relay counting the link.

func TestSummarize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		in   []float64
		want Stats
	}{
		{"none", nil, Stats{}},
		{"one", []float64{7}, Stats{N: 1, P50: 7, P90: 7, Mean: 7}},
		{"two", []float64{9, 1}, Stats{N: 2, P50: 1, P90: 9, Mean: 5}},
		{"ten", []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, Stats{N: 10, P50: 5, P90: 9, Mean: 5.5}},
		{"eleven", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, Stats{N: 11, P50: 6, P90: 10, Mean: 6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, summarize(tc.in)); d != "" {
				t.Errorf("summarize(%v) (-want +got):\n%s", tc.in, d)
			}
		})
	}
}

func TestPairAndTargets(t *testing.T) {
	t.Parallel()
	p := pair([]float64{100, 200}, []float64{400, 1000})
	if p.RatioP50 != 0.25 || p.RatioP90 != 0.2 {
		t.Errorf("ratios %v %v, want 0.25 0.2", p.RatioP50, p.RatioP90)
	}
	if z := pair([]float64{1}, nil); z.RatioP50 != 0 {
		t.Errorf("ratio against no baseline: %v, want 0", z.RatioP50)
	}
	kind := func(k string, r float64) Kind { return Kind{Kind: k, Time: Pair{RatioP50: r}} }
	rep := ProfileReport{Profile: targetProfile,
		Kinds: []Kind{kind(kindScreenshot, 0.5), kind(kindTap, 0.11), kind(kindDump, 9), kind(kindStep, 0)},
		Tasks: []TaskReport{{Task: "login", Time: Pair{RatioP50: 0.3}}}}
	want := []Target{
		{Profile: targetProfile, What: "kind screenshot", MaxRatio: 0.5, Ratio: 0.5, Pass: true},
		{Profile: targetProfile, What: "kind tap", MaxRatio: 0.1, Ratio: 0.11},
		{Profile: targetProfile, What: "kind observe+act step", MaxRatio: 0.5}, // not measured: no pass
		{Profile: targetProfile, What: "task login", MaxRatio: 0.5, Ratio: 0.3, Pass: true},
	}
	if d := cmp.Diff(want, judge(rep)); d != "" {
		t.Errorf("judge (-want +got):\n%s", d)
	}
	rep.Profile = "wifi"
	if got := judge(rep); got != nil {
		t.Errorf("targets judged on wifi: %v", got)
	}
}

// TestBaselineTasks runs every task on the baseline's side against an
// instant virtual phone behind the relay: the tasks' checks pass, the
// phone runs one command per CLI operation, and the relay counts both
// directions.
func TestBaselineTasks(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	env := adbtest.Start(t, adbtest.Options{Devices: -1})
	screen := android.ScreenSpec{Width: 360, Height: 800, Density: 420}
	phone, relay, err := startPhone(ctx, t, env, "instant", screen)
	if err != nil {
		t.Fatal(err)
	}
	l := &lab{basePhone: phone, baseRelay: relay, base: newBaseline(env, relay.Addr()), tasks: tasks(screen.Width, screen.Height)}
	for _, tk := range l.tasks {
		r, err := l.runOne(ctx, l.base, tk)
		if err != nil {
			t.Fatalf("%s: %v", tk.Name, err)
		}
		// Per observe a screencap and a uiautomator; per act one command
		// (typing: a tap and the text).
		want := 2 * r.observes
		for _, s := range tk.Steps {
			switch s.Act {
			case actType:
				want += 2
			case actTap, actOpenURL:
				want++
			}
		}
		if tk.Name == "list" {
			want += r.observes - 2 // a swipe before every look but the first and the last
		}
		if r.commands != want || r.programs["screencap"] != r.observes || r.programs["uiautomator"] != r.observes {
			t.Errorf("%s: %d commands (%v) for %d observes, want %d", tk.Name, r.commands, r.programs, r.observes, want)
		}
		if r.down <= 0 || r.up <= r.down {
			t.Errorf("%s: link bytes down %d up %d: want both, more up (screenshots)", tk.Name, r.down, r.up)
		}
		if tk.Name == "list" && r.observes < 5 {
			t.Errorf("list: Item 80 after %d looks: the reset did not take the list back to its top", r.observes)
		}
	}
}
