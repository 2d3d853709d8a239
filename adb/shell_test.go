package adb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/adb-connector/adb-connector/adb/adbtest/adbserver"
)

// shellEnv is one adb server with one scripted device.
func shellEnv(t *testing.T) (*Client, *testDevice, *Device) {
	t.Helper()
	adb := adbserver.Start(t)
	c := newTestClient(t, Config{NoTracking: true}, adb)
	td := startDevice(t, c, adb)
	d, err := c.Device(td.Key)
	if err != nil {
		t.Fatal(err)
	}
	return c, td, d
}

func TestShell(t *testing.T) {
	_, td, d := shellEnv(t)
	td.backend.setHandler(func(ctx context.Context, cmdline string, stdout, stderr io.Writer) int {
		switch cmdline {
		case "true":
			return 0
		case "fail":
			fmt.Fprint(stdout, "partial out")
			fmt.Fprint(stderr, "boom")
			return 3
		}
		// Echo the command line so the test sees the quoting.
		fmt.Fprint(stdout, cmdline)
		return 0
	})
	tests := []struct {
		name     string
		argv     []string
		want     Result
		wantExit int
	}{
		{"true", []string{"true"}, Result{}, 0},
		{"exit code and split streams", []string{"fail"}, Result{Stdout: []byte("partial out"), Stderr: []byte("boom"), ExitCode: 3}, 3},
		{"quoting", []string{"echo", "a b", "it's", "$HOME;rm -rf /", ""}, Result{Stdout: []byte(`echo 'a b' "it's" '$HOME;rm -rf /' ''`)}, 0},
		{"newline and tab", []string{"echo", "a\nb\tc"}, Result{Stdout: []byte(`echo $'a\nb\tc'`)}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := d.Shell(t.Context(), tt.argv...)
			if tt.wantExit != 0 {
				var ee *ExitError
				if !errors.As(err, &ee) || ee.Code != tt.wantExit || string(ee.Stderr) != string(tt.want.Stderr) {
					t.Fatalf("err = %v, want ExitError %d", err, tt.wantExit)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, res, cmp.Comparer(func(a, b []byte) bool { return bytes.Equal(a, b) })); diff != "" {
				t.Errorf("Result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestShellRefusesNUL(t *testing.T) {
	_, _, d := shellEnv(t)
	if _, err := d.Shell(t.Context(), "echo", "a\x00b"); err == nil {
		t.Fatal("NUL accepted")
	}
}

func TestExecOutBinarySafe(t *testing.T) {
	_, td, d := shellEnv(t)
	var all []byte
	for i := range 4 << 10 {
		all = append(all, byte(i), '\n', '\r')
	}
	td.backend.setHandler(func(ctx context.Context, cmdline string, stdout, stderr io.Writer) int {
		stdout.Write(all)
		return 0
	})
	got, err := d.ExecOut(t.Context(), "cat", "/x")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, all) {
		t.Fatalf("got %d bytes, want %d identical", len(got), len(all))
	}
}

// blockingHandler writes some output, signals started, then blocks until
// the host closes the stream.
func blockingHandler(started chan<- struct{}) func(ctx context.Context, cmdline string, stdout, stderr io.Writer) int {
	return func(ctx context.Context, cmdline string, stdout, stderr io.Writer) int {
		fmt.Fprint(stdout, "partial output")
		select {
		case started <- struct{}{}:
		default:
		}
		<-ctx.Done()
		return 0
	}
}

func TestShellDeadlineClosesStream(t *testing.T) {
	_, td, d := shellEnv(t)
	started := make(chan struct{}, 1)
	td.backend.setHandler(blockingHandler(started))
	for _, exec := range []bool{false, true} {
		t.Run(fmt.Sprintf("exec=%v", exec), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
			defer cancel()
			var err error
			if exec {
				_, err = d.ExecOut(ctx, "sleep", "100")
			} else {
				_, err = d.Shell(ctx, "sleep", "100")
			}
			if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want ErrTimeout", err)
			}
		})
	}
}

func TestShellCancel(t *testing.T) {
	_, td, d := shellEnv(t)
	started := make(chan struct{}, 1)
	td.backend.setHandler(blockingHandler(started))
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-started
		cancel()
	}()
	_, err := d.Shell(ctx, "sleep", "100")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want Canceled", err)
	}
}

// gadb defect: a device dropping mid-command returned partial output and a
// nil error. Here it is ErrDeviceOffline.
func TestShellDeviceDropsMidCommand(t *testing.T) {
	for _, exec := range []bool{false, true} {
		t.Run(fmt.Sprintf("exec=%v", exec), func(t *testing.T) {
			_, td, d := shellEnv(t)
			started := make(chan struct{}, 1)
			td.backend.setHandler(blockingHandler(started))
			go func() {
				<-started
				td.srv.Vanish(time.Hour)
			}()
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			var err error
			var out []byte
			if exec {
				out, err = d.ExecOut(ctx, "sleep", "100")
			} else {
				var res Result
				res, err = d.Shell(ctx, "sleep", "100")
				out = res.Stdout
			}
			if !errors.Is(err, ErrDeviceOffline) {
				t.Fatalf("err = %v (out %q), want ErrDeviceOffline", err, out)
			}
			if exec && out != nil {
				t.Errorf("partial output returned: %q", out)
			}
		})
	}
}

func TestShellUnknownDevice(t *testing.T) {
	c, _, _ := shellEnv(t)
	ep := c.Endpoints()[0]
	_, err := shellKey(t.Context(), c, DeviceKey(ep, "nosuch:1"), "true")
	if !errors.Is(err, ErrDeviceNotFound) {
		t.Fatalf("err = %v, want ErrDeviceNotFound", err)
	}
	if _, err := shellKey(t.Context(), c, "127.0.0.1:1/x", "true"); !errors.Is(err, ErrDeviceNotFound) {
		t.Fatalf("unknown endpoint: %v", err)
	}
}

func TestShellUnauthorized(t *testing.T) {
	c, td, d := shellEnv(t)
	td.srv.SetUnauthorized(true)
	waitState(t, c, td.Key, StateUnauthorized)
	_, err := d.Shell(t.Context(), "true")
	if !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("err = %v, want ErrUnauthorized", err)
	}
}

// A link drop that the adb server repairs at once (DropLink: the device
// reconnects) must still fail the exec stream, not return its partial
// bytes as if complete: the transport id changed.
func TestExecDropWithQuickReconnect(t *testing.T) {
	c, td, d := shellEnv(t)
	started := make(chan struct{}, 1)
	td.backend.setHandler(blockingHandler(started))
	go func() {
		<-started
		td.srv.DropLink()
	}()
	out, err := d.ExecOut(t.Context(), "sleep", "100")
	if !errors.Is(err, ErrDeviceOffline) {
		t.Fatalf("err = %v (out %q), want ErrDeviceOffline", err, out)
	}
	waitState(t, c, td.Key, StateDevice)
	td.backend.setHandler(nil)
	if _, err := d.ExecOut(t.Context(), "true"); err != nil {
		t.Fatalf("after reconnect: %v", err)
	}
}

func TestTextWithoutIME(t *testing.T) {
	_, td, d := shellEnv(t)
	td.backend.setHandler(func(ctx context.Context, cmdline string, stdout, stderr io.Writer) int {
		// ime list -s; echo SEP; settings get secure default_input_method
		fmt.Fprintf(stdout, "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME\n%s\nnull\n", scriptSep)
		return 0
	})
	if err := d.Text(t.Context(), "héllo"); !errors.Is(err, ErrUnsupportedText) {
		t.Fatalf("err = %v, want ErrUnsupportedText", err)
	}
}

func TestTextChunks(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", []string{}},
		{"a b", []string{"a%sb"}},
		{"100%sure", []string{"100%", "sure"}},
		{"%s%s", []string{"%", "s%", "s"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := textChunks(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
