package apk

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/adb-connector/adb-connector/adb/parse"
)

// manifestOf is the AndroidManifest.xml of a fixture APK (read with the
// standard library's zip reader, not with the code under test).
func manifestOf(t testing.TB, name string) []byte {
	t.Helper()
	b := readFixture(t, name)
	z, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	f, err := z.Open("AndroidManifest.xml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// FuzzDecode: a manifest from an operator's shelf is outside input; the
// decoder never panics, and returns a valid package name or ErrManifest.
func FuzzDecode(f *testing.F) {
	for _, n := range []string{"politedroid_4.apk", "tinyapp_10_signed.apk", "duplicate_permissions_9999999.apk"} {
		f.Add(manifestOf(f, n))
	}
	for _, n := range []string{"utf8_strings.axml", "wrong_chunk_start.axml"} {
		f.Add(readFixture(f, n))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b)
		if err != nil {
			if !errors.Is(err, ErrManifest) {
				t.Fatalf("error %v is not ErrManifest", err)
			}
			return
		}
		if !parse.ValidPackage(m.Package) {
			t.Fatalf("package %q accepted", m.Package)
		}
	})
}

// FuzzRead: the same for a whole file (the zip layer included).
func FuzzRead(f *testing.F) {
	names, _ := filepath.Glob(filepath.Join("testdata", "*.apk"))
	for _, n := range names {
		if b, err := os.ReadFile(n); err == nil && len(b) < 8<<10 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, err := Read(bytes.NewReader(b), int64(len(b)))
		if err != nil && !errors.Is(err, ErrManifest) && !errors.Is(err, ErrNotAPK) {
			t.Fatalf("error %v is neither ErrManifest nor ErrNotAPK", err)
		}
	})
}
