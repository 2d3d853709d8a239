package phonetest

import (
	"image"
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/emulator/android/internal/phonekit"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

// TestPinnedWmSetsDisplay: pinned `wm size`/`wm density` outputs are what
// the screenshots and dumps use, so pixels agree with what the pins print.
func TestPinnedWmSetsDisplay(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, size, density string
		shot                image.Rectangle
		lcdDensity          string
	}{
		{"physical", "Physical size: 1080x2400\n", "Physical density: 420\n", image.Rect(0, 0, 1080, 2400), "420"},
		{"override", "Physical size: 1440x3120\nOverride size: 1080x2340\n", "Physical density: 560\nOverride density: 420\n", image.Rect(0, 0, 1080, 2340), "560"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := phonekit.ScenarioWith(t, map[string]any{"pinned": []any{
				map[string]any{"command": "wm size", "stdout": tc.size},
				map[string]any{"command": "wm density", "stdout": tc.density},
			}}, nil)
			d := newDevice(t, android.Config{Scenario: dir})
			if got := mustRun(t, d, "wm size"); got != tc.size {
				t.Errorf("wm size %q", got)
			}
			if s := d.Screenshot().Rect; s != tc.shot {
				t.Errorf("screenshot %v, want %v", s, tc.shot)
			}
			root := phonekit.FindNode(t, d, func(n *ui.Element) bool { return true })
			if root.B != tc.shot {
				t.Errorf("dump root bounds %v, want %v", root.B, tc.shot)
			}
			if got := strings.TrimSpace(mustRun(t, d, "getprop ro.sf.lcd_density")); got != tc.lcdDensity {
				t.Errorf("ro.sf.lcd_density %s", got)
			}
			// Rotated, the same display turns landscape.
			mustRun(t, d, "settings put system user_rotation 1")
			if s := d.Screenshot().Rect; s.Dx() != tc.shot.Dy() || s.Dy() != tc.shot.Dx() {
				t.Errorf("rotated screenshot %v", s)
			}
		})
	}
}
