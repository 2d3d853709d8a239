package main

import (
	"testing"
	"time"
)

// The soak itself runs for minutes (make soak); this tests only its pure
// part: labelling calls that overlapped a fault (reading /metrics is
// bench/internal/procstat's, tested there).

func TestFaultLabel(t *testing.T) {
	t.Parallel()
	now := time.Now()
	f := &faults{windows: []window{{from: now.Add(-time.Hour), to: now.Add(-time.Hour + time.Minute)}}}
	for _, tc := range []struct {
		name  string
		start time.Time
		want  string
	}{
		{"started after the window and its margin", now.Add(-time.Hour + time.Minute + faultMargin + time.Second), "steady"},
		{"started within the margin", now.Add(-time.Hour + time.Minute + faultMargin/2), "steady@fault"},
		{"started before the kill, ended after it", now.Add(-2 * time.Hour), "steady@fault"},
	} {
		if got := f.label("steady", tc.start); got != tc.want {
			t.Errorf("%s: label %q, want %q", tc.name, got, tc.want)
		}
	}
	f.begin(now.Add(time.Hour)) // under way, starts after every call above ended
	if got := f.label("probe", now.Add(-time.Minute)); got != "probe" {
		t.Errorf("a call that ended before a kill: label %q, want probe", got)
	}
}
