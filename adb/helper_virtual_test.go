package adb

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/adb/helper"
	"github.com/adb-connector/adb-connector/adb/parse"
	"github.com/adb-connector/adb-connector/emulator/android"
)

// On the virtual phone, the helper's fallbacks as a phone shows them: an
// Android older than the helper supports is never pushed to nor started
// on, and a phone whose app_process cannot run it serves every call on the
// stock path, the jar left where the reset removes it.
func TestHelperVirtualPhoneFallback(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		sdk  int
		why  string
	}{
		{"android 9", 28, HelperWhySDK},
		{"no helper runtime", 33, HelperWhyStart},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			vd, d := phoneEnv(t, adbtest.Options{SDK: tc.sdk, NoHelper: true}, Config{})
			x, y := centerOf(t, d, "Settings")
			if err := d.Tap(t.Context(), x, y); err != nil {
				t.Fatal(err)
			}
			if err := d.Text(t.Context(), "abc"); err != nil {
				t.Fatal(err)
			}
			st := d.HelperStatus()
			if st.Running || st.Why != tc.why {
				t.Fatalf("status %+v, want not running: %s", st, tc.why)
			}
			started := slices.ContainsFunc(vd.Android().Commands(), func(c android.Command) bool { return strings.Contains(c.Line, "app_process") })
			if started != (tc.why == HelperWhyStart) {
				t.Fatalf("app_process ran: %v", started)
			}
			if tc.why == HelperWhyStart && st.Detail == "" {
				t.Fatalf("status %+v: no detail", st)
			}
			counts := d.c.HelperCounts()
			if counts.Calls[HelperCall{Op: "tree", Path: PathStock}] == 0 || counts.Calls[HelperCall{Op: "tree", Path: PathHelper}] != 0 {
				t.Fatalf("calls %v", counts.Calls)
			}
			if err := d.RemoveTempFiles(t.Context()); err != nil {
				t.Fatal(err)
			}
			if _, err := d.Stat(t.Context(), helper.PhonePath()); err == nil {
				t.Fatal("the jar is on the phone after RemoveTempFiles")
			}
		})
	}
}

// fieldText is the text of the node with resource id id.
func fieldText(t *testing.T, d *Device, id string) string {
	t.Helper()
	root, err := d.UIDump(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range parse.Flatten(root) {
		if n.ResourceID == id {
			return n.Text
		}
	}
	t.Fatalf("no %s on screen", id)
	return ""
}

// The helper's own code (the embedded jar, on the virtual phone's
// app_process) serves the UI tree, a tap and CJK text: no uiautomator,
// input or IME runs on the phone. With the helper off the same calls take
// the stock path (this phone has the ADB Keyboard IME) with the same
// outcome.
func TestHelperVirtualPhoneServes(t *testing.T) {
	t.Parallel()
	const user = "com.example.login:id/username"
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprintf("helper %v", on), func(t *testing.T) {
			t.Parallel()
			vd, d := phoneEnv(t, adbtest.Options{Scenario: "login", SDK: 34}, Config{})
			d.SetHelper(on)
			root, err := d.UIDump(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			var ux, uy int
			for _, n := range parse.Flatten(root) {
				if n.ResourceID == user {
					ux, uy = n.Center.X, n.Center.Y
				}
			}
			if err := d.Tap(t.Context(), ux, uy); err != nil {
				t.Fatal(err)
			}
			if err := d.Text(t.Context(), "王小明"); err != nil {
				t.Fatalf("text: %v (helper %+v)", err, d.HelperStatus())
			}
			if got := fieldText(t, d, user); got != "王小明" {
				t.Fatalf("username field %q", got)
			}
			stock := len(ran(vd, "uiautomator")) > 0 || len(ran(vd, "input")) > 0 || len(ran(vd, "ime")) > 0
			if on == stock {
				t.Fatalf("helper %v, stock commands ran %v (uiautomator %q input %q)", on, stock, ran(vd, "uiautomator"), ran(vd, "input"))
			}
			if st := d.HelperStatus(); st.Running != on {
				t.Fatalf("status %+v", st)
			}
		})
	}
}

// With another owner holding the phone's UiAutomation slot (uiautomator2,
// Appium), the helper starts without the tree and text, says why, and
// never takes the slot: taps still go through it, the tree to the stock
// path (which the held slot refuses as it refuses any uiautomator), and the
// other owner keeps the slot.
func TestHelperVirtualPhoneSlotHeld(t *testing.T) {
	t.Parallel()
	vd, d := phoneEnv(t, adbtest.Options{Scenario: "login", SDK: 34, UiAutomationHeld: true}, Config{NoTouchEvents: true})
	if err := d.Tap(t.Context(), 360, 250); err != nil {
		t.Fatal(err)
	}
	st := d.HelperStatus()
	if !st.Running || st.Features&helper.FeatureTree != 0 || st.Features&helper.FeatureInject == 0 || !strings.Contains(st.Reason, "busy") {
		t.Fatalf("status %+v, want running without the tree, busy", st)
	}
	if _, err := d.UIDump(t.Context()); !errors.Is(err, ErrUIHeld) {
		t.Fatalf("stock dump with the slot held: %v, want ErrUIHeld", err)
	}
	if got := ran(vd, "uiautomator"); len(got) != 1 {
		t.Fatalf("uiautomator ran %q, want once (the stock fallback)", got)
	}
	counts := d.c.HelperCounts()
	if counts.Calls[HelperCall{Op: "tap", Path: PathHelper}] != 1 || counts.Calls[HelperCall{Op: "tree", Path: PathStock}] != 1 {
		t.Fatalf("calls %v", counts.Calls)
	}
}
