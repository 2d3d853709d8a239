package adb

import (
	"image"
	"testing"

	"github.com/adb-connector/adb-connector/adb/parse"
)

// TestPanelMap: display points map to the middle of their span on a panel
// ten times finer than the display, turned by the rotation; a panel whose
// axes are not the display's natural ones is not mapped.
func TestPanelMap(t *testing.T) {
	t.Parallel()
	ts := parse.Touchscreen{X: parse.AbsInfo{Max: 10799}, Y: parse.AbsInfo{Max: 23999}}
	cases := []struct {
		rot  int
		in   image.Point
		want image.Point
	}{
		{0, image.Pt(0, 0), image.Pt(5, 5)},
		{0, image.Pt(1079, 2399), image.Pt(10795, 23995)},
		{1, image.Pt(0, 0), image.Pt(10799-5, 5)}, // landscape: x along the panel's y, y against its x
		{1, image.Pt(2399, 1079), image.Pt(10799-10795, 23995)},
		{2, image.Pt(0, 0), image.Pt(10794, 23994)},
		{3, image.Pt(0, 0), image.Pt(5, 23994)},
		{3, image.Pt(2399, 1079), image.Pt(10795, 23999-23995)},
	}
	for _, tc := range cases {
		m, ok := newPanelMap(ts, ScreenInfo{Width: 1080, Height: 2400, Rotation: tc.rot, RotationKnown: true})
		if !ok {
			t.Fatalf("rotation %d: no map", tc.rot)
		}
		if !m.onScreen(tc.in) {
			t.Fatalf("rotation %d: %v off screen", tc.rot, tc.in)
		}
		if got := m.panel(tc.in); got != tc.want {
			t.Errorf("rotation %d: %v -> %v, want %v", tc.rot, tc.in, got, tc.want)
		}
	}
	if m, _ := newPanelMap(ts, ScreenInfo{Width: 1080, Height: 2400, RotationKnown: true}); m.onScreen(image.Pt(1080, 5)) {
		t.Error("x = width is on screen")
	}
	landscapePanel := parse.Touchscreen{X: parse.AbsInfo{Max: 2399}, Y: parse.AbsInfo{Max: 1079}}
	if _, ok := newPanelMap(landscapePanel, ScreenInfo{Width: 1080, Height: 2400, RotationKnown: true}); ok {
		t.Error("a landscape panel on a portrait display was mapped")
	}
	if _, ok := newPanelMap(ts, ScreenInfo{Width: 1080, Height: 2400}); ok {
		t.Error("mapped without a rotation")
	}
}
