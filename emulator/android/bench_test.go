package android_test

import (
	"context"
	"io"
	"runtime"
	"testing"

	"github.com/adb-connector/adb-connector/emulator/android"
)

func BenchmarkRunGetprop(b *testing.B) {
	d := newDevice(b, android.Config{})
	for b.Loop() {
		d.Run(context.Background(), "getprop ro.product.model", nil, io.Discard, io.Discard)
	}
}

// BenchmarkScreencapPNGFresh renders and encodes a new frame each time
// (the UI changes between captures).
func BenchmarkScreencapPNGFresh(b *testing.B) {
	d := newDevice(b, android.Config{Scenario: "login"})
	for b.Loop() {
		d.Model().Lock()
		d.Model().Changed()
		d.Model().Unlock()
		d.Run(context.Background(), "screencap -p", nil, io.Discard, io.Discard)
	}
}

// BenchmarkScreencapPNGCached is an unchanged screen (cached PNG).
func BenchmarkScreencapPNGCached(b *testing.B) {
	d := newDevice(b, android.Config{Scenario: "login"})
	for b.Loop() {
		d.Run(context.Background(), "screencap -p", nil, io.Discard, io.Discard)
	}
}

func BenchmarkUIAutomatorDump(b *testing.B) {
	d := newDevice(b, android.Config{Scenario: "list"})
	for b.Loop() {
		d.Run(context.Background(), "uiautomator dump /dev/tty", nil, io.Discard, io.Discard)
	}
}

// TestMemoryPerIdleDevice reports the heap held by idle devices after one
// screenshot each (the cached frame dominates).
func TestMemoryPerIdleDevice(t *testing.T) {
	if testing.Short() {
		t.Skip("measurement")
	}
	const n = 8
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	devs := make([]*android.Device, n)
	for i := range devs {
		devs[i] = newDevice(t, android.Config{})
		devs[i].Run(context.Background(), "screencap -p", nil, io.Discard, io.Discard)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := float64(after.HeapAlloc-before.HeapAlloc) / n / (1 << 20)
	t.Logf("heap per idle device after a screenshot: %.2f MiB", per)
	if per > 20 {
		t.Errorf("%.1f MiB per idle device, budget 20", per)
	}
	runtime.KeepAlive(devs)
}
