package adb

import (
	"slices"
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/adb/helper"
	"github.com/adb-connector/adb-connector/emulator/android"
)

// On the virtual phone, the helper's fallbacks as a phone shows them: an
// Android older than the helper supports is never pushed to nor started
// on, and a phone whose app_process cannot run it (this virtual phone has
// none) serves every call on the stock path, the jar left where the reset
// removes it.
func TestHelperVirtualPhoneFallback(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		sdk  int
		why  string
	}{
		{"android 9", 28, HelperWhySDK},
		{"no app_process", 33, HelperWhyStart},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			vd, d := touchEnv(t, adbtest.Options{SDK: tc.sdk}, Config{})
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
			if tc.why == HelperWhyStart && !strings.Contains(st.Detail, "not found") {
				t.Fatalf("detail %q, want the shell's not found", st.Detail)
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
