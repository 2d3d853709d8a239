package emulator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest"
)

// TestRealPhoneFaultsThroughADB drives the faults real phones have through
// Debian's adb server, on the scenario replaying a real rotated dump.
func TestRealPhoneFaultsThroughADB(t *testing.T) {
	env := adbtest.Start(t, adbtest.Options{Scenario: "android/testdata/scenarios/rotated"})
	d := env.Devices[0]

	t.Run("real dump verbatim", func(t *testing.T) {
		raw, err := os.ReadFile("android/testdata/scenarios/rotated/window_dump.xml")
		if err != nil {
			t.Fatal(err)
		}
		out, _, code := adbRun(t, env, d, "exec-out", "uiautomator", "dump", "/dev/tty")
		if code != 0 || out != string(raw)+"UI hierchary dumped to: /dev/tty\n" {
			t.Errorf("exec-out dump (%d) is not the captured bytes: %.200q", code, out)
		}
	})
	t.Run("settings", func(t *testing.T) {
		// SettingsService's shell command (AOSP frameworks/base/packages/
		// SettingsProvider): println(null) for an unset key; bad input on
		// stderr with onCommand's -1, exit status 255.
		if out, errOut, code := adbRun(t, env, d, "shell", "settings", "get", "secure", "no_such_key"); out != "null\n" || errOut != "" || code != 0 {
			t.Errorf("get unset: %q %q %d", out, errOut, code)
		}
		if out, errOut, code := adbRun(t, env, d, "shell", "settings", "get", "sytem", "user_rotation"); out != "" || errOut != "Invalid namespace 'sytem'\n" || code != 255 {
			t.Errorf("bad namespace: %q %q %d", out, errOut, code)
		}
		adbRun(t, env, d, "shell", "settings", "put", "global", "stay_on_while_plugged_in", "0")
		if out, _, _ := adbRun(t, env, d, "shell", "dumpsys power | grep mStayOn"); strings.TrimSpace(out) != "mStayOn=false" {
			t.Errorf("stay-on off: %q", out)
		}
		adbRun(t, env, d, "shell", "settings", "put", "global", "stay_on_while_plugged_in", "7")
	})
	t.Run("dump not idle", func(t *testing.T) {
		// DumpCommand (AOSP frameworks/base/cmds/uiautomator) prints this on
		// System.err when waitForIdle times out and exits normally.
		d.Android().FailDumpNotIdle(1, 10*time.Millisecond)
		out, errOut, code := adbRun(t, env, d, "shell", "uiautomator", "dump")
		if out != "" || errOut != "ERROR: could not get idle state.\n" || code != 0 {
			t.Errorf("got %q %q %d", out, errOut, code)
		}
		if out, _, _ := adbRun(t, env, d, "shell", "uiautomator", "dump"); out != "UI hierchary dumped to: /sdcard/window_dump.xml\n" {
			t.Errorf("next dump %q", out)
		}
	})
	t.Run("command hangs", func(t *testing.T) {
		d.Android().HangCommands("dumpsys")
		defer d.Android().HangCommands()
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		cmd := env.AdbCmd(ctx, "-s", d.Serial(), "shell", "dumpsys", "battery")
		start := time.Now()
		if err := cmd.Run(); err == nil || time.Since(start) < 400*time.Millisecond {
			t.Errorf("dumpsys returned after %v: %v", time.Since(start), err)
		}
		if out, _, _ := adbRun(t, env, d, "shell", "echo", "alive"); out != "alive\n" {
			t.Errorf("after the hang: %q", out)
		}
	})
	t.Run("ANR dialog", func(t *testing.T) {
		d.Android().ShowANR("net.spotlightlabs.spotlight")
		defer d.Android().ShowANR("")
		out, _, _ := adbRun(t, env, d, "shell", "dumpsys window | grep mCurrentFocus")
		if !strings.Contains(out, "Application Not Responding: net.spotlightlabs.spotlight}") {
			t.Errorf("mCurrentFocus %q", out)
		}
		dump, _, _ := adbRun(t, env, d, "exec-out", "uiautomator", "dump", "/dev/tty")
		if !strings.Contains(dump, `text="Spotlight isn't responding"`) || !strings.Contains(dump, `resource-id="android:id/aerr_wait"`) {
			t.Errorf("dump %q", dump)
		}
	})
	t.Run("screen off and locked", func(t *testing.T) {
		d.Android().SleepAndLock()
		_, errOut, code := adbRun(t, env, d, "shell", "uiautomator", "dump")
		if errOut != "ERROR: null root node returned by UiTestAutomationBridge.\n" || code != 0 {
			t.Errorf("dump with the screen off: %q %d", errOut, code)
		}
		out, _, _ := adbRun(t, env, d, "shell", "dumpsys power | grep mWakefulness=")
		if strings.TrimSpace(out) != "mWakefulness=Asleep" {
			t.Errorf("power %q", out)
		}
		adbRun(t, env, d, "shell", "input", "keyevent", "WAKEUP")
		adbRun(t, env, d, "shell", "input", "keyevent", "MENU")
	})
	t.Run("offline mid-transfer", func(t *testing.T) {
		src := filepath.Join(t.TempDir(), "big.bin")
		if err := os.WriteFile(src, bytes.Repeat([]byte("virtual phone "), 1<<16), 0o644); err != nil {
			t.Fatal(err)
		}
		d.DropDuringTransfer(128<<10, 0)
		out, errOut, code := adbRun(t, env, d, "push", src, "/sdcard/big.bin")
		if code == 0 {
			t.Fatal("push through a link cut midway succeeded")
		}
		t.Logf("push: %s", strings.TrimSpace(out+errOut))
		if _, err := d.Android().FS().Stat("/sdcard/big.bin"); err == nil {
			t.Error("a cut push left a file")
		}
		env.WaitState(d, "device")
		if _, errOut, code := adbRun(t, env, d, "push", src, "/sdcard/big.bin"); code != 0 {
			t.Errorf("push after reconnecting: %s", errOut)
		}
	})
}

// TestScenarioOfflineFault: "offline_after_bytes" in scenario.json reaches
// the transport: the first pull is cut, and the device comes back.
func TestScenarioOfflineFault(t *testing.T) {
	raw, err := os.ReadFile("android/testdata/scenarios/rotated/scenario.json")
	if err != nil {
		t.Fatal(err)
	}
	var sc map[string]any
	if err := json.Unmarshal(raw, &sc); err != nil {
		t.Fatal(err)
	}
	sc["faults"] = map[string]any{"offline_after_bytes": 20000}
	dir := t.TempDir()
	raw, _ = json.Marshal(sc)
	dump, _ := os.ReadFile("android/testdata/scenarios/rotated/window_dump.xml")
	for name, data := range map[string][]byte{"scenario.json": raw, "window_dump.xml": dump} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := adbtest.Start(t, adbtest.Options{Scenario: dir})
	d := env.Devices[0]
	adbRun(t, env, d, "shell", "uiautomator", "dump")
	if _, _, code := adbRun(t, env, d, "pull", "/sdcard/window_dump.xml", filepath.Join(t.TempDir(), "w.xml")); code == 0 {
		t.Fatal("pull through a link cut midway succeeded")
	}
	env.WaitState(d, "device")
	if _, errOut, code := adbRun(t, env, d, "pull", "/sdcard/window_dump.xml", filepath.Join(t.TempDir(), "w.xml")); code != 0 {
		t.Errorf("pull after the device came back: %s", errOut)
	}
}
