package emulator_test

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest"
)

// TestShellSessionThroughADB keeps one `adb shell -T` (a raw shell v2
// stream without a command) open and feeds it a line at a time: each line's
// output comes back before the next line is written, and the shell's exit
// status is adb's.
func TestShellSessionThroughADB(t *testing.T) {
	env := adbtest.Start(t, adbtest.Options{})
	d := env.Devices[0]
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := env.AdbCmd(ctx, "-s", d.Serial(), "shell", "-T")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outp, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(outp)
	for i, tc := range []struct{ line, want string }{
		{"getprop ro.product.model\n", d.Android().Identity().Model + "\n"},
		{"n=5; echo $((n*2))\n", "10\n"},
		{"echo $n; false\n", "5\n"},
	} {
		if _, err := io.WriteString(in, tc.line); err != nil {
			t.Fatal(err)
		}
		got, err := out.ReadString('\n')
		if err != nil || got != tc.want {
			t.Fatalf("line %d %q printed %q (%v), want %q", i, tc.line, got, err, tc.want)
		}
	}
	io.WriteString(in, "echo bye >&2; exit 4\n")
	in.Close()
	rest, _ := io.ReadAll(out)
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 4 || len(rest) != 0 || stderr.String() != "bye\n" {
		t.Errorf("adb exit %d (%v), trailing stdout %q, stderr %q", code, err, rest, stderr.String())
	}
	var lines []string
	for _, c := range d.Android().Commands() {
		lines = append(lines, c.Line)
	}
	if want := "getprop ro.product.model|n=5; echo $((n*2))|echo $n; false|echo bye >&2; exit 4"; strings.Join(lines, "|") != want {
		t.Errorf("command log %q, want %q", lines, want)
	}
}

// TestPtyShellRefused: an interactive shell on a terminal (`adb shell
// -tt` without a command) is not modelled: a clear message and status 1.
func TestPtyShellRefused(t *testing.T) {
	env := adbtest.Start(t, adbtest.Options{})
	d := env.Devices[0]
	out, _, code := adbRun(t, env, d, "shell", "-tt")
	if code != 1 || !strings.Contains(out, "not supported") {
		t.Errorf("adb shell -tt: status %d, output %q", code, out)
	}
	if n := len(d.Android().Commands()); n != 0 {
		t.Errorf("%d commands ran", n)
	}
}
