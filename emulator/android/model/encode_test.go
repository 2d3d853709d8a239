package model_test

import (
	"bytes"
	"context"
	"image/png"
	"io"
	"testing"

	"github.com/adb-connector/adb-connector/emulator/android"
)

// capturePNG runs `screencap -p` and returns its output.
func capturePNG(t testing.TB, d *android.Device) []byte {
	t.Helper()
	var out bytes.Buffer
	if code := d.Run(context.Background(), "screencap -p", nil, &out, io.Discard); code != 0 {
		t.Fatalf("screencap -p: exit %d", code)
	}
	return out.Bytes()
}

// TestEncodeEveryCapture: with the knob on, each capture encodes a new PNG
// (a buffer of its own) of the same frame; off, an unchanged screen's PNG
// is the cached one. The bytes are the same either way.
func TestEncodeEveryCapture(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		cfg       bool
		set       *bool // SetEncodeEveryCapture after New, when not nil
		wantFresh bool
	}{
		{name: "default caches", wantFresh: false},
		{name: "config on", cfg: true, wantFresh: true},
		{name: "set on", set: new(true), wantFresh: true},
		{name: "config on, set off", cfg: true, set: new(false), wantFresh: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := newDevice(t, android.Config{Scenario: "login", EncodeEveryCapture: tc.cfg})
			if tc.set != nil {
				d.SetEncodeEveryCapture(*tc.set)
			}
			d.Model().Lock()
			a, b := d.Model().ScreenshotPNGLocked(), d.Model().ScreenshotPNGLocked()
			d.Model().Unlock()
			if fresh := &a[0] != &b[0]; fresh != tc.wantFresh {
				t.Fatalf("two captures of an unchanged screen: fresh encode = %v, want %v", fresh, tc.wantFresh)
			}
			if !bytes.Equal(a, b) {
				t.Fatal("two captures of an unchanged screen differ")
			}
			out := capturePNG(t, d)
			if !bytes.Equal(out, a) {
				t.Fatal("screencap -p output differs from the frame's PNG")
			}
			img, err := png.Decode(bytes.NewReader(out))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := img.Bounds().Dx(), d.Model().DisplaySize().X; got != want {
				t.Fatalf("width %d, want %d", got, want)
			}
		})
	}
}

// BenchmarkScreencapPNGEveryCapture is an unchanged screen with
// EncodeEveryCapture: the encode of every phone capture, without the render.
func BenchmarkScreencapPNGEveryCapture(b *testing.B) {
	d := newDevice(b, android.Config{Scenario: "login", EncodeEveryCapture: true})
	for b.Loop() {
		d.Run(context.Background(), "screencap -p", nil, io.Discard, io.Discard)
	}
}
