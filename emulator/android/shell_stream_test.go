package android_test

import (
	"bufio"
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/emulator/android/shell"
)

// shellSession starts a shell without a command (what adbd runs for a raw
// stream with none) reading from a pipe; the test writes lines and reads
// stdout line by line.
type shellSession struct {
	in     *io.PipeWriter
	out    *bufio.Reader
	errs   *strings.Builder
	done   chan int
	cancel context.CancelFunc
}

func startSession(t *testing.T, d *android.Device) *shellSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &shellSession{in: inW, out: bufio.NewReader(outR), errs: &strings.Builder{}, done: make(chan int, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go func() {
		code := d.Run(ctx, "", inR, outW, s.errs)
		outW.Close()
		s.done <- code
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
		<-s.done
	})
	return s
}

func (s *shellSession) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(s.in, line); err != nil {
		t.Fatal(err)
	}
}

func (s *shellSession) readLine(t *testing.T) string {
	t.Helper()
	l, err := s.out.ReadString('\n')
	if err != nil {
		t.Fatalf("read: %q, %v", l, err)
	}
	return l
}

// TestShellReadsStdinLineByLine checks that a shell reading its script
// from a pipe runs each complete line before the next one is written (a
// real mksh does; a persistent host session relies on it), that shell
// state persists between lines, and that every line is its own command
// log entry with its exit status.
func TestShellReadsStdinLineByLine(t *testing.T) {
	t.Parallel()
	d := newDevice(t, android.Config{})
	s := startSession(t, d)
	s.send(t, "x=41; echo first\n")
	if got := s.readLine(t); got != "first\n" {
		t.Fatalf("first line printed %q", got)
	}
	// The shell is now waiting for more input, the first line already ran.
	s.send(t, "echo $((x+1)); false\n")
	if got := s.readLine(t); got != "42\n" {
		t.Fatalf("second line printed %q", got)
	}
	s.send(t, "if true\nthen echo multi\nfi\n")
	if got := s.readLine(t); got != "multi\n" {
		t.Fatalf("multi-line command printed %q", got)
	}
	s.send(t, "cd /sdcard; (exit 3); echo \"$? $PWD\"\n")
	if got := s.readLine(t); got != "3 /sdcard\n" {
		t.Fatalf("subshell status line printed %q", got)
	}
	s.send(t, "exit 7\necho never\n")
	if code := <-s.done; code != 7 {
		t.Fatalf("exit status %d, want 7", code)
	}
	s.done <- 7 // for the cleanup
	var lines []string
	var exits []int
	for _, c := range d.Commands() {
		lines, exits = append(lines, c.Line), append(exits, c.Exit)
	}
	want := []string{"x=41; echo first", "echo $((x+1)); false", "if true\nthen echo multi\nfi", "cd /sdcard; (exit 3); echo \"$? $PWD\"", "exit 7"}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Errorf("logged lines %q, want %q", lines, want)
	}
	if want := []int{0, 1, 0, 0, 7}; !slices.Equal(exits, want) {
		t.Errorf("exit statuses %v, want %v", exits, want)
	}
}

// TestShellSessionFaults checks that a fault failing a line ends the
// shell with the fault's status and message, as it ends `sh -c LINE`,
// and that a syntax error ends a non-interactive shell.
func TestShellSessionFaults(t *testing.T) {
	t.Parallel()
	t.Run("fail next", func(t *testing.T) {
		d := newDevice(t, android.Config{})
		s := startSession(t, d)
		s.send(t, "echo ok\n")
		s.readLine(t)
		d.FailNextWithStatus(1, 255)
		s.send(t, "echo never\n")
		code := <-s.done
		s.done <- code
		if code != 255 || s.errs.String() != shell.ShellName+": injected failure\n" {
			t.Errorf("status %d, stderr %q", code, s.errs.String())
		}
	})
	t.Run("syntax error", func(t *testing.T) {
		d := newDevice(t, android.Config{})
		s := startSession(t, d)
		s.send(t, "echo (\necho never\n")
		code := <-s.done
		s.done <- code
		if code != 1 || !strings.Contains(s.errs.String(), "syntax error") {
			t.Errorf("status %d, stderr %q", code, s.errs.String())
		}
	})
	t.Run("hang ends with the stream", func(t *testing.T) {
		d := newDevice(t, android.Config{})
		d.HangCommands("dumpsys")
		s := startSession(t, d)
		s.send(t, "dumpsys battery\n")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		// The line is running (hanging): the host closing the stream ends it.
		d.Model().Lock()
		for d.Model().Faults.Commands == 0 {
			d.Model().Unlock()
			time.Sleep(time.Millisecond)
			d.Model().Lock()
		}
		d.Model().Unlock()
		s.cancel()
		select {
		case code := <-s.done:
			s.done <- code
			if code != shell.ExitCanceled {
				t.Errorf("status %d, want %d", code, shell.ExitCanceled)
			}
		case <-ctx.Done():
			t.Fatal("the shell did not end with its stream")
		}
	})
}

// TestShReadsStdinScript checks `sh` with its script on stdin: lines run
// in order, `exit` stops it before the rest, and its status is the
// shell's.
func TestShReadsStdinScript(t *testing.T) {
	t.Parallel()
	d := newDevice(t, android.Config{})
	var out, errb strings.Builder
	code := d.Run(context.Background(), `printf 'v=a\necho $v\nexit 3\necho b\n' | sh; echo "st=$?"`, strings.NewReader(""), &out, &errb)
	if code != 0 || out.String() != "a\nst=3\n" || errb.String() != "" {
		t.Errorf("status %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}
