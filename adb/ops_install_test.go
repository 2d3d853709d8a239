package adb

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallUninstall: through the real adb server to the virtual phone,
// an APK is pushed, installed, read back and its temporary file removed;
// the phone's refusals come back as *PMError with their code.
func TestInstallUninstall(t *testing.T) {
	t.Parallel()
	_, vd, d := opsEnv(t)
	apk := func(name string) *bytes.Reader {
		b, err := os.ReadFile(filepath.Join("apk", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return bytes.NewReader(b)
	}
	err := d.Install(t.Context(), apk("politedroid_4.apk"), InstallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if code, name, err := d.PackageVersion(t.Context(), "com.politedroid"); err != nil || code != 4 || name != "1.3" {
		t.Errorf("PackageVersion = %d %q %v", code, name, err)
	}
	err = d.Install(t.Context(), apk("tinyapp_10_unsigned.apk"), InstallOptions{GrantAll: true})
	if !IsPMCode(err, "INSTALL_PARSE_FAILED_NO_CERTIFICATES") {
		t.Errorf("unsigned: %v", err)
	}
	err = d.Install(t.Context(), strings.NewReader("not an apk"), InstallOptions{})
	if !IsPMCode(err, "INSTALL_PARSE_FAILED_NOT_APK") {
		t.Errorf("not an APK: %v", err)
	}
	fis, _ := vd.Android().FS().ReadDir("/data/local/tmp")
	for _, fi := range fis {
		if strings.HasSuffix(fi.Name, ".apk") {
			t.Errorf("%s left on the phone", fi.Name)
		}
	}
	if err := d.Uninstall(t.Context(), "com.politedroid"); err != nil {
		t.Fatal(err)
	}
	if err := d.Uninstall(t.Context(), "com.politedroid"); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("second uninstall: %v", err)
	}
	if err := d.Uninstall(t.Context(), "com.android.settings"); !IsPMCode(err, "DELETE_FAILED_INTERNAL_ERROR") {
		t.Errorf("system app: %v", err)
	}
}
