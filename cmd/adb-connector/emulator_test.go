package main

import (
	"bufio"
	"context"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest/adbserver"
)

func TestEmulatorCommand(t *testing.T) {
	adb := adbserver.Start(t)
	base := adbserver.FreePortRange(t, 2)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := emulatorMain(ctx, []string{"--devices", "2", "--base-port", itoa(base), "--scenario", "login", "--rooted"}, pw, io.Discard)
		pw.Close()
		done <- err
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("emulator: %v", err)
		}
	})
	sc := bufio.NewScanner(pr)
	var addrs []string
	for len(addrs) < 2 && sc.Scan() {
		addrs = append(addrs, sc.Text())
	}
	want := []string{"127.0.0.1:" + itoa(base), "127.0.0.1:" + itoa(base+1)}
	if strings.Join(addrs, " ") != strings.Join(want, " ") {
		t.Fatalf("printed %q, want %q", addrs, want)
	}
	go io.Copy(io.Discard, pr)
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	for _, a := range addrs {
		if out, err := adbserver.Connect(wctx, adb.Addr, a); err != nil || !strings.Contains(out, "connected") {
			t.Fatalf("connect %s: %q %v", a, out, err)
		}
		if st, err := adbserver.WaitState(wctx, adb.Addr, a, "device"); err != nil {
			t.Fatalf("%s: %s %v", a, st, err)
		}
	}
	out, err := adb.Adb("-s", addrs[1], "shell", "getprop", "ro.serialno")
	if err != nil || out != "VIRT00000002\n" {
		t.Errorf("getprop: %q %v", out, err)
	}
	// --rooted: the shell is root in u:r:su:s0, as after adb root.
	if out, err := adb.Adb("-s", addrs[0], "shell", "id", "-Z"); err != nil || out != "u:r:su:s0\n" {
		t.Errorf("id -Z: %q %v", out, err)
	}
}

func TestEmulatorUsage(t *testing.T) {
	for _, args := range [][]string{{"--devices", "0"}, {"extra"}, {"--base-port", "5550", "--devices", "5"}} {
		if err := emulatorMain(context.Background(), args, io.Discard, io.Discard); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
