package procstat

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The pure parts: reading a /metrics exposition.

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
	got := Gauges(exposition)
	want := map[string]float64{"go_goroutines": 42, "process_open_fds": 31, "adb_connector_ws_connections": 3}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Gauges (-want +got):\n%s", d)
	}
}

func TestCounterByLabel(t *testing.T) {
	t.Parallel()
	got := CounterByLabel(exposition, "adb_connector_tool_invocations_total", "outcome")
	want := map[string]float64{"ok": 7, "rate_limited": 7}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("CounterByLabel (-want +got):\n%s", d)
	}
}

func TestParseStatCPU(t *testing.T) {
	t.Parallel()
	// A command name with a space and a parenthesis, as proc(5) allows.
	stat := "4242 (adb (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 130 0 0 20 0 7 0 1000 1000000 500 18446744073709551615"
	got, err := parseStatCPU(stat)
	if err != nil || got != 3.8 {
		t.Errorf("parseStatCPU = %v, %v; want 3.8", got, err)
	}
	if _, err := parseStatCPU("4242 (adb) S 1"); err == nil {
		t.Error("parseStatCPU of a short line: no error")
	}
}

// FuzzParseStatCPU: any /proc/PID/stat line gives a time or an error,
// never a panic, and a time is never negative.
func FuzzParseStatCPU(f *testing.F) {
	for _, s := range []string{
		"4242 (adb (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 130 0 0 20 0 7 0 1000",
		"4242 (adb) S 1", "", ")", "1 (a) R 1 1 1 0 -1 0 0 0 0 0 x y",
		"1 (a) R 1 1 1 0 -1 0 0 0 0 0 18446744073709551615 1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, stat string) {
		if got, err := parseStatCPU(stat); err == nil && got < 0 {
			t.Errorf("parseStatCPU(%q) = %v", stat, got)
		}
	})
}

// FuzzGauges: any exposition text is read without a panic.
func FuzzGauges(f *testing.F) {
	f.Add(exposition)
	f.Add("go_goroutines\nx{ 1\n{\n# c\n m 1e400\n")
	f.Fuzz(func(t *testing.T, text string) {
		Gauges(text)
		CounterByLabel(text, "adb_connector_tool_invocations_total", "outcome")
	})
}
