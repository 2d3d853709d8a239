package emulator_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/emulator"
	"github.com/adb-connector/adb-connector/emulator/android"
)

// transcriptClock is the virtual phones' clock in the transcripts, so log
// timestamps are fixed.
func transcriptClock() time.Time { return time.Date(2026, 12, 2, 9, 41, 7, 123e6, time.UTC) }

// transcriptStep is one command of a transcript and what a phone answers.
type transcriptStep struct {
	cmd            string
	stdout, stderr string
	exit           int
}

// A transcript (testdata/framework/*.txt) is what a phone answers to a
// series of `adb shell CMD` calls, written by hand from the AOSP source or
// public capture named in its "# source:" lines (see SOURCES.md there).
// Layout, per step:
//
//	$ CMD
//	stdout lines
//	--- stderr
//	stderr lines
//	--- exit N
//
// "# scenario: NAME" picks the virtual phone's scenario, "# android:
// RELEASE sdk N" its Android version (default 13, SDK 33). In expected
// output, {{hex}} stands for an object hash (System.identityHashCode),
// which differs on every boot of a real phone.
func parseTranscript(t *testing.T, text string) (cfg android.Config, steps []transcriptStep) {
	t.Helper()
	lines := strings.SplitAfter(text, "\n")
	var cur *transcriptStep
	var into *string
	for _, l := range lines {
		if l == "" {
			continue // after the last newline
		}
		body := strings.TrimSuffix(l, "\n")
		switch {
		case cur == nil && strings.HasPrefix(body, "# scenario: "):
			cfg.Scenario = strings.TrimPrefix(body, "# scenario: ")
		case cur == nil && strings.HasPrefix(body, "# android: "):
			if _, err := fmt.Sscanf(body, "# android: %s sdk %d", &cfg.Release, &cfg.SDK); err != nil {
				t.Fatalf("bad android line %q", body)
			}
		case cur == nil && (strings.HasPrefix(body, "#") || body == ""):
		case strings.HasPrefix(body, "$ "):
			if cur != nil && into != nil {
				t.Fatalf("step %q lacks its --- exit line", cur.cmd)
			}
			steps = append(steps, transcriptStep{cmd: body[2:]})
			cur = &steps[len(steps)-1]
			into = &cur.stdout
		case cur != nil && body == "--- stderr":
			into = &cur.stderr
		case cur != nil && strings.HasPrefix(body, "--- exit "):
			if _, err := fmt.Sscanf(body, "--- exit %d", &cur.exit); err != nil {
				t.Fatalf("bad exit line %q", body)
			}
			into = nil
		case into != nil:
			*into += l
		default:
			t.Fatalf("line outside a step: %q", body)
		}
	}
	return cfg, steps
}

// matchOutput compares output with an expected text holding {{hex}}
// placeholders.
func matchOutput(want, got string) bool {
	if !strings.Contains(want, "{{hex}}") {
		return want == got
	}
	parts := strings.Split(want, "{{hex}}")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	return regexp.MustCompile(`\A` + strings.Join(parts, "[0-9a-f]{1,8}") + `\z`).MatchString(got)
}

// startTranscriptPhone starts a virtual phone with the transcript clock and
// connects it to env's adb server.
func startTranscriptPhone(t *testing.T, env *adbtest.Env, cfg android.Config) *emulator.Device {
	t.Helper()
	cfg.Now = transcriptClock
	d, err := emulator.Start(context.Background(), emulator.Options{Android: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	env.Connect(d)
	return d
}

// TestFrameworkTranscripts plays the framework tools' transcripts
// (testdata/framework: pm, cmd, dumpsys, logcat, ime, getevent).
func TestFrameworkTranscripts(t *testing.T) { playTranscripts(t, "framework") }

// playTranscripts plays every transcript of testdata/DIR through Debian's
// adb server and client, each against a fresh virtual phone, and compares
// stdout, stderr and the exit status byte for byte.
func playTranscripts(t *testing.T, dir string) {
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	env := adbtest.Start(t, adbtest.Options{Devices: -1})
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			text, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !regexp.MustCompile(`(?m)^# source: `).Match(text) {
				t.Fatalf("%s names no source (a \"# source:\" line)", f)
			}
			cfg, steps := parseTranscript(t, string(text))
			d := startTranscriptPhone(t, env, cfg)
			for _, st := range steps {
				so, se, code := adbRun(t, env, d, "shell", st.cmd)
				if !matchOutput(st.stdout, so) || !matchOutput(st.stderr, se) || code != st.exit {
					t.Errorf("$ %s\n--- got stdout\n%s--- want stdout\n%s--- got stderr\n%s--- want stderr\n%s--- exit %d, want %d",
						st.cmd, so, st.stdout, se, st.stderr, code, st.exit)
				}
			}
		})
	}
}

// loggerEntry is struct logger_entry of system/logging/liblog/include/log/
// log_read.h, the record `logcat -B` writes, decoded independently of the
// phone's encoder.
type loggerEntry struct {
	Len, HdrSize             uint16
	PID                      int32
	TID, Sec, Nsec, LID, UID uint32
}

// readLogcatBinary decodes a `logcat -B` stream: each record is the header
// (hdr_size bytes, little endian) then len bytes of payload; a text
// record's payload is the priority byte, the tag and the message, each
// NUL-terminated.
func readLogcatBinary(t *testing.T, b []byte) (heads []loggerEntry, prio []byte, tags, msgs []string) {
	t.Helper()
	r := bytes.NewReader(b)
	for r.Len() > 0 {
		var h loggerEntry
		if err := binary.Read(r, binary.LittleEndian, &h); err != nil {
			t.Fatalf("header: %v", err)
		}
		if h.HdrSize < 28 {
			t.Fatalf("hdr_size %d", h.HdrSize)
		}
		r.Seek(int64(h.HdrSize)-28, io.SeekCurrent) // newer headers may grow
		payload := make([]byte, h.Len)
		if _, err := r.Read(payload); err != nil || len(payload) < 3 || payload[len(payload)-1] != 0 {
			t.Fatalf("payload %q: %v", payload, err)
		}
		tag, msg, ok := bytes.Cut(payload[1:len(payload)-1], []byte{0})
		if !ok {
			t.Fatalf("payload without tag terminator: %q", payload)
		}
		heads, prio, tags, msgs = append(heads, h), append(prio, payload[0]), append(tags, string(tag)), append(msgs, string(msg))
	}
	return heads, prio, tags, msgs
}

// TestLogcatThroughADB: `logcat -B` read through adb exec-out (no pty, so
// the bytes arrive untouched) and decoded from the struct definition, and
// `logcat -T 1` following the log through adb shell.
func TestLogcatThroughADB(t *testing.T) {
	env := adbtest.Start(t, adbtest.Options{Devices: -1})
	t.Run("binary", func(t *testing.T) {
		d := startTranscriptPhone(t, env, android.Config{})
		out, se, code := adbRun(t, env, d, "exec-out", "logcat -B -d -b all")
		if code != 0 || se != "" {
			t.Fatalf("logcat -B: exit %d, stderr %q", code, se)
		}
		heads, prio, tags, msgs := readLogcatBinary(t, []byte(out))
		// The launcher scenario's boot log: four system_server lines (system
		// buffer, uid 1000) and one crash (crash buffer).
		wantTags := []string{"ActivityManager", "WifiService", "ConnectivityService", "PackageManager", "AndroidRuntime"}
		if fmt.Sprint(tags) != fmt.Sprint(wantTags) {
			t.Fatalf("tags %q, want %q", tags, wantTags)
		}
		if msgs[0] != "System now ready" || prio[0] != 4 || prio[3] != 5 || prio[4] != 6 {
			t.Errorf("first message %q, priorities %v", msgs[0], prio)
		}
		clock := transcriptClock()
		for i, h := range heads {
			if h.Sec != uint32(clock.Unix()) || h.Nsec != uint32(clock.Nanosecond()) {
				t.Errorf("record %d time %d.%09d", i, h.Sec, h.Nsec)
			}
		}
		if h := heads[0]; h.PID != 1433 || h.LID != 3 || h.UID != 1000 || h.HdrSize != 28 || int(h.Len) != 1+len("ActivityManager")+1+len("System now ready")+1 {
			t.Errorf("first header %+v", h)
		}
		if h := heads[4]; h.PID != 4321 || h.LID != 4 {
			t.Errorf("crash header %+v", h)
		}
		// Tag filters do not apply to binary output, buffers do.
		out, _, _ = adbRun(t, env, d, "exec-out", "logcat -B -d -b crash -s Nothing")
		if _, _, tags, _ := readLogcatBinary(t, []byte(out)); fmt.Sprint(tags) != "[AndroidRuntime]" {
			t.Errorf("-b crash -s Nothing: tags %q", tags)
		}
	})
	t.Run("follow", func(t *testing.T) {
		d := startTranscriptPhone(t, env, android.Config{})
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		cmd := env.AdbCmd(ctx, "-s", d.Serial(), "shell", "logcat -T 1 -v brief")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Wait()
		defer cancel()
		r := bufio.NewReader(stdout)
		next := func() string {
			t.Helper()
			l, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("logcat -T ended: %q %v", l, err)
			}
			return l
		}
		// -T 1: the last record, then the log as it grows.
		for _, want := range []string{"--------- beginning of crash\n", "E/AndroidRuntime( 4321): FATAL EXCEPTION: main (simulated, com.example.crashy)\n"} {
			if got := next(); got != want {
				t.Fatalf("got %q, want %q", got, want)
			}
		}
		d.Android().Log('I', "Follow", "logged later")
		for _, want := range []string{"--------- beginning of main\n", "I/Follow  ( 1433): logged later\n"} {
			if got := next(); got != want {
				t.Fatalf("got %q, want %q", got, want)
			}
		}
	})
}
