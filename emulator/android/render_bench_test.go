package android

import (
	"testing"

	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

// BenchmarkRenderFrame renders one frame of a text-heavy screen (the list
// scenario), without PNG encoding.
func BenchmarkRenderFrame(b *testing.B) {
	d := newDevice(b, Config{Scenario: "list"})
	d.p.Lock()
	defer d.p.Unlock()
	for b.Loop() {
		d.p.RenderLocked()
	}
}

// BenchmarkDecodeFont is the one-time cost of the first text drawn.
func BenchmarkDecodeFont(b *testing.B) {
	for b.Loop() {
		if _, err := ui.DecodeFont(ui.UnifontGz); err != nil {
			b.Fatal(err)
		}
	}
}
