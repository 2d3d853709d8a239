package services_test

import (
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/emulator/android/internal/phonekit"
	"github.com/adb-connector/adb-connector/emulator/android/services"
)

// TestSettingsOutputs checks `settings` against what SettingsService's
// shell command prints (AOSP frameworks/base/packages/SettingsProvider/src/
// com/android/providers/settings/SettingsService.java, MyShellCommand):
// println of a null value for an unset key, messages on stderr and
// onCommand's -1 as exit status 255.
func TestSettingsOutputs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cmd, stdout, stderr string
		exit                int
	}{
		{"settings get secure no_such_key", "null\n", "", 0},
		{"settings --user 0 get global wifi_on", "1\n", "", 0},
		{"settings --user current put system font_scale 1.3 && settings get system font_scale", "1.3\n", "", 0},
		{"settings GET SYSTEM user_rotation", "0\n", "", 0},
		{"settings get bogus k", "", "Invalid namespace 'bogus'\n", 255},
		{"settings frob system k", "", "Invalid command: frob\n", 255},
		{"settings get system", "", "Bad arguments\n", 255},
		{"settings put system k", "", "Bad arguments\n", 255},
		{"settings get system a b", "", "Too many arguments\n", 255},
		{"settings put system k v tag other", "", "Argument expected to be 'default'\n", 255},
		{"settings put global k v tag default extra", "", "Too many arguments\n", 255},
		{"settings put global k v tag default && settings get global k", "v\n", "", 0},
		{"settings delete system nope", "Deleted 0 rows\n", "", 0},
		{"settings put system k v; settings delete system k; settings get system k", "Deleted 1 rows\nnull\n", "", 0},
		{"settings", services.SettingsHelp, "", 255},
	}
	for _, tc := range cases {
		t.Run(tc.cmd, func(t *testing.T) {
			t.Parallel()
			d := newDevice(t, android.Config{})
			out, errOut, st := run(t, d, tc.cmd)
			if out != tc.stdout || errOut != tc.stderr || st != tc.exit {
				t.Errorf("got %q %q %d, want %q %q %d", out, errOut, st, tc.stdout, tc.stderr, tc.exit)
			}
		})
	}
}

func TestSettingsTakeEffect(t *testing.T) {
	t.Parallel()
	t.Run("user_rotation", func(t *testing.T) {
		t.Parallel()
		d := newDevice(t, android.Config{})
		mustRun(t, d, "settings put system user_rotation 1")
		if r := d.Rotation(); r != 1 {
			t.Fatalf("rotation %d after put user_rotation 1", r)
		}
		if s := d.Screenshot().Rect; s.Dx() <= s.Dy() {
			t.Errorf("screenshot %v is not landscape", s)
		}
		// Auto-rotate on: the sensor decides (the phone stands upright).
		mustRun(t, d, "settings put system accelerometer_rotation 1")
		mustRun(t, d, "settings put system user_rotation 3")
		if r := d.Rotation(); r != 0 {
			t.Errorf("rotation %d with auto-rotate on, want 0", r)
		}
		mustRun(t, d, "settings put system accelerometer_rotation 0")
		if r := d.Rotation(); r != 3 {
			t.Errorf("rotation %d after auto-rotate off, want user_rotation 3", r)
		}
	})
	t.Run("screen timeout and stay-on", func(t *testing.T) {
		t.Parallel()
		now := phonekit.FixedNow()
		d := newDevice(t, android.Config{Now: func() time.Time { return now }})
		mustRun(t, d, "settings put system screen_off_timeout 15000")
		now = now.Add(time.Minute)
		mustRun(t, d, "true")
		if !d.ScreenOn() {
			t.Fatal("screen went off while plugged in with stay_on_while_plugged_in 7")
		}
		mustRun(t, d, "settings put global stay_on_while_plugged_in 0")
		now = now.Add(14 * time.Second)
		mustRun(t, d, "true")
		if !d.ScreenOn() {
			t.Fatal("screen off before screen_off_timeout")
		}
		now = now.Add(2 * time.Second)
		if out := mustRun(t, d, "uiautomator dump"); out != "" {
			t.Errorf("dump with the screen timed out printed %q", out)
		}
		if d.ScreenOn() {
			t.Fatal("screen still on after screen_off_timeout")
		}
		// Turned back on, the timeout starts again.
		d.SetScreenOn(true)
		mustRun(t, d, "true")
		if !d.ScreenOn() {
			t.Error("screen timed out at once after SetScreenOn(true)")
		}
	})
	t.Run("default_input_method", func(t *testing.T) {
		t.Parallel()
		d := newDevice(t, android.Config{})
		const ime = "com.android.adbkeyboard/.AdbIME"
		mustRun(t, d, "settings put secure default_input_method "+ime)
		if v, _ := d.Setting("secure/default_input_method"); v != ime {
			t.Errorf("IME %q", v)
		}
	})
}

// TestScenarioSettingsApplyAtStart: a scenario's settings act as if set
// by `settings put` before the first command.
func TestScenarioSettingsApplyAtStart(t *testing.T) {
	t.Parallel()
	dir := phonekit.ScenarioWith(t, map[string]any{"settings": map[string]string{
		"system/accelerometer_rotation": "0", "system/user_rotation": "1", "global/wifi_on": "0",
	}}, nil)
	d := newDevice(t, android.Config{Scenario: dir})
	if r := d.Rotation(); r != 1 {
		t.Fatalf("rotation %d at start, want 1", r)
	}
	if s := d.Screenshot().Rect; s.Dx() <= s.Dy() {
		t.Errorf("screenshot %v is not landscape", s)
	}
	if out := mustRun(t, d, "uiautomator dump /dev/tty"); !strings.HasPrefix(out, `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="1">`) {
		t.Errorf("dump %.120q", out)
	}
	if out := mustRun(t, d, "settings get global wifi_on"); out != "0\n" {
		t.Errorf("wifi_on %q", out)
	}
}
