package adbd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest/adbserver"
)

func TestUnauthorized(t *testing.T) {
	t.Parallel()
	srv, adb, _ := startReal(t, Options{Unauthorized: true})
	out, _ := adb.Adb("devices")
	if !strings.Contains(out, srv.Addr()+"\tunauthorized") {
		t.Errorf("devices: %q", out)
	}
	// The user taps "Allow": the waiting connection becomes a device.
	srv.SetUnauthorized(false)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if st, err := adbserver.WaitState(ctx, adb.Addr, srv.Addr(), "device"); err != nil {
		t.Fatalf("after allow: %s %v", st, err)
	}
	// Turning it back on drops the link; the server reconnects and sees
	// unauthorized.
	srv.SetUnauthorized(true)
	if st, err := adbserver.WaitState(ctx, adb.Addr, srv.Addr(), "unauthorized"); err != nil {
		t.Fatalf("after revoke: %s %v", st, err)
	}
}

func TestDropLink(t *testing.T) {
	t.Parallel()
	srv, adb, _ := startReal(t, Options{})
	n := srv.Accepted()
	start := time.Now()
	srv.DropLink()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := adbserver.WaitState(ctx, adb.Addr, srv.Addr(), "offline")
	if err != nil {
		t.Fatalf("after drop: %s %v", st, err)
	}
	// adb 29 reconnects a TCP device by itself.
	if st, err := adbserver.WaitState(ctx, adb.Addr, srv.Addr(), "device"); err != nil || srv.Accepted() <= n {
		t.Fatalf("after drop: %s %v (accepted %d -> %d)", st, err, n, srv.Accepted())
	}
	t.Logf("back after %v", time.Since(start))
	if out, err := adb.Adb("-s", srv.Addr(), "shell", "echo", "back"); out != "back\n" {
		t.Errorf("shell after drop: %q %v", out, err)
	}
}

func TestVanish(t *testing.T) {
	t.Parallel()
	srv, adb, _ := startReal(t, Options{})
	n := srv.Accepted()
	start := time.Now()
	srv.Vanish(2 * time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if st, err := adbserver.WaitState(ctx, adb.Addr, srv.Addr(), "offline"); err != nil {
		t.Fatalf("after vanish: %s %v", st, err)
	}
	if st, err := adbserver.WaitState(ctx, adb.Addr, srv.Addr(), "device"); err != nil || srv.Accepted() <= n {
		t.Fatalf("after vanish: %s %v (accepted %d -> %d)", st, err, n, srv.Accepted())
	}
	t.Logf("back after %v", time.Since(start))
	if out, err := adb.Adb("-s", srv.Addr(), "shell", "echo", "back"); out != "back\n" {
		t.Errorf("shell after vanish: %q %v", out, err)
	}
}

// TestDropDuringTransfer: a push and a pull cut partway fail on the host,
// the device shows "offline" and comes back by itself; the fault fires once.
func TestDropDuringTransfer(t *testing.T) {
	t.Parallel()
	srv, adb, fb := startReal(t, Options{})
	dir := t.TempDir()
	src := filepath.Join(dir, "in.bin")
	if err := os.WriteFile(src, bytes.Repeat([]byte("0123456789abcdef"), 1<<16), 0o644); err != nil { // 1 MiB
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	back := func(t *testing.T) {
		t.Helper()
		if st, err := adbserver.WaitState(ctx, adb.Addr, srv.Addr(), "device"); err != nil {
			t.Fatalf("not back: %s %v", st, err)
		}
	}

	srv.DropDuringTransfer(256<<10, 0)
	out, err := adb.Adb("-s", srv.Addr(), "push", src, "/sdcard/in.bin")
	if err == nil {
		t.Fatalf("push through a dropped link succeeded: %s", out)
	}
	t.Logf("push: %s", strings.TrimSpace(out))
	if data, err := fb.fs.ReadFile("/sdcard/in.bin"); err == nil {
		t.Fatalf("a cut push left a %d-byte file", len(data))
	}
	back(t)

	// The fault fired once: this push goes through.
	if out, err := adb.Adb("-s", srv.Addr(), "push", src, "/sdcard/in.bin"); err != nil {
		t.Fatalf("second push: %s %v", out, err)
	}

	// A pull cut after 100 KiB, with the device away for a moment.
	srv.DropDuringTransfer(100<<10, 200*time.Millisecond)
	out, err = adb.Adb("-s", srv.Addr(), "pull", "/sdcard/in.bin", filepath.Join(dir, "out.bin"))
	if err == nil {
		t.Fatalf("pull through a dropped link succeeded: %s", out)
	}
	t.Logf("pull: %s", strings.TrimSpace(out))
	if st, err := adbserver.WaitState(ctx, adb.Addr, srv.Addr(), "offline"); err != nil {
		t.Fatalf("after the cut pull: %s %v", st, err)
	}
	back(t)
}
