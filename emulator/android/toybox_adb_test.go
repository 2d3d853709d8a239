package android_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/emulator"
	"github.com/adb-connector/adb-connector/emulator/android"
)

// phoneCase is one testdata/toybox file: what a real phone prints for a
// command line, written by hand from the source its "#" lines name (see
// testdata/toybox/SOURCES.md), never recorded from this virtual phone.
type phoneCase struct {
	sources []string // the "#" lines
	setup   []string // "setup: LINE" lines, run first (must succeed)
	cmd     string
	stdout  string
	stderr  string
	exit    int
}

// parsePhoneCase reads the format:
//
//	# SOURCE ...
//	setup: LINE
//	$ COMMAND
//	--- stdout
//	...
//	--- stderr
//	...
//	--- exit N
func parsePhoneCase(b []byte) (phoneCase, error) {
	var c phoneCase
	s := string(b)
	for {
		line, rest, ok := strings.Cut(s, "\n")
		if !ok {
			return c, errors.New("no \"$ \" command line")
		}
		s = rest
		switch {
		case strings.HasPrefix(line, "#"):
			c.sources = append(c.sources, line)
		case strings.HasPrefix(line, "setup: "):
			c.setup = append(c.setup, strings.TrimPrefix(line, "setup: "))
		case strings.HasPrefix(line, "$ "):
			c.cmd = strings.TrimPrefix(line, "$ ")
			out, rest, ok1 := strings.Cut(strings.TrimPrefix(s, "--- stdout\n"), "--- stderr\n")
			errOut, exit, ok2 := strings.Cut(rest, "--- exit ")
			if !strings.HasPrefix(s, "--- stdout\n") || !ok1 || !ok2 {
				return c, errors.New("want --- stdout, --- stderr and --- exit sections")
			}
			n, err := strconv.Atoi(strings.TrimSpace(exit))
			if err != nil {
				return c, err
			}
			c.stdout, c.stderr, c.exit = out, errOut, n
			return c, nil
		case line == "":
		default:
			return c, errors.New("unexpected line " + strconv.Quote(line))
		}
	}
}

// phoneClock is the virtual phone's clock in these cases: Wed Dec 2
// 09:41:07.123 UTC 2026 (epoch 1796204467).
func phoneClock() time.Time { return time.Date(2026, 12, 2, 9, 41, 7, 123e6, time.UTC) }

// TestToyboxThroughADB runs each case through Debian's adb client and
// server against one virtual phone ("login" scenario: the launcher and
// com.example.login running, the latter debuggable) and compares stdout,
// stderr and the exit status byte for byte. The phone's shared storage
// and /data/local/tmp are emptied before each case.
func TestToyboxThroughADB(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "toybox", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	env := adbtest.Start(t, adbtest.Options{Devices: -1})
	d, err := emulator.Start(context.Background(), emulator.Options{
		Android: android.Config{Serial: "VIRT00000001", Scenario: "login", Now: phoneClock},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	env.Connect(d)
	shell := func(t *testing.T, line string) (string, string, int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := env.AdbCmd(ctx, "-s", d.Serial(), "shell", line)
		var so, se bytes.Buffer
		cmd.Stdout, cmd.Stderr = &so, &se
		err := cmd.Run()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			return so.String(), se.String(), ee.ExitCode()
		case err != nil:
			t.Fatalf("adb shell %q: %v", line, err)
		}
		return so.String(), se.String(), 0
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			want, err := parsePhoneCase(b)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if len(want.sources) == 0 {
				t.Fatalf("%s names no source (a \"#\" line)", f)
			}
			for _, s := range append([]string{"rm -rf /sdcard/* /sdcard/.[!.]* /data/local/tmp/* /data/local/tmp/.[!.]*"}, want.setup...) {
				if _, errOut, st := shell(t, s); st != 0 {
					t.Fatalf("setup %q: exit %d: %s", s, st, errOut)
				}
			}
			out, errOut, st := shell(t, want.cmd)
			if diff := cmp.Diff(want.stdout, out); diff != "" {
				t.Errorf("$ %s\nstdout (-real phone +virtual):\n%s", want.cmd, diff)
			}
			if diff := cmp.Diff(want.stderr, errOut); diff != "" {
				t.Errorf("$ %s\nstderr (-real phone +virtual):\n%s", want.cmd, diff)
			}
			if st != want.exit {
				t.Errorf("$ %s\nexit %d, a real phone exits %d", want.cmd, st, want.exit)
			}
		})
	}
}
