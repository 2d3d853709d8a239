package phonetest

import (
	"testing"

	"github.com/adb-connector/adb-connector/adb/parse"
	"github.com/adb-connector/adb-connector/emulator/android"
)

// TestFrameworkOutputsParse feeds the framework commands' outputs to the
// connector's parsers: what the phone prints must read as a phone's.
func TestFrameworkOutputsParse(t *testing.T) {
	t.Parallel()
	d := newDevice(t, android.Config{})
	pk, err := parse.Packages(mustRun(t, d, "pm list packages -3 -U -i --show-versioncode -f"))
	if err != nil || len(pk) != 3 || pk[0].UID != 10103 || pk[0].VersionCode != 1 || pk[0].Path == "" {
		t.Errorf("packages %+v: %v", pk, err)
	}
	if out, _, _ := run(t, d, "pm list packages -z"); out == "" {
		t.Error("pm's option error is not on stdout")
	} else if _, err := parse.Packages(out); err == nil {
		t.Error(`"Error: Unknown option" parsed as a package list`)
	}
	lines, err := parse.Logcat(mustRun(t, d, "logcat -d -b all"))
	if err != nil || len(lines) != 5 || lines[4].Tag != "AndroidRuntime" || lines[4].PID != 4321 {
		t.Errorf("logcat %+v: %v", lines, err)
	}
	if brief, err := parse.Logcat(mustRun(t, d, "logcat -d -v brief -s ActivityManager")); err != nil || len(brief) != 1 || brief[0].Message != "System now ready" {
		t.Errorf("logcat brief %+v: %v", brief, err)
	}
	c, err := parse.ResolveActivity(mustRun(t, d, "cmd package resolve-activity --brief com.android.settings"))
	if err != nil || c != "com.android.settings/.Settings" {
		t.Errorf("resolve-activity %q: %v", c, err)
	}
	d.SetRotation(1)
	if rot, err := parse.InputRotation(mustRun(t, d, "dumpsys display")); err != nil || rot != 1 {
		t.Errorf("dumpsys display rotation %d: %v", rot, err)
	}
}
