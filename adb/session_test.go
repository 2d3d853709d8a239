package adb

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/adb-connector/adb-connector/emulator"
	"github.com/adb-connector/adb-connector/emulator/android"
)

// ranAs waits until the phone's log holds cmd run on the session (a line
// that wraps it in a subshell) or on a stream of its own: the phone logs a command when it ends, which may be after its
// output reached the host.
func ranAs(t *testing.T, vd *emulator.Device, cmd string, session bool) bool {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, err := vd.Android().WaitCommand(ctx, func(c android.Command) bool {
		return strings.HasPrefix(c.Line, "(") == session && strings.Contains(c.Line, cmd)
	})
	return err == nil
}

// freshShell runs cmd on a stream of its own, with shellScript's exit
// error, for comparison.
func freshShell(ctx context.Context, d *Device, cmd string) (Result, error) {
	return d.limitedShell(ctx, opRead, 0, cmd, d.runShellV2)
}

// TestSessionSameResult runs a table of commands on the session and on
// streams of their own, through the real adb server and the virtual
// phone: stdout, stderr and the exit status must be the same bytes.
func TestSessionSameResult(t *testing.T) {
	_, vd, d := opsEnv(t)
	ctx := t.Context()
	big := `i=0; while [ $i -lt 4000 ]; do echo "line $i of a large output that spans several shell packets"; i=$((i+1)); done`
	for _, tc := range []struct{ name, cmd string }{
		{"stdout", "echo hello"},
		{"no trailing newline", "printf abc"},
		{"empty", "true"},
		{"failing", "cat /nonexistent/file"},
		{"not found", "nosuchcommand --x"},
		{"stderr only", "echo oops >&2"},
		{"both and status", "echo out; echo err >&2; exit 3"},
		{"exit in the command", "exit 200"},
		{"cd and variables stay in the command", "cd /sdcard; x=1; pwd"},
		{"fake marker", "echo " + markerPrefix + "00000000000000000000000000000000:0; printf '" + markerPrefix + "'"},
		{"fake marker on stderr, no newline", "printf '" + markerPrefix + "' >&2"},
		{"reads no stdin", "cat"},
		{"large output", big},
		{"getprop", "getprop ro.product.model"},
		{"status script", "wm size; echo " + scriptSep + "; dumpsys battery"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// By the command itself, not the log's last line: the phone
			// logs a command when it ends, which may come after the next
			// one started.
			want, wantErr := freshShell(ctx, d, tc.cmd)
			if !ranAs(t, vd, tc.cmd, false) {
				t.Fatal("the fresh stream did not run the command on its own")
			}
			got, err := d.shortScript(ctx, tc.cmd)
			if !ranAs(t, vd, tc.cmd, true) {
				t.Fatal("the command did not run on the session")
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("session result differs (-fresh +session):\n%s", diff)
			}
			var we, ge *ExitError
			if errors.As(wantErr, &we) != errors.As(err, &ge) || (we != nil && (we.Code != ge.Code || string(we.Stderr) != string(ge.Stderr))) {
				t.Errorf("errors differ: fresh %v, session %v", wantErr, err)
			}
		})
	}
}

// TestSessionReused checks that short commands share one session stream:
// the phone logs each command as a line of it.
func TestSessionReused(t *testing.T) {
	_, vd, d := opsEnv(t)
	vd.Android().ClearCommands()
	for range 3 {
		if _, err := d.Properties(t.Context(), true); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Status(t.Context()); err != nil {
		t.Fatal(err)
	}
	cmds := vd.Android().Commands()
	if len(cmds) != 4 {
		t.Fatalf("commands %q, want 4 session lines", lines(cmds))
	}
	for _, c := range cmds {
		if !strings.HasPrefix(c.Line, "(") {
			t.Errorf("%q did not run on the session", c.Line)
		}
	}
}

// TestSessionFallbacks checks the commands that take a stream of their own:
// a busy session, a long deadline, a long command line.
func TestSessionFallbacks(t *testing.T) {
	_, vd, d := opsEnv(t)
	ctx := t.Context()
	if _, err := d.Shell(ctx, "echo", "first"); err != nil || !ranAs(t, vd, "first", true) {
		t.Fatalf("first command: %v, or not on the session", err)
	}
	t.Run("busy", func(t *testing.T) {
		d.sessBusy.Lock()
		_, err := d.Shell(ctx, "echo", "busy")
		d.sessBusy.Unlock()
		if err != nil || !ranAs(t, vd, "busy", false) {
			t.Errorf("%v, or not on a stream of its own", err)
		}
	})
	t.Run("long deadline", func(t *testing.T) {
		lctx, cancel := context.WithTimeout(ctx, sessionMaxTimeout+time.Minute)
		defer cancel()
		if _, err := d.Shell(lctx, "echo", "long-deadline"); err != nil || !ranAs(t, vd, "long-deadline", false) {
			t.Errorf("%v, or not on a stream of its own", err)
		}
	})
	t.Run("long line", func(t *testing.T) {
		if _, err := d.Shell(ctx, "echo", strings.Repeat("x", sessionMaxLine)); err != nil || !ranAs(t, vd, strings.Repeat("x", sessionMaxLine), false) {
			t.Errorf("%v, or not on a stream of its own", err)
		}
	})
	t.Run("session still used", func(t *testing.T) {
		if _, err := d.Shell(ctx, "echo", "still"); err != nil || !ranAs(t, vd, "still", true) {
			t.Errorf("%v, or not on the session", err)
		}
	})
}

// TestSessionTimeout checks that a command cut by its deadline fails as
// on a stream of its own (ErrTimeout) and does not poison the session:
// the next command gets its own answer on a new one.
func TestSessionTimeout(t *testing.T) {
	_, vd, d := opsEnv(t)
	ctx := t.Context()
	for _, run := range []struct {
		name string
		fn   func(context.Context, string) (Result, error)
	}{{"fresh", func(ctx context.Context, cmd string) (Result, error) { return freshShell(ctx, d, cmd) }}, {"session", d.shortScript}} {
		t.Run(run.name, func(t *testing.T) {
			if _, err := d.shortScript(ctx, "true"); err != nil {
				t.Fatal(err)
			}
			old := d.sess
			tctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			defer cancel()
			_, err := run.fn(tctx, "echo started; sleep 100")
			if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want ErrTimeout", err)
			}
			// Its own words, found by themselves in the log: the killed
			// command is logged when it ends, maybe after this one.
			next := "echo next-" + run.name
			res, err := d.shortScript(ctx, next)
			if err != nil || string(res.Stdout) != "next-"+run.name+"\n" || !ranAs(t, vd, next, true) {
				t.Fatalf("next command: %q %v", res.Stdout, err)
			}
			if run.name == "session" && d.sess == old {
				t.Error("the timed-out session was kept")
			}
		})
	}
	t.Run("canceled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		go func() {
			_, _ = vd.Android().WaitCommand(ctx, func(c android.Command) bool { return strings.Contains(c.Line, "sleep 100") })
			cancel()
		}()
		if _, err := d.shortScript(cctx, "sleep 100"); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}

// TestSessionFaults checks a command failed by the phone (the shell that
// runs it ends: the session's) and a device that dropped while the
// session was idle.
func TestSessionFaults(t *testing.T) {
	env, vd, d := opsEnv(t)
	ctx := t.Context()
	if _, err := d.Shell(ctx, "true"); err != nil {
		t.Fatal(err)
	}
	t.Run("command fails", func(t *testing.T) {
		vd.FailNext(1)
		fres, ferr := d.Shell(ctx, "true")
		var ee *ExitError
		if !errors.As(ferr, &ee) || ee.Code != 1 || !strings.Contains(string(fres.Stderr), "injected failure") {
			t.Fatalf("Shell = %+v, %v; want the injected failure", fres, ferr)
		}
		if res, err := d.Shell(ctx, "echo", "ok"); err != nil || string(res.Stdout) != "ok\n" {
			t.Fatalf("after the failure: %q %v", res.Stdout, err)
		}
	})
	t.Run("first command of a new session fails", func(t *testing.T) {
		d.closeSession()
		vd.FailNext(1)
		_, err := d.Shell(ctx, "true")
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != 1 || !strings.Contains(string(ee.Stderr), "injected failure") {
			t.Fatalf("err = %v, want the injected failure", err)
		}
	})
	t.Run("shell dies", func(t *testing.T) {
		vd.Android().FailNextWithStatus(1, 255)
		_, err := d.Shell(ctx, "true")
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != 255 {
			t.Fatalf("err = %v, want status 255", err)
		}
	})
	t.Run("drop while idle", func(t *testing.T) {
		if _, err := d.Shell(ctx, "true"); err != nil {
			t.Fatal(err)
		}
		s := d.sess
		vd.DropLink()
		// The adb server ends the streams of the transport it lost: the
		// idle session has its end waiting.
		for deadline := time.Now().Add(10 * time.Second); !readable(s.hc.nc); {
			if time.Now().After(deadline) {
				t.Fatal("the session stream did not end with the link")
			}
			time.Sleep(5 * time.Millisecond)
		}
		env.WaitState(vd, "device")
		res, err := d.Shell(ctx, "echo", "back")
		if err != nil || string(res.Stdout) != "back\n" || !ranAs(t, vd, "back", true) {
			t.Fatalf("after the drop: %q %v", res.Stdout, err)
		}
	})
	t.Run("gone", func(t *testing.T) {
		if _, err := d.Shell(ctx, "true"); err != nil {
			t.Fatal(err)
		}
		if err := vd.Vanish(time.Hour); err != nil {
			t.Fatal(err)
		}
		_, serr := d.Shell(ctx, "true")
		_, ferr := freshShell(ctx, d, "true")
		if serr == nil || !errors.Is(serr, ErrDeviceNotFound) && !errors.Is(serr, ErrDeviceOffline) {
			t.Fatalf("session err = %v, fresh err = %v", serr, ferr)
		}
	})
}

// TestSessionClosedWithClient checks that Client.Close closes the sessions
// it opened.
func TestSessionClosedWithClient(t *testing.T) {
	_, _, d := opsEnv(t)
	if _, err := d.Shell(t.Context(), "true"); err != nil {
		t.Fatal(err)
	}
	s := d.sess
	if s == nil {
		t.Fatal("no session open")
	}
	d.c.Close()
	if d.sess != nil {
		t.Error("session kept after Close")
	}
	if _, err := s.hc.nc.Write([]byte{0}); err == nil {
		t.Error("session connection still open after Close")
	}
	if _, err := d.Shell(t.Context(), "true"); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v, want ErrClosed", err)
	}
}

func lines(cmds []android.Command) []string {
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = c.Line
	}
	return out
}

// TestSessionDeafShell checks a device whose shell without a command does
// not run what it reads: the first short command times out (as it would
// on a stream), and later ones take streams of their own.
func TestSessionDeafShell(t *testing.T) {
	_, td, d := shellEnv(t)
	td.backend.mu.Lock()
	td.backend.deafShell = true
	td.backend.mu.Unlock()
	tctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	if _, err := d.Shell(tctx, "true"); !errors.Is(err, ErrTimeout) {
		t.Fatalf("first command: %v, want ErrTimeout", err)
	}
	if _, err := d.Shell(t.Context(), "true"); err != nil {
		t.Fatalf("next command: %v", err)
	}
	if !d.noSession || d.sess != nil {
		t.Errorf("noSession %v, session %v", d.noSession, d.sess)
	}
}

// FuzzSessionTrailer: whatever a session's stdout and stderr hold, the
// marker lines are recognized only when they end the output, and cutting
// them leaves exactly what came before.
func FuzzSessionTrailer(f *testing.F) {
	mark := markerPrefix + "0123456789abcdef0123456789abcdef"
	for _, s := range []string{"", "abc", "abc\n", mark + ":0\n", "out" + mark + ":127\n", mark + ":256\n", mark + ":+1\n",
		mark + ":\n", mark + "\n", "x" + mark + ":1\n" + mark + ":2\n", markerPrefix + "ffff:0\n", mark[:10]} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if code, ok := stdoutEnd(b, mark); ok {
			body := cutMarker(b, mark)
			if code < 0 || code > 255 || string(body)+mark+":"+strconv.Itoa(code)+"\n" != string(b) {
				t.Fatalf("stdoutEnd(%q) = %d; body %q", b, code, body)
			}
		}
		if rest, ok := trailer(b, mark); ok && rest == "" {
			if body := cutMarker(b, mark); string(body)+mark+"\n" != string(b) {
				t.Fatalf("stderr %q cut to %q", b, body)
			}
		}
		if _, ok := trailer(b, mark); !ok && len(b) > 0 && string(cutMarker(b, mark)) != string(b) {
			t.Fatalf("%q cut without a marker line", b)
		}
	})
}

// TestSessionClosedWhenDeviceGoes checks that a device tracking reports
// gone (forget) loses its session, so a device that comes back starts a
// new one.
func TestSessionClosedWhenDeviceGoes(t *testing.T) {
	_, _, d := opsEnv(t)
	if _, err := d.Shell(t.Context(), "true"); err != nil {
		t.Fatal(err)
	}
	s := d.sess
	d.c.forget(d.Key())
	if d.sess != nil {
		t.Fatal("session kept for a device that went away")
	}
	if _, err := s.hc.nc.Write([]byte{0}); err == nil {
		t.Error("session connection still open")
	}
	if _, err := d.Shell(t.Context(), "true"); err != nil || d.sess == nil || d.sess == s {
		t.Errorf("next command: %v, new session %v", err, d.sess != nil && d.sess != s)
	}
}

// TestSessionHangingCommand checks a command that never ends on the
// session: ErrTimeout, as on a stream of its own, and the next command
// answers on a new session.
func TestSessionHangingCommand(t *testing.T) {
	_, vd, d := opsEnv(t)
	if _, err := d.Battery(t.Context()); err != nil {
		t.Fatal(err)
	}
	vd.Android().HangCommands("dumpsys")
	tctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	if _, err := d.Battery(tctx); !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	vd.Android().HangCommands()
	if _, err := d.Battery(t.Context()); err != nil || !ranAs(t, vd, "dumpsys battery", true) {
		t.Fatalf("next: %v, or not on the session", err)
	}
}
