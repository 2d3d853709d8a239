package adbd

import (
	"context"
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
