package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/emulator/android"
)

// TestAppShelfThroughServer: through the real server and adb server, the
// shelf is listed (an unreadable file marked so), an APK installs and is
// read back, a path is refused with nothing run on the phone, uninstall
// twice answers app_not_installed, and an app installed during the
// binding is uninstalled by the reset when the binding ends.
func TestAppShelfThroughServer(t *testing.T) {
	t.Parallel()
	shelf := t.TempDir()
	apk, err := os.ReadFile(filepath.Join("..", "..", "adb", "apk", "testdata", "politedroid_4.apk"))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"politedroid.apk": apk, "broken.apk": []byte("not a zip")} {
		if err := os.WriteFile(filepath.Join(shelf, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := newPolicyFlow(t, "launcher", "policies:\n  default:\n    apps: {install_dir: \""+shelf+"\", uninstall: true}\n")
	d := f.descriptor()
	for _, id := range []string{"android_app_install", "android_app_uninstall"} {
		if st := toolStatus(d, id); st != "available" {
			t.Fatalf("%s is %q in the Descriptor", id, st)
		}
	}
	var list struct {
		Shelf []struct {
			File, Package, Unreadable string
			VersionCode               int64 `json:"version_code"`
		} `json:"shelf"`
	}
	f.call("android_app_list", map[string]any{"shelf": true}, &list)
	if len(list.Shelf) != 2 || list.Shelf[0].Unreadable == "" || list.Shelf[1].Package != "com.politedroid" || list.Shelf[1].VersionCode != 4 {
		t.Errorf("shelf: %+v", list.Shelf)
	}
	pmRan := func() []string {
		var out []string
		for _, c := range f.d.Android().Commands() {
			if strings.Contains(c.Line, "pm install") || strings.Contains(c.Line, "pm uninstall") {
				out = append(out, c.Line)
			}
		}
		return out
	}
	for _, file := range []string{"../politedroid.apk", filepath.Join(shelf, "politedroid.apk"), "broken.apk", "absent.apk"} {
		if e := f.fail("android_app_install", map[string]any{"file": file}); e.Code != "invalid_arguments" {
			t.Errorf("%s: %+v", file, e)
		}
	}
	if ran := pmRan(); len(ran) != 0 {
		t.Errorf("refused installs ran %q", ran)
	}
	var got struct {
		Package     string `json:"package"`
		VersionName string `json:"version_name"`
		VersionCode int64  `json:"version_code"`
	}
	f.call("android_app_install", map[string]any{"file": "politedroid.apk"}, &got)
	if got.Package != "com.politedroid" || got.VersionName != "1.3" || got.VersionCode != 4 {
		t.Errorf("install: %+v", got)
	}
	var un map[string]any
	f.call("android_app_uninstall", map[string]any{"package": "com.politedroid"}, &un)
	if e := f.fail("android_app_uninstall", map[string]any{"package": "com.politedroid"}); e.Code != "app_not_installed" {
		t.Errorf("second uninstall: %+v", e)
	}

	// Installed again, then the binding ends: the reset uninstalls it.
	f.call("android_app_install", map[string]any{"file": "politedroid.apk"}, &got)
	f.p.cli(t, runUnbind, f.d.Serial())
	ctx, cancel := context.WithTimeout(t.Context(), setupWait)
	defer cancel()
	if _, err := f.d.Android().WaitCommand(ctx, func(c android.Command) bool {
		return c.Line == "pm uninstall com.politedroid 2>&1" && c.Exit == 0
	}); err != nil {
		t.Fatalf("the reset did not uninstall the app the binding installed: %v (pm ran %q)", err, pmRan())
	}
	// Its next step: by then every uninstall of the reset has run, and
	// only the app the binding installed went (the scenario's own
	// user-installed apps stay).
	if _, err := f.d.Android().WaitCommand(ctx, func(c android.Command) bool {
		return strings.HasPrefix(c.Line, "rm -f /data/local/tmp/adbc-")
	}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range pmRan() {
		if strings.HasPrefix(l, "pm uninstall") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("pm ran %q: want two uninstalls of com.politedroid (the tool's, the reset's)", pmRan())
	}
}
