package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/emulator"
)

// shelfFixture copies real APKs (adb/apk/testdata, sourced there) onto a
// shelf directory, under the names given.
func shelfFixture(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		b, err := os.ReadFile(filepath.Join("..", "..", "adb", "apk", "testdata", src))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// phoneInstalls are the pm install/uninstall lines the phone ran, and
// whether an APK was left in its temporary directory.
func phoneInstalls(t *testing.T, d *emulator.Device) (lines []string, leftover bool) {
	t.Helper()
	for _, c := range d.Android().Commands() {
		if strings.Contains(c.Line, "pm install") || strings.Contains(c.Line, "pm uninstall") {
			lines = append(lines, c.Line)
		}
	}
	fis, _ := d.Android().FS().ReadDir("/data/local/tmp")
	for _, fi := range fis {
		if strings.HasSuffix(fi.Name, ".apk") {
			leftover = true
		}
	}
	return lines, leftover
}

func TestAppInstallOnVirtualPhone(t *testing.T) {
	shelf := shelfFixture(t, map[string]string{
		"politedroid.apk": "politedroid_4.apk", "tinyapp.apk": "tinyapp_10_signed.apk",
		"unsigned.apk": "tinyapp_10_unsigned.apk", "dexonly.apk": "no_manifest.apk",
		"notes.txt": "politedroid_4.apk", ".hidden.apk": "politedroid_4.apk",
	})
	if err := os.WriteFile(filepath.Join(shelf, "broken.apk"), []byte("PK\x03\x04 not really a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newToolsEnv(t, 1, func(c *Config) {
		c.Policy = policyHolder(t, `
policies:
  default:
    apps: {install_dir: "`+shelf+`", uninstall: true}
    packages: {deny: [duplicate.permisssions]}
`)
	})
	ph := e.device(0)
	ch := devChannel(0)
	call := func(tool, args string) ackOf { return e.call(t, t.Context(), ch, tool, args, "", nil) }

	// The shelf, read on the host.
	var list appShelfResult
	mustOK(t, call("android_app_list", `{"shelf":true}`), &list)
	var files []string
	for _, s := range list.Shelf {
		files = append(files, s.File)
	}
	if want := []string{"broken.apk", "dexonly.apk", "politedroid.apk", "tinyapp.apk", "unsigned.apk"}; !slices.Equal(files, want) {
		t.Fatalf("shelf %q, want %q", files, want)
	}
	pd := list.Shelf[2]
	if pd.Package != "com.politedroid" || pd.VersionCode != 4 || pd.VersionName == nil || *pd.VersionName != "1.3" || pd.Unreadable != "" {
		t.Errorf("politedroid on the shelf: %+v", pd)
	}
	for _, i := range []int{0, 1} {
		if s := list.Shelf[i]; s.Unreadable == "" || s.Package != "" {
			t.Errorf("%s: %+v, want unreadable", s.File, s)
		}
	}
	if lines, _ := phoneInstalls(t, ph); len(lines) != 0 {
		t.Errorf("listing the shelf ran %q on the phone", lines)
	}

	// Install, read back from the phone.
	var got appInstallResult
	mustOK(t, call("android_app_install", `{"file":"politedroid.apk","grant_all":true}`), &got)
	if want := (appInstallResult{Package: "com.politedroid", VersionName: "1.3", VersionCode: 4}); got != want {
		t.Errorf("install: %+v, want %+v", got, want)
	}
	lines, leftover := phoneInstalls(t, ph)
	if len(lines) != 1 || !strings.Contains(lines[0], "pm install -r -g /data/local/tmp/adbc-install-") || leftover {
		t.Errorf("install ran %q (APK left behind: %v)", lines, leftover)
	}
	var apps appListResult
	mustOK(t, call("android_app_list", `{}`), &apps)
	if !slices.ContainsFunc(apps.Apps, func(a appEntry) bool { return a.Package == "com.politedroid" }) {
		t.Errorf("installed app not listed: %+v", apps.Apps)
	}
	// The same version again: a reinstall, fine.
	mustOK(t, call("android_app_install", `{"file":"politedroid.apk"}`), &got)

	// Refusals: nothing reaches the phone.
	for _, tc := range []struct{ tool, args, code, want string }{
		{"android_app_install", `{"file":"../politedroid.apk"}`, connector.CodeInvalidArguments, "not a path"},
		{"android_app_install", `{"file":"sub/politedroid.apk"}`, connector.CodeInvalidArguments, "not a path"},
		{"android_app_install", `{"file":"` + filepath.Join(shelf, "politedroid.apk") + `"}`, connector.CodeInvalidArguments, "not a path"},
		{"android_app_install", `{"file":".."}`, connector.CodeInvalidArguments, "file"},
		{"android_app_install", `{"file":"..\\x.apk"}`, connector.CodeInvalidArguments, "not a path"},
		{"android_app_install", `{"file":"notes.txt"}`, connector.CodeInvalidArguments, "not an .apk"},
		{"android_app_install", `{"file":".hidden.apk"}`, connector.CodeInvalidArguments, "hidden"},
		{"android_app_install", `{"file":"absent.apk"}`, connector.CodeInvalidArguments, "not on the shelf"},
		{"android_app_install", `{"file":"broken.apk"}`, connector.CodeInvalidArguments, "not an APK"},
		{"android_app_install", `{"file":"dexonly.apk"}`, connector.CodeInvalidArguments, "not an APK"},
		{"android_app_install", `{}`, connector.CodeInvalidArguments, "file"},
		{"android_app_install", `{"file":"politedroid.apk","grant_all":"yes"}`, connector.CodeInvalidArguments, "grant_all"},
		{"android_app_uninstall", `{"package":"com.politedroid;reboot"}`, connector.CodeInvalidArguments, "package"},
		{"android_app_uninstall", `{}`, connector.CodeInvalidArguments, "package"},
		{"android_app_uninstall", `{"package":"duplicate.permisssions"}`, codeNotPermitted, "denies package"},
	} {
		ph.Android().ClearCommands()
		a := call(tc.tool, tc.args)
		if a.Err == nil || a.Err.Code != tc.code || !strings.Contains(a.Err.Message, tc.want) {
			t.Errorf("%s %s: %+v, want %s with %q", tc.tool, tc.args, a, tc.code, tc.want)
		}
		if lines, leftover := phoneInstalls(t, ph); len(lines) != 0 || leftover {
			t.Errorf("%s %s ran %q on the phone (APK pushed: %v)", tc.tool, tc.args, lines, leftover)
		}
	}

	// The phone's own refusal (an unsigned APK) is a clear error, and the
	// pushed file is removed.
	a := call("android_app_install", `{"file":"unsigned.apk"}`)
	if a.Err == nil || a.Err.Code != connector.CodeToolInvokeFailed || !strings.Contains(a.Err.Message, "INSTALL_PARSE_FAILED_NO_CERTIFICATES") {
		t.Errorf("unsigned: %+v", a)
	}
	if _, leftover := phoneInstalls(t, ph); leftover {
		t.Error("the refused APK was left on the phone")
	}

	// Uninstall, then again: app_not_installed.
	var un appUninstallResult
	mustOK(t, call("android_app_uninstall", `{"package":"com.politedroid"}`), &un)
	if !un.Uninstalled || un.Package != "com.politedroid" {
		t.Errorf("uninstall: %+v", un)
	}
	if a := call("android_app_uninstall", `{"package":"com.politedroid"}`); a.Err == nil || a.Err.Code != codeAppNotInstalled {
		t.Errorf("second uninstall: %+v, want app_not_installed", a)
	}
	if a := call("android_app_uninstall", `{"package":"com.android.settings"}`); a.Err == nil || !strings.Contains(a.Err.Message, "DELETE_FAILED_INTERNAL_ERROR") {
		t.Errorf("system app uninstall: %+v", a)
	}
}

// TestAppInstallPackageRules: the package rules apply to the package the
// APK declares, before anything is pushed.
func TestAppInstallPackageRules(t *testing.T) {
	shelf := shelfFixture(t, map[string]string{"politedroid.apk": "politedroid_4.apk"})
	e := newToolsEnv(t, 1, func(c *Config) {
		c.Policy = policyHolder(t, `
policies:
  default:
    apps: {install_dir: "`+shelf+`"}
    packages: {allow: ["com.example.*"]}
`)
	})
	a := e.call(t, t.Context(), devChannel(0), "android_app_install", `{"file":"politedroid.apk"}`, "", nil)
	if a.Err == nil || a.Err.Code != codeNotPermitted || !strings.Contains(a.Err.Message, "nothing was installed") {
		t.Errorf("install of a package outside the allow list: %+v", a)
	}
	if lines, leftover := phoneInstalls(t, e.device(0)); len(lines) != 0 || leftover {
		t.Errorf("ran %q (pushed: %v)", lines, leftover)
	}
	// Uninstall is not allowed by this policy: the tool is not offered.
	if _, ok := e.reg.Lookup("android_app_uninstall"); ok {
		t.Error("android_app_uninstall is in the Card though no policy allows it")
	}
}

// TestAppInstallNotOffered: without a shelf neither tool is in the Card,
// and shelf: true is refused.
func TestAppInstallNotOffered(t *testing.T) {
	e := newToolsEnv(t, 1, nil)
	for _, id := range []string{"android_app_install", "android_app_uninstall"} {
		if _, ok := e.reg.Lookup(id); ok {
			t.Errorf("%s offered without a policy", id)
		}
	}
	a := e.call(t, t.Context(), devChannel(0), "android_app_list", `{"shelf":true}`, "", nil)
	if a.Err == nil || a.Err.Code != codeNotPermitted || !strings.Contains(a.Err.Message, "no shelf") {
		t.Errorf("shelf without a policy: %+v", a)
	}
}

// TestShelfCache: a file of the same size and modification time is not
// read again; a new modification time is.
func TestShelfCache(t *testing.T) {
	shelf := shelfFixture(t, map[string]string{"a.apk": "politedroid_4.apk"})
	p := filepath.Join(shelf, "a.apk")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	var tl Tools
	if l, err := tl.listShelf(shelf); err != nil || len(l) != 1 || l[0].Package != "com.politedroid" {
		t.Fatalf("%+v %v", l, err)
	}
	// Garbage of the same size and time: still the cached reading.
	if err := os.WriteFile(p, make([]byte, fi.Size()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if l, _ := tl.listShelf(shelf); l[0].Package != "com.politedroid" {
		t.Errorf("read again: %+v", l[0])
	}
	later := fi.ModTime().Add(time.Second)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	if l, _ := tl.listShelf(shelf); l[0].Unreadable == "" {
		t.Errorf("a changed file was not read again: %+v", l[0])
	}
}

// BenchmarkShelfList: listing a shelf of real APKs, cached (each file
// read once) against read every time.
func BenchmarkShelfList(b *testing.B) {
	dir := b.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "adb", "apk", "testdata", "duplicate_permissions_9999999.apk"))
	if err != nil {
		b.Fatal(err)
	}
	for i := range 20 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("app%02d.apk", i)), src, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("cached", func(b *testing.B) {
		var tl Tools
		for b.Loop() {
			if _, err := tl.listShelf(dir); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("uncached", func(b *testing.B) {
		for b.Loop() {
			var tl Tools
			if _, err := tl.listShelf(dir); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestAppInstallProgress: an install that takes a while sends progress
// pushes before its ack (the pipeline's, as for every long call).
func TestAppInstallProgress(t *testing.T) {
	shelf := shelfFixture(t, map[string]string{"politedroid.apk": "politedroid_4.apk"})
	e := newToolsEnv(t, 1, func(c *Config) {
		c.ProgressAfter = time.Millisecond
		c.Policy = policyHolder(t, "policies:\n  default:\n    apps: {install_dir: \""+shelf+"\"}\n")
	})
	// Each phone command takes half a second: the install spans hundreds
	// of progress periods.
	e.device(0).Android().SetLatency(500 * time.Millisecond)
	var mu sync.Mutex
	var pushes []string
	a := e.call(t, t.Context(), devChannel(0), "android_app_install", `{"file":"politedroid.apk"}`, "", func(msg string, _ float64) {
		mu.Lock()
		pushes = append(pushes, msg)
		mu.Unlock()
	})
	mustOK(t, a, nil)
	mu.Lock()
	defer mu.Unlock()
	if len(pushes) == 0 || !strings.Contains(pushes[0], "android_app_install") {
		t.Errorf("pushes = %q", pushes)
	}
}
