package main

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The soak itself runs for minutes (make soak); these test only its pure
// parts: reading /metrics and labelling calls that overlapped a fault.

const exposition = `# HELP go_goroutines Number of goroutines that currently exist.
# TYPE go_goroutines gauge
go_goroutines 42
process_open_fds 31
adb_connector_ws_connections 3
adb_connector_tool_invocations_total{outcome="ok",tool="android_tap"} 5
adb_connector_tool_invocations_total{outcome="ok",tool="android_screenshot"} 2
adb_connector_tool_invocations_total{outcome="rate_limited",tool="android_tap"} 7
adb_connector_tool_invocations_total_other{outcome="ok"} 100
`

func TestGauges(t *testing.T) {
	t.Parallel()
	got := gauges(exposition)
	want := map[string]float64{"go_goroutines": 42, "process_open_fds": 31, "adb_connector_ws_connections": 3}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("gauges (-want +got):\n%s", d)
	}
}

func TestCounterByLabel(t *testing.T) {
	t.Parallel()
	got := counterByLabel(exposition, "adb_connector_tool_invocations_total", "outcome")
	want := map[string]float64{"ok": 7, "rate_limited": 7}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("counterByLabel (-want +got):\n%s", d)
	}
}

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
