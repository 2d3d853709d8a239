package main

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The scale run itself takes minutes (make bench-scale); these test only
// its arithmetic.

func TestPercentile(t *testing.T) {
	t.Parallel()
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	for _, tc := range []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 99, 0},
		{"one value", d[:1], 50, time.Millisecond},
		{"p50 of 1..100", d, 50, 50 * time.Millisecond},
		{"p99 of 1..100", d, 99, 99 * time.Millisecond},
		{"p100 is the max", d, 100, 100 * time.Millisecond},
		{"p99 of 1..10 is the max (nearest rank)", d[:10], 99, 10 * time.Millisecond},
		{"p90 of 1..10", d[:10], 90, 9 * time.Millisecond},
		{"a tiny p is the min", d, 0.001, time.Millisecond},
	} {
		if got := percentile(tc.sorted, tc.p); got != tc.want {
			t.Errorf("%s: percentile(p%v) = %v, want %v", tc.name, tc.p, got, tc.want)
		}
	}
}

func TestRecorderStats(t *testing.T) {
	t.Parallel()
	r := newRecorder()
	for i := 1; i <= 4; i++ {
		r.add("android_tap", outOK, time.Duration(i)*time.Millisecond)
	}
	r.add("android_tap", "device_busy", time.Hour) // an error's latency is not counted
	r.add("android_observe", outOK, 10*time.Millisecond)
	r.add("android_observe", "client_timeout", time.Minute)
	r.add("download", "device_busy", 0)

	ops, errs := r.stats(2 * time.Second)
	want := []OpStats{
		{Op: "android_observe", Calls: 2, OK: 1, PerSecond: 1, P50MS: 10, P90MS: 10, P99MS: 10, MaxMS: 10,
			Errors: map[string]int{"client_timeout": 1}},
		{Op: "android_tap", Calls: 5, OK: 4, PerSecond: 2.5, P50MS: 2, P90MS: 4, P99MS: 4, MaxMS: 4,
			Errors: map[string]int{"device_busy": 1}},
		{Op: "download", Calls: 1, PerSecond: 0.5, Errors: map[string]int{"device_busy": 1}},
	}
	if d := cmp.Diff(want, ops); d != "" {
		t.Errorf("stats (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]int{"device_busy": 2, "client_timeout": 1}, errs); d != "" {
		t.Errorf("errors by code (-want +got):\n%s", d)
	}
}

func TestPerPhoneKB(t *testing.T) {
	t.Parallel()
	if got := perPhoneKB(20000, 36000, 64); got != 250 {
		t.Errorf("perPhoneKB = %v, want 250", got)
	}
	if got := perPhoneKB(20000, 19000, 8); got != -125 {
		t.Errorf("perPhoneKB of a shrink = %v, want -125 (reported as measured)", got)
	}
	if got := perPhoneKB(1, 2, 0); got != 0 {
		t.Errorf("perPhoneKB with no phone = %v, want 0", got)
	}
}
