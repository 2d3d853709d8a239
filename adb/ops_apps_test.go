package adb

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/adb-connector/adb-connector/adb/adbtest"
)

func TestLauncherPackages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, out string
		want      map[string]bool // nil: not a query-activities answer
	}{
		{"components", "com.android.settings/.Settings\ncom.android.chrome/com.google.android.apps.chrome.Main\n" +
			"com.android.settings/.SubSettings\n", map[string]bool{"com.android.settings": true, "com.android.chrome": true}},
		{"linker noise", "WARNING: linker: libfoo.so: unused DT entry\ncom.example.app/.Main\n", map[string]bool{"com.example.app": true}},
		{"none", "No activities found\n", map[string]bool{}},
		{"empty: the command is unknown", "", nil},
		{"an error", "Error: Unknown option: --components\n", nil},
		{"verbose output of an older phone", "2 activities found:\n  Activity #0:\n    priority=0\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := launcherPackages(tc.out)
			if ok != (tc.want != nil) || ok && !maps.Equal(got, tc.want) {
				t.Errorf("launcherPackages = %v %v, want %v", got, ok, tc.want)
			}
		})
	}
}

// TestLaunchableQuery: a phone that answers query-activities (its real
// output pinned on the virtual phone) is asked once; the stock virtual
// phone, which does not know the command, once per package as well.
func TestLaunchableQuery(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "emulator", "android", "ui", "scenarios", "launcher", "scenario.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sc map[string]any
	if err := json.Unmarshal(b, &sc); err != nil {
		t.Fatal(err)
	}
	sc["pinned"] = []map[string]any{{"command": launcherQuery,
		"stdout": "com.android.settings/.Settings\ncom.example.login/.LoginActivity\n"}}
	dir := t.TempDir()
	b, _ = json.Marshal(sc)
	if err := os.WriteFile(filepath.Join(dir, "scenario.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	env := adbtest.Start(t, adbtest.Options{Devices: 1, Scenario: dir})
	c := newTestClient(t, Config{NoTracking: true, Endpoints: []string{env.ServerAddr}})
	vd := env.Devices[0]
	d, err := c.Device(DeviceKey(env.ServerAddr, vd.Serial()))
	if err != nil {
		t.Fatal(err)
	}
	vd.Android().ClearCommands()
	got, err := d.Launchable(t.Context(), []string{"com.android.settings", "com.example.login", "com.android.chrome"})
	want := map[string]bool{"com.android.settings": true, "com.example.login": true, "com.android.chrome": false}
	if err != nil || !maps.Equal(got, want) {
		t.Errorf("Launchable = %v %v, want %v (as the pinned answer says)", got, err, want)
	}
	if n := len(vd.Android().Commands()); n != 1 {
		t.Errorf("%d commands, want the one query: %v", n, vd.Android().Commands())
	}
}
