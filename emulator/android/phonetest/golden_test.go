package phonetest

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/internal/testkit"
)

// TestGolden checks each command's output (stdout, stderr, exit status)
// against testdata/golden/NAME.txt. Regenerate with -update and review.
func TestGolden(t *testing.T) {
	cases := []struct {
		name  string
		cfg   android.Config
		setup []string
		prep  func(*android.Device)
		cmd   string
	}{
		{name: "getprop_all", cmd: "getprop"},
		{name: "getprop_one", cmd: "getprop ro.build.version.sdk"},
		{name: "getprop_missing_default", cmd: "getprop no.such.prop fallback; getprop no.such.prop"},
		{name: "wm_size", cmd: "wm size"},
		{name: "wm_size_override", setup: []string{"wm size 600x1000"}, cmd: "wm size"},
		{name: "wm_density", cmd: "wm density"},
		{name: "wm_density_override", setup: []string{"wm density 280"}, cmd: "wm density"},
		{name: "dumpsys_battery", cmd: "dumpsys battery"},
		{name: "dumpsys_battery_sdk28", cfg: android.Config{SDK: 28, Release: "9"}, cmd: "dumpsys battery"},
		{name: "dumpsys_window_launcher", cmd: "dumpsys window"},
		{name: "dumpsys_window_settings", setup: []string{"am start -n com.android.settings/.Settings"}, cmd: "dumpsys window displays"},
		{name: "dumpsys_window_locked_off", prep: func(d *android.Device) { d.SetLocked(true); d.SetScreenOn(false) }, cmd: "dumpsys window"},
		{name: "dumpsys_window_sdk28_landscape", cfg: android.Config{SDK: 28, Release: "9"}, prep: func(d *android.Device) { d.SetRotation(1); d.SetLocked(true) }, cmd: "dumpsys window"},
		{name: "dumpsys_activity", setup: []string{"am start -n com.android.settings/.Settings"}, cmd: "dumpsys activity activities"},
		{name: "dumpsys_activity_sdk29", cfg: android.Config{SDK: 29, Release: "10"}, setup: []string{"am start -n com.android.settings/.Settings"}, cmd: "dumpsys activity activities"},
		{name: "dumpsys_activity_sdk28", cfg: android.Config{SDK: 28, Release: "9"}, setup: []string{"am start -n com.android.settings/.Settings"}, cmd: "dumpsys activity activities"},
		{name: "dumpsys_power", cmd: "dumpsys power"},
		{name: "dumpsys_power_off", setup: []string{"input keyevent KEYCODE_SLEEP"}, cmd: "dumpsys power"},
		{name: "dumpsys_input", prep: func(d *android.Device) { d.SetRotation(3) }, cmd: "dumpsys input"},
		{name: "dumpsys_input_sdk28", cfg: android.Config{SDK: 28, Release: "9"}, prep: func(d *android.Device) { d.SetRotation(1) }, cmd: "dumpsys input"},
		{name: "dumpsys_unknown", cmd: "dumpsys nosuchservice"},
		{name: "uiautomator_tty", cfg: android.Config{Scenario: "login"}, cmd: "uiautomator dump /dev/tty"},
		{name: "uiautomator_sdk29", cfg: android.Config{Scenario: "login", SDK: 29, Release: "10"}, cmd: "uiautomator dump /dev/tty"},
		{name: "uiautomator_default_file", cmd: "uiautomator dump && ls /sdcard"},
		{name: "uiautomator_rotated", prep: func(d *android.Device) { d.SetRotation(1) }, setup: []string{"am start -n com.android.settings/.Settings"}, cmd: "uiautomator dump /dev/tty"},
		{name: "uiautomator_screen_off", setup: []string{"input keyevent 26"}, cmd: "uiautomator dump"},
		{name: "am_start_n", cmd: "am start -n com.android.settings/.Settings"},
		{name: "am_start_W", cmd: "am start -W -n com.example.login/.LoginActivity"},
		{name: "am_start_again", setup: []string{"am start -n com.android.settings/.Settings", "input keyevent HOME"}, cmd: "am start -n com.android.settings/.Settings; am start -n com.android.settings/.Settings"},
		{name: "am_start_unknown", cmd: "am start -n com.nope/.Main"},
		{name: "am_start_view", cmd: "am start -a android.intent.action.VIEW -d https://example.com/path?q=1; dumpsys window windows | grep -c mCurrentFocus"},
		{name: "am_start_view_unresolved", cmd: "am start -a android.intent.action.VIEW -d market://details?id=x"},
		{name: "am_force_stop", setup: []string{"am start -n com.android.settings/.Settings"}, cmd: "am force-stop com.android.settings; dumpsys activity activities"},
		{name: "monkey", cmd: "monkey -p com.example.list -c android.intent.category.LAUNCHER 1"},
		{name: "monkey_unknown", cmd: "monkey -p com.nope -c android.intent.category.LAUNCHER 1"},
		{name: "pm_list", cmd: "pm list packages"},
		{name: "pm_list_3", cmd: "pm list packages -3"},
		{name: "pm_list_f", cmd: "pm list packages -f"},
		{name: "pm_path", cmd: "pm path com.example.login"},
		{name: "pm_path_unknown", cmd: "pm path com.nope"},
		{name: "resolve_brief", cmd: "cmd package resolve-activity --brief -c android.intent.category.LAUNCHER com.android.settings"},
		{name: "resolve_none", cmd: "cmd package resolve-activity --brief com.nope"},
		{name: "settings", cmd: "settings get global wifi_on; settings get secure nope; settings put system screen_off_timeout 30000; settings get system screen_off_timeout"},
		{name: "logcat_threadtime", setup: []string{"am start -n com.android.settings/.Settings"}, cmd: "logcat -d"},
		{name: "logcat_brief_filter", cmd: "logcat -d -v brief ActivityManager:I '*:S'"},
		{name: "logcat_tail_level", cmd: "logcat -d -t 2 *:W"},
		{name: "input_bad", cmd: "input tap 10"},
		{name: "input_keyevent_unknown", cmd: "input keyevent KEYCODE_NOPE"},
		{name: "input_keycombination_unknown", cmd: "input keycombination -t 100 KEYCODE_CTRL_LEFT KEYCODE_NOPE"},
		{name: "input_keycombination_one", cmd: "input keycombination KEYCODE_A"},
		{name: "input_usage", cmd: "input"},
		{name: "not_found", cmd: "frobnicate --x; echo status=$?"},
		{name: "exit_status", cmd: "exit 3"},
		{name: "quoting", cmd: `echo 'a  b' "c $((1+2))" d\ e; X=1; echo "${X}y" '$X'`},
		{name: "and_or", cmd: "false && echo no || echo yes; true && echo yes2; false; echo $?"},
		{name: "pipe", cmd: "pm list packages | cat | cat"},
		{name: "redirect", cmd: "echo hi > /sdcard/x; echo there >> /sdcard/x; cat /sdcard/x; cat /sdcard/nope; echo err 2>/dev/null >&2; ls /sdcard /nope"},
		{name: "files", cmd: "mkdir /sdcard/d && echo a > /sdcard/d/f && ls -l /sdcard/d && rm /sdcard/d; rm -r /sdcard/d; ls /sdcard; mkdir /sdcard; rm /sdcard/none"},
		{name: "timeout", cmd: "timeout 0.01 sleep 5; echo $?; timeout 5 true; echo $?"},
		{name: "syntax_error", cmd: "echo 'unterminated"},
		{name: "screenrecord", cmd: "screenrecord --time-limit 2 /sdcard/r.mp4 && ls -l /sdcard/; screenrecord --time-limit 0 /sdcard/x.mp4; screenrecord"},
		{name: "command_type", cmd: "command -v getprop; command -v nope; echo $?; type input nope"},
		{name: "env", cmd: "echo $HOME $USER $TMPDIR $PATH; pwd"},
		{name: "sh", cmd: `sh -c 'echo "$0:$1:$2"; exit 5' zero one two; echo st=$?; echo 'echo piped; getprop ro.serialno' | sh; echo 'echo file $1' > /data/local/tmp/s.sh; sh /data/local/tmp/s.sh arg; /system/bin/sh -c 'cd /sdcard && pwd'; sh /nope`},
		{name: "id_uname", cmd: "id; whoami; uname; uname -a"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := newDevice(t, tc.cfg)
			if tc.prep != nil {
				tc.prep(d)
			}
			for _, s := range tc.setup {
				mustRun(t, d, s)
			}
			out, errOut, st := run(t, d, tc.cmd)
			got := fmt.Sprintf("$ %s\n%s\n--- stderr\n%s--- exit %d\n", tc.cmd, out, errOut, st)
			path := filepath.Join("testdata", "golden", tc.name+".txt")
			testkit.Golden(t, path, []byte(got), *update)
		})
	}
}
