package phonetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/emulator/android/internal/phonekit"
	"github.com/adb-connector/adb-connector/emulator/android/shell"
)

// dumpNotIdle is what DumpCommand prints (System.err) when
// UiAutomation.waitForIdle times out; the command still exits 0 (AOSP
// frameworks/base/cmds/uiautomator/.../DumpCommand.java).
const dumpNotIdle = "ERROR: could not get idle state.\n"

func TestFaultDumpNotIdle(t *testing.T) {
	t.Parallel()
	d := newDevice(t, android.Config{})
	d.FailDumpNotIdle(1, time.Millisecond)
	out, errOut, st := run(t, d, "uiautomator dump")
	if out != "" || errOut != dumpNotIdle || st != 0 {
		t.Fatalf("got %q %q %d", out, errOut, st)
	}
	if _, err := d.FS().Stat("/sdcard/window_dump.xml"); err == nil {
		t.Error("a failed dump wrote its file")
	}
	if out := mustRun(t, d, "uiautomator dump"); out != "UI hierchary dumped to: /sdcard/window_dump.xml\n" {
		t.Errorf("second dump %q", out)
	}
	// The wait before giving up follows the host: a closed stream ends it.
	d.FailDumpNotIdle(-1, time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if st := d.Run(ctx, "uiautomator dump", strings.NewReader(""), &strings.Builder{}, &strings.Builder{}); st != shell.ExitCanceled {
		t.Errorf("canceled dump: status %d", st)
	}
}

func TestFaultHang(t *testing.T) {
	t.Parallel()
	d := newDevice(t, android.Config{})
	d.HangCommands("dumpsys", "getprop ro.serialno")
	for _, line := range []string{"dumpsys window | grep mCurrentFocus", "getprop ro.serialno"} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		st := d.Run(ctx, line, strings.NewReader(""), &strings.Builder{}, &strings.Builder{})
		cancel()
		if st != shell.ExitCanceled {
			t.Errorf("%q: status %d, want it hung until canceled (%d)", line, st, shell.ExitCanceled)
		}
	}
	if out := mustRun(t, d, "getprop ro.product.model"); out != "Pixel 6\n" {
		t.Errorf("an unlisted command: %q", out)
	}
	d.HangCommands()
	mustRun(t, d, "dumpsys battery")
}

func TestFaultANR(t *testing.T) {
	t.Parallel()
	d := newDevice(t, android.Config{})
	mustRun(t, d, "am start -n com.android.settings/.Settings")
	before := d.Screenshot()
	d.ShowANR("com.android.settings")
	dump := mustRun(t, d, "uiautomator dump /dev/tty")
	for _, w := range []string{`text="Settings isn't responding" resource-id="android:id/alertTitle"`, `text="Close app" resource-id="android:id/aerr_close"`, `text="Wait" resource-id="android:id/aerr_wait"`, `package="android"`} {
		if !strings.Contains(dump, w) {
			t.Errorf("dump lacks %s:\n%s", w, dump)
		}
	}
	if strings.Contains(dump, "com.android.settings:id/") {
		t.Error("the dump shows the app's window, not the active dialog")
	}
	if out := mustRun(t, d, "dumpsys window windows | grep mCurrentFocus"); !strings.Contains(out, " u0 Application Not Responding: com.android.settings}") {
		t.Errorf("mCurrentFocus %q", out)
	}
	shot := d.Screenshot()
	if c := shot.RGBAAt(2, 2); c == before.RGBAAt(2, 2) {
		t.Errorf("the app behind the dialog is not dimmed: %v", c)
	}
	wait := phonekit.FindNode(t, d, phonekit.ByID("android:id/aerr_wait"))
	mustRun(t, d, fmt.Sprintf("input tap %d %d", (wait.B.Min.X+wait.B.Max.X)/2, (wait.B.Min.Y+wait.B.Max.Y)/2))
	if d.ANR() != "" {
		t.Fatal("Wait did not dismiss the dialog")
	}
	if pkg, _ := d.Foreground(); pkg != "com.android.settings" {
		t.Errorf("after Wait: %s in front", pkg)
	}
	d.ShowANR("com.android.settings")
	closeApp := phonekit.FindNode(t, d, phonekit.ByID("android:id/aerr_close"))
	mustRun(t, d, fmt.Sprintf("input tap %d %d", (closeApp.B.Min.X+closeApp.B.Max.X)/2, (closeApp.B.Min.Y+closeApp.B.Max.Y)/2))
	if pkg, _ := d.Foreground(); pkg != "com.google.android.apps.nexuslauncher" || d.ANR() != "" {
		t.Errorf("after Close app: %s in front, ANR %q", pkg, d.ANR())
	}
}

func TestFaultANRGoesWithTheApp(t *testing.T) {
	t.Parallel()
	d := newDevice(t, android.Config{})
	mustRun(t, d, "am start -n com.android.settings/.Settings")
	d.ShowANR("com.android.settings")
	mustRun(t, d, "am force-stop com.android.settings")
	if d.ANR() != "" {
		t.Errorf("ANR dialog of a force-stopped app still showing")
	}
}

func TestFaultSleepAndLock(t *testing.T) {
	t.Parallel()
	d := newDevice(t, android.Config{})
	d.SleepAndLock()
	if d.ScreenOn() || !d.Locked() {
		t.Fatalf("screen on %t locked %t", d.ScreenOn(), d.Locked())
	}
	if _, errOut, _ := run(t, d, "uiautomator dump"); errOut != "ERROR: null root node returned by UiTestAutomationBridge.\n" {
		t.Errorf("dump with the screen off: %q", errOut)
	}
	mustRun(t, d, "input keyevent WAKEUP")
	if id := phonekit.FindNode(t, d, phonekit.ByID("com.android.systemui:id/keyguard_root_view")); id == nil {
		t.Error("no keyguard after waking")
	}
}

// TestScenarioFaults: the same faults scripted in scenario.json.
func TestScenarioFaults(t *testing.T) {
	t.Parallel()
	dir := phonekit.ScenarioWith(t, map[string]any{"faults": map[string]any{
		"dump_not_idle": -1, "dump_idle_wait_ms": 1, "hang": []string{"dumpsys"}, "anr": "com.android.settings", "sleep_after_commands": 3,
	}}, nil)
	d := newDevice(t, android.Config{Scenario: dir})
	if d.ANR() != "com.android.settings" {
		t.Errorf("ANR at boot: %q", d.ANR())
	}
	for range 2 {
		if _, errOut, _ := run(t, d, "uiautomator dump"); errOut != dumpNotIdle {
			t.Errorf("dump: %q", errOut)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if st := d.Run(ctx, "dumpsys power", strings.NewReader(""), &strings.Builder{}, &strings.Builder{}); st != shell.ExitCanceled {
		t.Errorf("dumpsys did not hang: %d", st)
	}
	if !d.ScreenOn() {
		t.Fatal("screen off before sleep_after_commands ran")
	}
	mustRun(t, d, "true")
	if d.ScreenOn() || !d.Locked() {
		t.Errorf("after 3 commands: screen on %t locked %t", d.ScreenOn(), d.Locked())
	}
}
