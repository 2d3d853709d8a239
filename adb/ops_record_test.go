package adb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/parse"
	"github.com/google/go-cmp/cmp"
)

func TestScreenRecordArgs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		opt  ScreenRecordOptions
		want string // "" for an error
	}{
		{ScreenRecordOptions{Limit: time.Second}, "screenrecord --time-limit 1"},
		{ScreenRecordOptions{Limit: 1500 * time.Millisecond}, "screenrecord --time-limit 2"},
		{ScreenRecordOptions{Limit: 30 * time.Second, Width: 320, Height: 720, BitRate: 4_000_000},
			"screenrecord --time-limit 30 --size 320x720 --bit-rate 4000000"},
		{ScreenRecordOptions{Limit: MaxScreenRecord}, "screenrecord --time-limit 180"},
		{ScreenRecordOptions{Limit: 999 * time.Millisecond}, ""},
		{ScreenRecordOptions{Limit: MaxScreenRecord + time.Millisecond}, ""},
		{ScreenRecordOptions{Limit: time.Second, Width: 320}, ""},
		{ScreenRecordOptions{Limit: time.Second, Width: -1, Height: 2}, ""},
		{ScreenRecordOptions{Limit: time.Second, BitRate: MinRecordBitRate - 1}, ""},
		{ScreenRecordOptions{Limit: time.Second, BitRate: MaxRecordBitRate + 1}, ""},
	} {
		argv, err := tc.opt.args()
		if got := strings.Join(argv, " "); got != tc.want || (err == nil) != (tc.want != "") {
			t.Errorf("%+v: %q, %v; want %q", tc.opt, got, err, tc.want)
		}
	}
}

// failWriter fails every write, as a full disk would.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// cancelWriter cancels the call on its first write and then stops, as a
// writer bound to the call's context does (files.Store.Put's reader): the
// call ends mid-pull.
type cancelWriter struct {
	ctx    context.Context
	cancel context.CancelFunc
}

func (w cancelWriter) Write(p []byte) (int, error) {
	w.cancel()
	return 0, w.ctx.Err()
}

// TestScreenRecordRemovesFile: the recording is pulled whole and, whether
// the pull succeeds, fails or is cancelled, never left on the phone.
func TestScreenRecordRemovesFile(t *testing.T) {
	_, vd, d := opsEnv(t)
	leftovers := func(t *testing.T) {
		t.Helper()
		infos, err := vd.Android().FS().ReadDir("/data/local/tmp")
		if err != nil {
			t.Fatal(err)
		}
		for _, fi := range infos {
			if strings.HasPrefix(fi.Name, "adbc-rec-") {
				t.Errorf("left on the phone: %s", fi.Name)
			}
		}
	}
	ran := func(t *testing.T) []string {
		t.Helper()
		var out []string
		for _, c := range vd.Android().Commands() {
			for _, argv := range c.Argv {
				if len(argv) > 0 && argv[0] == "screenrecord" {
					out = append(out, strings.Join(argv[:len(argv)-1], " "))
				}
			}
		}
		vd.Android().ClearCommands()
		return out
	}
	t.Run("pulled", func(t *testing.T) {
		var mp4 bytes.Buffer
		opt := ScreenRecordOptions{Limit: 2 * time.Second, Width: 320, Height: 568, BitRate: 1_000_000}
		if err := d.ScreenRecord(t.Context(), opt, &mp4); err != nil {
			t.Fatal(err)
		}
		info, err := parse.MP4(mp4.Bytes())
		if err != nil || info.Width != 320 || info.Height != 568 || info.Duration != 2*time.Second {
			t.Errorf("MP4 = %+v, %v", info, err)
		}
		if diff := cmp.Diff([]string{"screenrecord --time-limit 2 --size 320x568 --bit-rate 1000000"}, ran(t)); diff != "" {
			t.Errorf("commands (-want +got):\n%s", diff)
		}
		leftovers(t)
	})
	t.Run("failing writer", func(t *testing.T) {
		if err := d.ScreenRecord(t.Context(), ScreenRecordOptions{Limit: time.Second}, failWriter{}); err == nil {
			t.Fatal("no error")
		}
		if len(ran(t)) != 1 {
			t.Error("screenrecord did not run")
		}
		leftovers(t)
	})
	t.Run("cancelled mid-pull", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		err := d.ScreenRecord(ctx, ScreenRecordOptions{Limit: time.Second}, cancelWriter{ctx, cancel})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		leftovers(t)
	})
	t.Run("screenrecord fails", func(t *testing.T) {
		vd.Android().FailNext(1)
		if err := d.ScreenRecord(t.Context(), ScreenRecordOptions{Limit: time.Second}, io.Discard); err == nil {
			t.Fatal("no error")
		}
		leftovers(t)
	})
}

// TestLogcatCommand: what Logcat asks logcat for, and the tail it keeps.
func TestLogcatCommand(t *testing.T) {
	_, td, d := shellEnv(t)
	var (
		mu  sync.Mutex
		ran []string
	)
	got := func() []string {
		mu.Lock()
		defer mu.Unlock()
		r := ran
		ran = nil
		return r
	}
	out := "--------- beginning of main\n"
	for i := range 10 {
		out += fmt.Sprintf("12-03 08:00:0%d.000  1234  1234 I Tag%d   : line %d\n", i, i, i)
	}
	td.backend.setHandler(func(ctx context.Context, cmdline string, stdout, stderr io.Writer) int {
		mu.Lock()
		ran = append(ran, cmdline)
		mu.Unlock()
		switch {
		case strings.HasPrefix(cmdline, "pidof "):
			if cmdline == "pidof com.example.app" {
				fmt.Fprintln(stdout, "4242 4343")
				return 0
			}
			return 1
		case cmdline == "logcat -d -v threadtime -t 3":
			// logd's tail: the last three.
			fmt.Fprint(stdout, strings.Join(strings.Split(out, "\n")[8:], "\n"))
			return 0
		}
		fmt.Fprint(stdout, out)
		return 0
	})
	since := time.UnixMilli(1764748800123)
	for _, tc := range []struct {
		opt   LogcatOptions
		cmd   string
		first int // the first line kept
	}{
		{LogcatOptions{Lines: 3}, "logcat -d -v threadtime -t 3", 7},
		{LogcatOptions{Lines: 3, Filters: []string{"*:W"}}, "logcat -d -v threadtime '*:W'", 7},
		{LogcatOptions{Lines: 4, PID: 4242, Since: since, Filters: []string{"Tag1:I", "*:S"}},
			"logcat -d -v threadtime '--pid=4242' -t 1764748800.123 Tag1:I '*:S'", 6},
		{LogcatOptions{Lines: 50, Filters: []string{"*:V"}}, "logcat -d -v threadtime '*:V'", 0},
		{LogcatOptions{Lines: 2, Match: func(l parse.LogLine) bool { return l.Tag != "Tag8" }}, "logcat -d -v threadtime", 7},
	} {
		lines, err := d.Logcat(t.Context(), tc.opt)
		if err != nil {
			t.Fatalf("%+v: %v", tc.opt, err)
		}
		if cmds := got(); len(cmds) != 1 || cmds[0] != tc.cmd {
			t.Errorf("%+v ran %q, want %q", tc.opt, cmds, tc.cmd)
		}
		if len(lines) == 0 || lines[0].Message != fmt.Sprintf("line %d", tc.first) || lines[len(lines)-1].Message != "line 9" {
			t.Errorf("%+v: lines %+v", tc.opt, lines)
		}
	}
	for _, bad := range []LogcatOptions{{Filters: []string{"-c"}}, {Filters: []string{"a b"}}, {PID: -1}} {
		if _, err := d.Logcat(t.Context(), bad); err == nil || len(got()) != 0 {
			t.Errorf("%+v: %v, ran a command", bad, err)
		}
	}
	for name, want := range map[string][]int{"com.example.app": {4242, 4343}, "com.example.gone": {}} {
		pids, err := d.PIDs(t.Context(), name)
		if err != nil || !cmp.Equal(pids, want) {
			t.Errorf("PIDs(%s) = %v, %v; want %v", name, pids, err, want)
		}
	}
}
