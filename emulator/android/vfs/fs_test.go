package vfs

import (
	"errors"
	"io/fs"
	"syscall"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/emulator/adbd"
	"github.com/google/go-cmp/cmp"
)

// fixedNow is the clock of these tests, so times compare exactly.
func fixedNow() time.Time { return time.Date(2026, 12, 2, 9, 41, 7, 123e6, time.UTC) }

func TestFS(t *testing.T) {
	f := New(fixedNow)
	if err := f.WriteFile("/sdcard/dir/a.bin", []byte("abc"), 0o100644, fixedNow()); err != nil {
		t.Fatal(err)
	}
	fi, err := f.Stat("/sdcard/dir/a.bin")
	if err != nil || fi != (adbd.FileInfo{Name: "a.bin", Mode: 0o100644, Size: 3, ModTime: fixedNow()}) {
		t.Fatalf("stat %+v %v", fi, err)
	}
	if fi, _ := f.Stat("/sdcard/dir"); fi.Mode&0o170000 != 0o040000 {
		t.Fatalf("parent not created as a directory: %o", fi.Mode)
	}
	ents, err := f.ReadDir("/sdcard")
	if err != nil || len(ents) != 1 || ents[0].Name != "dir" {
		t.Fatalf("readdir %+v %v", ents, err)
	}
	data, _ := f.ReadFile("/sdcard/dir/a.bin")
	data[0] = 'X'
	if again, _ := f.ReadFile("/sdcard/dir/a.bin"); string(again) != "abc" {
		t.Fatal("ReadFile returned shared bytes")
	}
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"stat missing", func() error { _, err := f.Stat("/nope"); return err }(), fs.ErrNotExist},
		{"readdir file", func() error { _, err := f.ReadDir("/sdcard/dir/a.bin"); return err }(), syscall.ENOTDIR},
		{"readdir missing", func() error { _, err := f.ReadDir("/nope"); return err }(), fs.ErrNotExist},
		{"read dir", func() error { _, err := f.ReadFile("/sdcard"); return err }(), syscall.EISDIR},
		{"write over dir", f.WriteFile("/sdcard/dir", nil, 0o644, fixedNow()), syscall.EISDIR},
		{"write under file", f.WriteFile("/sdcard/dir/a.bin/x", nil, 0o644, fixedNow()), syscall.ENOTDIR},
		{"mkdir exists", f.Mkdir("/sdcard", false), fs.ErrExist},
		{"mkdir no parent", f.Mkdir("/x/y", false), fs.ErrNotExist},
		{"rm dir", f.Remove("/sdcard/dir", false), syscall.EISDIR},
		{"rm root", f.Remove("/", true), fs.ErrPermission},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !errors.Is(tc.err, tc.want) {
				t.Fatalf("err %v, want %v", tc.err, tc.want)
			}
		})
	}
	if err := f.Remove("/sdcard/dir", true); err != nil {
		t.Fatal(err)
	}
	ents, _ = f.ReadDir("/sdcard")
	if diff := cmp.Diff(0, len(ents)); diff != "" {
		t.Fatal(diff)
	}
	// /dev/null swallows writes and reads empty.
	if err := f.WriteFile("/dev/null", []byte("x"), 0o644, fixedNow()); err != nil {
		t.Fatal(err)
	}
	if b, _ := f.ReadFile("/dev/null"); len(b) != 0 {
		t.Fatal("/dev/null kept data")
	}
}
