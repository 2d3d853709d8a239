package tools

import (
	"fmt"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/emulator"
)

// uiDumps counts the `uiautomator dump` runs in a virtual phone's command
// log.
func uiDumps(d *emulator.Device) int {
	n := 0
	for _, c := range d.Android().Commands() {
		if isDump(c) {
			n++
		}
	}
	return n
}

// TestUICacheOnVirtualPhone checks the rule of uicache.go through the real
// adb server: observe then tap by ref dumps once; anything acting in
// between (a tool call, or an input through package adb as an operator's
// reset sends) forces a dump; a text selector, android_wait_for and a
// second acting call never use the cached tree.
func TestUICacheOnVirtualPhone(t *testing.T) {
	e := newToolsEnv(t, 1, func(c *Config) { c.RatePerMinute = 1 << 20 })
	dev := e.device(0)
	ph := dev.Android()
	ch := devChannel(0)
	calls := 0
	call := func(t *testing.T, tool, args string, v any) {
		t.Helper()
		calls++
		mustOK(t, e.call(t, t.Context(), ch, tool, args, fmt.Sprint("uic", calls), nil), v)
	}
	// observeHome goes to the launcher, observes it and returns the
	// Settings icon's tap arguments by ref.
	observeHome := func(t *testing.T) string {
		t.Helper()
		call(t, "android_press_key", `{"key":"home"}`, nil)
		ph.ClearCommands()
		var obs observeResult
		call(t, "android_observe", `{"max_side":200}`, &obs)
		for _, el := range obs.Elements {
			if el.Text == "Settings" || el.ContentDesc == "Settings" {
				return fmt.Sprintf(`{"ref":%q,"screen_id":%q}`, el.Ref, obs.ScreenID)
			}
		}
		t.Fatalf("no Settings icon among %d elements", len(obs.Elements))
		return ""
	}
	inSettings := func(t *testing.T) {
		t.Helper()
		if pkg, _ := ph.Foreground(); pkg != "com.android.settings" {
			t.Errorf("foreground %q, want com.android.settings", pkg)
		}
	}

	t.Run("observe then tap by ref dumps once", func(t *testing.T) {
		ref := observeHome(t)
		call(t, "android_tap", ref, nil)
		inSettings(t)
		if n := uiDumps(dev); n != 1 {
			t.Errorf("%d uiautomator dumps, want 1 (observe's)", n)
		}
	})
	t.Run("observe then tap by text dumps twice", func(t *testing.T) {
		observeHome(t)
		call(t, "android_tap", `{"text":"Settings"}`, nil)
		inSettings(t)
		if n := uiDumps(dev); n != 2 {
			t.Errorf("%d uiautomator dumps, want 2", n)
		}
	})
	t.Run("an acting tool call in between", func(t *testing.T) {
		ref := observeHome(t)
		call(t, "android_press_key", `{"key":"volume_up"}`, nil)
		call(t, "android_tap", ref, nil)
		inSettings(t)
		if n := uiDumps(dev); n != 2 {
			t.Errorf("%d uiautomator dumps, want 2", n)
		}
	})
	t.Run("an input through package adb in between", func(t *testing.T) {
		ref := observeHome(t)
		d, err := e.resolver.client.Device(adb.DeviceKey(e.adb.ServerAddr, dev.Serial()))
		if err != nil {
			t.Fatal(err)
		}
		if err := d.KeyEvent(t.Context(), "KEYCODE_VOLUME_DOWN"); err != nil {
			t.Fatal(err)
		}
		call(t, "android_tap", ref, nil)
		inSettings(t)
		if n := uiDumps(dev); n != 2 {
			t.Errorf("%d uiautomator dumps, want 2", n)
		}
	})
	t.Run("a second acting call dumps again", func(t *testing.T) {
		ref := observeHome(t)
		call(t, "android_tap", `{"x":1,"y":1}`, nil) // an empty spot: the screen stays
		call(t, "android_tap", ref, nil)
		inSettings(t)
		if n := uiDumps(dev); n != 2 {
			t.Errorf("%d uiautomator dumps, want 2", n)
		}
	})
	t.Run("read-only tools refresh, never reuse", func(t *testing.T) {
		observeHome(t)
		var w waitResult
		call(t, "android_wait_for", `{"condition":"appears","text":"Settings","timeout_ms":2000}`, &w)
		var ui uiElementsResult
		call(t, "android_ui_elements", `{}`, &ui)
		if n := uiDumps(dev); n != 3 {
			t.Errorf("%d uiautomator dumps, want 3 (observe, wait_for, ui_elements)", n)
		}
		// ui_elements' dump is the phone's last one: a tap by its ref uses it.
		for _, el := range ui.Elements {
			if el.Text == "Settings" || el.ContentDesc == "Settings" {
				call(t, "android_tap", fmt.Sprintf(`{"ref":%q,"screen_id":%q}`, el.Ref, ui.ScreenID), nil)
			}
		}
		inSettings(t)
		if n := uiDumps(dev); n != 3 {
			t.Errorf("%d uiautomator dumps after the tap, want still 3", n)
		}
	})
}

// TestUICacheRule checks uiCache alone: a dump that an acting call
// overlapped is not kept; take hands the tree out once; an adb action
// since the dump voids it.
func TestUICacheRule(t *testing.T) {
	c, err := adb.New(t.Context(), adb.Config{NoTracking: true, Endpoints: []string{"127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	d, err := c.Device("127.0.0.1:1/SERIAL")
	if err != nil {
		t.Fatal(err)
	}
	var u uiCache
	s := &screen{id: "s1"}

	m := u.begin(d)
	u.put(d, s, m)
	if got := u.take(d); got != s {
		t.Fatalf("take = %v, want the dump", got)
	}
	if got := u.take(d); got != nil {
		t.Fatal("a second take got the tree")
	}

	m = u.begin(d)
	u.take(d) // an acting call begins while the dump runs
	u.put(d, s, m)
	if got := u.take(d); got != nil {
		t.Fatal("a dump overlapped by an acting call was kept")
	}

	u.put(d, s, u.begin(d))
	if _, err := d.Shell(t.Context(), "true"); err == nil {
		t.Fatal("a shell command reached a device that does not exist")
	}
	if got := u.take(d); got != nil {
		t.Fatal("the tree survived a shell command (adb.Device.ActionSeq)")
	}
	sel := &compiled{selector: selector{Ref: "e1", ScreenID: "s1"}}
	if forRef(s, sel) != s || forRef(s, &compiled{selector: selector{Ref: "e1", ScreenID: "s2"}}) != nil || forRef(s, &compiled{selector: selector{Text: "x"}}) != nil || forRef(nil, sel) != nil {
		t.Error("forRef does not match by the ref's screen only")
	}
}

// BenchmarkObserveThenTap is an agent's usual step on the pixel-usb
// profile (a flagship's uiautomator: its Java start and its idle wait):
// observe, then tap the Settings icon by its ref (the cached tree) or by
// its text (a new dump), alternating in each iteration. The ratio is
// reported as by_ref/by_text.
func BenchmarkObserveThenTap(b *testing.B) {
	e := newToolsEnvOpts(b, adbtest.Options{Devices: 1, Profile: "pixel-usb"}, adb.Limits{}, func(c *Config) { c.RatePerMinute = 1 << 20 })
	ch := devChannel(0)
	i := 0
	call := func(tool, args string, v any) {
		i++
		mustOK(b, e.call(b, b.Context(), ch, tool, args, fmt.Sprint("b", i), nil), v)
	}
	settingsRef := func() string {
		call("android_press_key", `{"key":"home"}`, nil)
		var obs observeResult
		call("android_observe", `{"max_side":200}`, &obs)
		for _, el := range obs.Elements {
			if el.Text == "Settings" || el.ContentDesc == "Settings" {
				return fmt.Sprintf(`{"ref":%q,"screen_id":%q}`, el.Ref, obs.ScreenID)
			}
		}
		b.Fatal("no Settings icon")
		return ""
	}
	var byRef, byText time.Duration
	for b.Loop() {
		start := time.Now()
		call("android_tap", settingsRef(), nil)
		byRef += time.Since(start)
		start = time.Now()
		settingsRef()
		call("android_tap", `{"text":"Settings"}`, nil)
		byText += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(float64(byRef.Nanoseconds())/n, "ns/by_ref")
	b.ReportMetric(float64(byText.Nanoseconds())/n, "ns/by_text")
	b.ReportMetric(float64(byRef)/float64(byText), "by_ref/by_text")
}
