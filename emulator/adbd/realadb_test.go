package adbd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest/adbserver"
)

// startReal starts a fake-backed device and a private adb server connected
// to it, waiting until the device is "device".
func startReal(t *testing.T, opts Options) (*Server, *adbserver.Server, *fakeBackend) {
	t.Helper()
	adb := adbserver.Start(t)
	fb := newFake()
	srv, err := Listen(context.Background(), fb, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := adbserver.Connect(ctx, adb.Addr, srv.Addr())
	if err != nil || !(strings.Contains(out, "connected to") || opts.Unauthorized && strings.Contains(out, "failed to authenticate")) {
		t.Fatalf("connect: %q %v", out, err)
	}
	want := "device"
	if opts.Unauthorized {
		want = "unauthorized"
	}
	if st, err := adbserver.WaitState(ctx, adb.Addr, srv.Addr(), want); err != nil {
		t.Fatalf("wait %s: %s %v\n%s", want, st, err, adb.Log())
	}
	return srv, adb, fb
}

func TestRealADB(t *testing.T) {
	t.Parallel()
	srv, adb, fb := startReal(t, Options{})
	serial := srv.Addr()
	run := func(t *testing.T, args ...string) (string, int) {
		t.Helper()
		out, err := adb.Adb(append([]string{"-s", serial}, args...)...)
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out, code
	}
	t.Run("devices-l", func(t *testing.T) {
		out, _ := run(t, "devices", "-l")
		for _, w := range []string{"product:fakeprod", "model:Fake_Model", "device:fakedev"} {
			if !strings.Contains(out, w) {
				t.Errorf("devices -l = %q, missing %q", out, w)
			}
		}
	})
	t.Run("shell", func(t *testing.T) {
		out, code := run(t, "shell", "echo", "hello", "world")
		if out != "hello world\n" || code != 0 {
			t.Errorf("got %q %d", out, code)
		}
	})
	t.Run("exit3", func(t *testing.T) {
		if _, code := run(t, "shell", "exit 3"); code != 3 {
			t.Errorf("exit code %d, want 3", code)
		}
	})
	t.Run("stderr", func(t *testing.T) {
		cmd := adb.AdbCmd(context.Background(), "-s", serial, "shell", "err", "oops")
		var so, se bytes.Buffer
		cmd.Stdout, cmd.Stderr = &so, &se
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || so.String() != "" || se.String() != "oops\n" {
			t.Errorf("stdout %q stderr %q err %v", so.String(), se.String(), err)
		}
	})
	t.Run("exec-out binary", func(t *testing.T) {
		out, err := adb.AdbCmd(context.Background(), "-s", serial, "exec-out", "bytes", "3000000").Output()
		if err != nil || !bytes.Equal(out, pattern(3000000)) {
			t.Errorf("exec-out: %d bytes, err %v", len(out), err)
		}
		if got := fb.commands(); got[len(got)-1] != "bytes '3000000'" {
			t.Errorf("last command %q", got[len(got)-1])
		}
	})
	t.Run("push pull", func(t *testing.T) {
		dir := t.TempDir()
		src := filepath.Join(dir, "in.bin")
		data := pattern(10 << 20)
		if err := os.WriteFile(src, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, code := run(t, "push", src, "/sdcard/x/in.bin"); code != 0 {
			t.Fatalf("push: %s", out)
		}
		dst := filepath.Join(dir, "out.bin")
		if out, code := run(t, "pull", "/sdcard/x/in.bin", dst); code != 0 {
			t.Fatalf("pull: %s", out)
		}
		got, _ := os.ReadFile(dst)
		if !bytes.Equal(got, data) {
			t.Errorf("pulled %d bytes, differ from pushed", len(got))
		}
		out, _ := run(t, "ls", "/sdcard/x")
		if !strings.Contains(out, "in.bin") || !strings.Contains(out, " ..\n") {
			t.Errorf("ls: %q", out)
		}
		// A directory pull walks LIS2 listings (skipping . and ..).
		if out, code := run(t, "pull", "/sdcard/x", filepath.Join(dir, "tree")); code != 0 {
			t.Fatalf("pull dir: %s", out)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "tree", "in.bin")); !bytes.Equal(got, data) {
			t.Errorf("dir pull: %d bytes", len(got))
		}
		out, code := run(t, "pull", "/sdcard/missing", dst)
		if code == 0 || !strings.Contains(out, "No such file") {
			t.Errorf("pull missing: %d %q", code, out)
		}
	})
	t.Run("stdin", func(t *testing.T) {
		cmd := adb.AdbCmd(context.Background(), "-s", serial, "shell", "cat")
		in := strings.Repeat("line of input\n", 20000)
		cmd.Stdin = strings.NewReader(in)
		out, err := cmd.Output()
		if err != nil || string(out) != in {
			t.Errorf("cat: %d bytes (want %d), err %v", len(out), len(in), err)
		}
	})
	t.Run("concurrent", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make(chan string, 16)
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n := 100000 + i*1000
				out, err := adb.AdbCmd(context.Background(), "-s", serial, "exec-out", "bytes", strconv.Itoa(n)).Output()
				if err != nil || !bytes.Equal(out, pattern(n)) {
					errs <- fmt.Sprintf("stream %d: %d bytes, err %v", i, len(out), err)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	})
	t.Run("root refused", func(t *testing.T) {
		out, _ := run(t, "root")
		if !strings.Contains(out, "production builds") {
			t.Errorf("root: %q", out)
		}
	})
}
