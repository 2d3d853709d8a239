package services_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/apk"
	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/emulator/android/services"
)

// apkFixture is a real APK of the connector's decoder fixtures (their
// sources: adb/apk/testdata/SOURCES.md).
func apkFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "adb", "apk", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func putFile(t *testing.T, d *android.Device, p string, data []byte) {
	t.Helper()
	if err := d.FS().WriteFile(p, data, 0o644, time.Now()); err != nil {
		t.Fatal(err)
	}
}

func TestPmInstallUninstall(t *testing.T) {
	d := newDevice(t, android.Config{})
	putFile(t, d, "/data/local/tmp/p.apk", apkFixture(t, "politedroid_4.apk"))
	if out, _, st := run(t, d, "pm install -r -g /data/local/tmp/p.apk"); st != 0 || out != "Success\n" {
		t.Fatalf("install: %q status %d", out, st)
	}
	if out := mustRun(t, d, "pm list packages -3 --show-versioncode com.politedroid"); out != "package:com.politedroid versionCode:4\n" {
		t.Errorf("list: %q", out)
	}
	dump := mustRun(t, d, "dumpsys package com.politedroid")
	for _, want := range []string{"versionCode=4 ", "versionName=1.3\n", "Package [com.politedroid]"} {
		if !strings.Contains(dump, want) {
			t.Errorf("dumpsys package lacks %q:\n%s", want, dump)
		}
	}
	// The same version again: a reinstall.
	if out, _, st := run(t, d, "pm install -r /data/local/tmp/p.apk"); st != 0 || out != "Success\n" {
		t.Fatalf("reinstall: %q status %d", out, st)
	}
	// A lower version than the installed one is refused.
	app, _ := d.Model().Scenario.AppByPackage("com.politedroid")
	app.VersionCode = 5
	out, _, st := run(t, d, "pm install -r /data/local/tmp/p.apk")
	if want := "Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version code 4 is older than current 5]\n"; st != 1 || out != want {
		t.Errorf("downgrade: %q status %d", out, st)
	}
	if out, _, st := run(t, d, "pm uninstall com.politedroid"); st != 0 || out != "Success\n" {
		t.Fatalf("uninstall: %q status %d", out, st)
	}
	if out, _, st := run(t, d, "pm uninstall com.politedroid"); st != 1 || out != "Failure [DELETE_FAILED_INTERNAL_ERROR]\n" {
		t.Errorf("second uninstall: %q status %d", out, st)
	}
	if out := mustRun(t, d, "pm list packages com.politedroid"); out != "" {
		t.Errorf("still listed: %q", out)
	}
	if out := mustRun(t, d, "dumpsys package com.politedroid"); !strings.Contains(out, "Unable to find package") {
		t.Errorf("still dumped: %q", out)
	}
}

func TestPmInstallRefusals(t *testing.T) {
	d := newDevice(t, android.Config{})
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"not a zip", []byte("hello\n"), "Failure [INSTALL_PARSE_FAILED_NOT_APK: "},
		{"no manifest", apkFixture(t, "no_manifest.apk"), "Failure [INSTALL_PARSE_FAILED_UNEXPECTED_EXCEPTION: "},
		{"unsigned", apkFixture(t, "tinyapp_10_unsigned.apk"), "Failure [INSTALL_PARSE_FAILED_NO_CERTIFICATES: "},
	} {
		putFile(t, d, "/data/local/tmp/x.apk", tc.data)
		out, _, st := run(t, d, "pm install -r /data/local/tmp/x.apk")
		if st != 1 || !strings.HasPrefix(out, tc.want) {
			t.Errorf("%s: %q status %d, want %q...", tc.name, out, st, tc.want)
		}
	}
	if out, _, st := run(t, d, "pm install /data/local/tmp/none.apk"); st != 1 || out != "Error: Can't open file: /data/local/tmp/none.apk\n" {
		t.Errorf("missing file: %q status %d", out, st)
	}
	// A v2/v3-signed APK (APK Signing Block, no JAR signature) installs.
	putFile(t, d, "/data/local/tmp/t.apk", apkFixture(t, "tinyapp_10_signed.apk"))
	if out, _, st := run(t, d, "pm install /data/local/tmp/t.apk"); st != 0 {
		t.Errorf("signed tinyapp: %q status %d", out, st)
	}
	// A preinstalled app cannot be replaced by an APK of other keys, nor
	// uninstalled without --user.
	if out, _, st := run(t, d, "pm uninstall com.android.settings"); st != 1 || out != "Failure [DELETE_FAILED_INTERNAL_ERROR]\n" {
		t.Errorf("system uninstall: %q status %d", out, st)
	}
}

// FuzzReadAPK: what `pm install` reads of a pushed file never panics, and
// a manifest it accepts names a package and a version.
func FuzzReadAPK(f *testing.F) {
	for _, n := range []string{"politedroid_4.apk", "tinyapp_10_signed.apk", "no_manifest.apk"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "adb", "apk", "testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		pkg, code, _, failure := services.ReadAPK(b)
		if failure == "" && (pkg == "" || code <= 0) {
			t.Fatalf("accepted %s version %d", pkg, code)
		}
	})
}

// TestPhoneAndHostReadAPKsAlike: the phone's own reading of each real APK
// and the connector's decoder (adb/apk, written apart) agree on the
// package and version, and on which files are no APK at all.
func TestPhoneAndHostReadAPKsAlike(t *testing.T) {
	names, err := filepath.Glob(filepath.Join("..", "..", "..", "adb", "apk", "testdata", "*.apk"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		host, herr := apk.Read(bytes.NewReader(b), int64(len(b)))
		phonePkg, phoneCode, phoneName, failure := services.ReadAPK(b)
		if herr != nil {
			if failure == "" || strings.Contains(failure, "NO_CERTIFICATES") {
				t.Errorf("%s: the host refuses it (%v), the phone reads %s version %d", filepath.Base(n), herr, phonePkg, phoneCode)
			}
			continue
		}
		if strings.Contains(failure, "NO_CERTIFICATES") {
			continue // unsigned: read alike up to the signature check
		}
		if failure != "" || phonePkg != host.Package || phoneCode != host.VersionCode || phoneName != host.VersionName {
			t.Errorf("%s: phone %s %d %q %q, host %+v", filepath.Base(n), phonePkg, phoneCode, phoneName, failure, host)
		}
	}
}
