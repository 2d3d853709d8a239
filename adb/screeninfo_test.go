package adb

import "testing"

func TestScreenInfoOriented(t *testing.T) {
	t.Parallel()
	for rot, want := range [][2]int{{720, 1280}, {1280, 720}, {720, 1280}, {1280, 720}} {
		w, h := ScreenInfo{Width: 720, Height: 1280, Rotation: rot}.Oriented()
		if w != want[0] || h != want[1] {
			t.Errorf("rotation %d: %dx%d, want %dx%d", rot, w, h, want[0], want[1])
		}
	}
}
