package model_test

import (
	"testing"

	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

// BenchmarkRenderFrame renders one frame of a text-heavy screen (the list
// scenario), without PNG encoding.
func BenchmarkRenderFrame(b *testing.B) {
	d := newDevice(b, android.Config{Scenario: "list"})
	d.Model().Lock()
	defer d.Model().Unlock()
	for b.Loop() {
		d.Model().RenderLocked()
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
