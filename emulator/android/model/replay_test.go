package model_test

import (
	"fmt"
	"image"
	"os"
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/adb/parse"
	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/emulator/android/internal/phonekit"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

const rotatedScenario = "../testdata/scenarios/rotated"

// TestRealDumpReplaysVerbatim: a screen given as a real dump answers
// `uiautomator dump` with the captured bytes (NAF="true" and all), to
// stdout and to a file.
func TestRealDumpReplaysVerbatim(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(rotatedScenario + "/window_dump.xml")
	if err != nil {
		t.Fatal(err)
	}
	d := newDevice(t, android.Config{Scenario: rotatedScenario})
	if got := mustRun(t, d, "uiautomator dump /dev/tty"); got != string(raw)+"UI hierchary dumped to: /dev/tty\n" {
		t.Fatalf("dump is not the captured bytes:\n%.300s", got)
	}
	if got := mustRun(t, d, "uiautomator dump && cat /sdcard/window_dump.xml"); got != "UI hierchary dumped to: /sdcard/window_dump.xml\n"+string(raw) {
		t.Fatalf("dump file is not the captured bytes:\n%.300s", got)
	}
	if !strings.Contains(string(raw), `NAF="true"`) {
		t.Fatal("fixture lost its NAF attributes")
	}
}

// TestRealDumpDrivesGeometry: the rotated dump sets the display's rotation
// and size, and the tree that renders and takes taps has the captured
// bounds, node for node.
func TestRealDumpDrivesGeometry(t *testing.T) {
	t.Parallel()
	raw, _ := os.ReadFile(rotatedScenario + "/window_dump.xml")
	orig, err := parse.UIDump(raw)
	if err != nil {
		t.Fatal(err)
	}
	d := newDevice(t, android.Config{Scenario: rotatedScenario})
	if r := d.Rotation(); r != orig.Rotation || r != 1 {
		t.Fatalf("rotation %d, dump says %d", r, orig.Rotation)
	}
	root := orig.Children[0].Bounds
	if s := d.Screenshot().Rect; s != image.Rect(0, 0, root.Right, root.Bottom) {
		t.Errorf("screenshot %v, dump root %+v", s, root)
	}
	// The natural display is landscape 1920x1080; rotation 1 makes it the
	// captured 1080x1920.
	if out := mustRun(t, d, "wm size"); out != "Physical size: 1920x1080\n" {
		t.Errorf("wm size %q", out)
	}
	var want []parse.Rect
	var walkP func(n *parse.UINode)
	walkP = func(n *parse.UINode) {
		want = append(want, n.Bounds)
		for _, c := range n.Children {
			walkP(c)
		}
	}
	for _, w := range orig.Children {
		walkP(w)
	}
	d.Model().Lock()
	tree := d.Model().Tree()
	d.Model().Unlock()
	var got []parse.Rect
	tree.Walk(func(n *ui.Element) bool {
		got = append(got, parse.Rect{Left: n.B.Min.X, Top: n.B.Min.Y, Right: n.B.Max.X, Bottom: n.B.Max.Y})
		return true
	})
	if len(orig.Children) > 1 {
		got = got[1:] // the synthetic root wrapping several windows
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("model bounds differ from the dump's:\n got %v\nwant %v", got, want)
	}
}

// TestRealDumpTaps: tapping an element's centre in the rotated dump hits
// that element, and a rule on it starts its activity.
func TestRealDumpTaps(t *testing.T) {
	t.Parallel()
	raw, _ := os.ReadFile(rotatedScenario + "/window_dump.xml")
	orig, _ := parse.UIDump(raw)
	d := newDevice(t, android.Config{Scenario: rotatedScenario})
	for _, id := range []string{"net.spotlightlabs.spotlight:id/ivBack", "net.spotlightlabs.spotlight:id/followBtn", "net.spotlightlabs.spotlight:id/notiBtn", "net.spotlightlabs.spotlight:id/llPublisherUrl"} {
		n := findParsed(orig, id)
		if n == nil {
			t.Fatalf("%s not in the fixture", id)
		}
		x, y := n.Bounds.Center()
		d.Model().Lock()
		h := ui.Hit(d.Model().PortraitTree(), d.Model().FromDisplay(image.Pt(x, y)))
		d.Model().Unlock()
		if h == nil || h.ResourceID != id || h.B != image.Rect(n.Bounds.Left, n.Bounds.Top, n.Bounds.Right, n.Bounds.Bottom) {
			t.Errorf("tap %d,%d on %s hit %+v", x, y, id, h)
		}
	}
	x, y := findParsed(orig, "net.spotlightlabs.spotlight:id/followBtn").Bounds.Center()
	mustRun(t, d, fmt.Sprintf("input tap %d %d", x, y))
	if pkg, act := d.Foreground(); act != "net.spotlightlabs.spotlight.UnfollowActivity" {
		t.Fatalf("after tapping Following: %s/%s", pkg, act)
	}
	// The next screen is the phone's own: the display follows user_rotation.
	if r := d.Rotation(); r != 0 {
		t.Errorf("rotation %d on a non-dump screen", r)
	}
	mustRun(t, d, "input keyevent BACK")
	if r, id := d.Rotation(), d.ScreenID(); r != 1 || id != "publisher" {
		t.Errorf("back on the dump screen: rotation %d screen %q", r, id)
	}
	x, y = findParsed(orig, "net.spotlightlabs.spotlight:id/ivBack").Bounds.Center()
	mustRun(t, d, fmt.Sprintf("input tap %d %d", x, y))
	if id := d.ScreenID(); id != "home" {
		t.Errorf("after tapping Go Back: screen %q", id)
	}
}

// TestLandscapeDumpRendersLandscape: a landscape root (the shape of a
// rotated phone's dump) renders at its own size and takes taps at its own
// coordinates. The dump is written for the test.
func TestLandscapeDumpRendersLandscape(t *testing.T) {
	t.Parallel()
	dump := `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="1">` +
		`<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.example.game" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][2000,1128]">` +
		`<node NAF="true" index="0" text="" resource-id="com.example.game:id/play" class="android.widget.ImageButton" package="com.example.game" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[1700,900][1950,1100]" />` +
		`</node></hierarchy>`
	dir := phonekit.ScenarioWith(t, map[string]any{
		"start": "game",
		"screens": []any{
			map[string]any{"id": "home", "package": "com.google.android.apps.nexuslauncher", "launcher": true},
			map[string]any{"id": "game", "package": "com.example.login", "dump": "game.xml",
				"rules": []any{map[string]any{"resource-id": "com.example.game:id/play", "action": map[string]any{"home": true}}}},
		},
		"apps": []any{
			map[string]any{"package": "com.google.android.apps.nexuslauncher", "label": "Pixel Launcher", "activity": ".NexusLauncherActivity", "system": true, "no_launcher": true},
			map[string]any{"package": "com.example.login", "label": "Game", "activity": ".Game"},
		},
	}, map[string][]byte{"game.xml": []byte(dump)})
	d := newDevice(t, android.Config{Scenario: dir})
	if s := d.Screenshot().Rect; s != image.Rect(0, 0, 2000, 1128) {
		t.Fatalf("screenshot %v, want the dump's 2000x1128", s)
	}
	if got := mustRun(t, d, "uiautomator dump /dev/tty"); !strings.HasPrefix(got, dump) {
		t.Fatalf("dump %q", got)
	}
	mustRun(t, d, "input tap 1825 1000")
	if id := d.ScreenID(); id != "home" {
		t.Errorf("tap on the landscape button: screen %q", id)
	}
	if s := d.Screenshot().Rect; s.Dx() >= s.Dy() {
		t.Errorf("launcher screenshot %v: the display should be back to portrait", s)
	}
}

func findParsed(h *parse.UINode, id string) *parse.UINode {
	if h.ResourceID == id {
		return h
	}
	for _, c := range h.Children {
		if n := findParsed(c, id); n != nil {
			return n
		}
	}
	return nil
}
