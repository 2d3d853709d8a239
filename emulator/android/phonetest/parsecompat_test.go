package phonetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/adb/parse"
	"github.com/adb-connector/adb-connector/emulator/android"
)

// TestOutputsParse feeds the device's outputs to adb/parse (the parsers the
// connector uses on real phones, built from real captures) for several
// Android versions and states, and checks they read back the device state.
func TestOutputsParse(t *testing.T) {
	for _, sdk := range []int{26, 28, 29, 30, 31, 33, 34} {
		for _, st := range []struct {
			name           string
			rot            int
			locked, off    bool
			launch, wantPk string
		}{
			{name: "launcher", wantPk: "com.google.android.apps.nexuslauncher"},
			{name: "settings_land", rot: 1, launch: "com.android.settings/.Settings", wantPk: "com.android.settings"},
			{name: "login_locked_off", rot: 3, locked: true, off: true, launch: "com.example.login/.LoginActivity", wantPk: "com.example.login"},
		} {
			t.Run(fmt.Sprintf("sdk%d/%s", sdk, st.name), func(t *testing.T) {
				t.Parallel()
				d := newDevice(t, android.Config{SDK: sdk, Release: fmt.Sprint(sdk - 20)})
				if st.launch != "" {
					mustRun(t, d, "am start -n "+st.launch)
				}
				if err := d.SetRotation(st.rot); err != nil {
					t.Fatal(err)
				}
				d.SetLocked(st.locked)
				d.SetScreenOn(!st.off)
				_, wantAct := d.Foreground()

				w, err := parse.Window(mustRun(t, d, "dumpsys window"))
				if err != nil {
					t.Fatal(err)
				}
				if !w.RotationKnown || w.Rotation != st.rot || !w.KeyguardKnown || w.KeyguardShowing != st.locked {
					t.Errorf("window %+v", w)
				}
				if w.ScreenOn != nil && *w.ScreenOn == st.off {
					t.Errorf("window screen on %v, want %v", *w.ScreenOn, !st.off)
				}
				if !st.locked && (w.FocusedPackage != st.wantPk || w.FocusedActivity != wantAct) {
					t.Errorf("window focus %s/%s, want %s/%s", w.FocusedPackage, w.FocusedActivity, st.wantPk, wantAct)
				}
				pkg, act, err := parse.TopActivity(mustRun(t, d, "dumpsys activity activities"))
				if err != nil || pkg != st.wantPk || act != wantAct {
					t.Errorf("top activity %s/%s %v, want %s/%s", pkg, act, err, st.wantPk, wantAct)
				}
				p, err := parse.Power(mustRun(t, d, "dumpsys power"))
				if err != nil || p.ScreenOn == st.off {
					t.Errorf("power %+v %v", p, err)
				}
				if rot, err := parse.InputRotation(mustRun(t, d, "dumpsys input")); err != nil || rot != st.rot {
					t.Errorf("input rotation %d %v", rot, err)
				}
				raw := []byte(mustRun(t, d, "screencap"))
				wd, ht, format, hl, err := parse.RawScreencapHeader(raw)
				ds := map[bool][2]int{false: {720, 1280}, true: {1280, 720}}[st.rot%2 == 1]
				if err != nil || wd != ds[0] || ht != ds[1] || format != 1 || hl != map[bool]int{true: 16, false: 12}[sdk >= 28] {
					t.Errorf("screencap header %d %d %d %d %v", wd, ht, format, hl, err)
				}
				if !st.off {
					root, err := parse.UIDump([]byte(mustRun(t, d, "uiautomator dump /dev/tty")))
					if err != nil {
						t.Fatal(err)
					}
					if root.Rotation != st.rot {
						t.Errorf("dump rotation %d", root.Rotation)
					}
				} else if _, err := parse.UIDump([]byte(mustRun(t, d, "uiautomator dump /dev/tty"))); err == nil {
					t.Error("dump of a screen that is off parsed")
				}
			})
		}
	}
}

func TestOtherOutputsParse(t *testing.T) {
	d := newDevice(t, android.Config{})
	mustRun(t, d, "am start -n com.android.settings/.Settings")
	props, err := parse.Props(mustRun(t, d, "getprop"))
	if err != nil || props["ro.product.model"] != "Pixel 6" || props["ro.build.version.sdk"] != "33" {
		t.Errorf("props %v", err)
	}
	if s, err := parse.WMSize(mustRun(t, d, "wm size 600x1000 && wm size")); err != nil || s.Physical.W != 720 || s.Override == nil || s.Override.H != 1000 {
		t.Errorf("wm size %+v %v", s, err)
	}
	if den, err := parse.WMDensity(mustRun(t, d, "wm density")); err != nil || den.Physical != 320 {
		t.Errorf("wm density %+v %v", den, err)
	}
	b, err := parse.Battery(mustRun(t, d, "dumpsys battery"))
	if err != nil || b.Level != 85 || b.Plugged != "usb" || b.Status != "charging" || b.Temperature != 25 {
		t.Errorf("battery %+v %v", b, err)
	}
	pk, err := parse.Packages(mustRun(t, d, "pm list packages -f -3"))
	if err != nil || len(pk) != 3 || pk[0].Name != "com.example.login" || !strings.HasSuffix(pk[0].Path, "/base.apk") {
		t.Errorf("packages %+v %v", pk, err)
	}
	if paths, err := parse.PMPath(mustRun(t, d, "pm path com.android.settings")); err != nil || len(paths) != 1 {
		t.Errorf("pm path %v %v", paths, err)
	}
	if c, err := parse.ResolveActivity(mustRun(t, d, "cmd package resolve-activity --brief -c android.intent.category.LAUNCHER com.example.list")); err != nil || c != "com.example.list/.ListActivity" {
		t.Errorf("resolve %q %v", c, err)
	}
	for _, f := range []string{"threadtime", "brief"} {
		ls, err := parse.Logcat(mustRun(t, d, "logcat -d -v "+f))
		if err != nil || len(ls) < 2 || ls[len(ls)-1].Tag != "ActivityTaskManager" {
			t.Errorf("logcat %s: %+v %v", f, ls, err)
		}
	}
}
