package phonetest

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

// limitWriter drops output past n bytes so a fuzzed loop cannot eat memory.
type limitWriter struct{ n int }

func (l *limitWriter) Write(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, io.ErrShortWrite
	}
	l.n -= len(p)
	return len(p), nil
}

// FuzzRun: arbitrary command lines never panic and never hang (each run is
// bounded by a context), and the device stays usable.
func FuzzRun(f *testing.F) {
	for _, s := range []string{
		"getprop", "wm size 100x100", "input tap 1 2", "input swipe 1 2 3 4 5", "input text 'a b'", "input keyevent 66 67 DEL",
		"dumpsys window", "dumpsys activity activities", "uiautomator dump /dev/tty", "screencap", "am start -n a/.b",
		"monkey -p com.android.settings 1", "pm list packages -f", "settings put system user_rotation 3", "logcat -d -t 3 *:S",
		"echo 'a' \"b\" $((1/0))", "exit 300", "timeout 0.001 sleep 1", "cat /sdcard/*", "rm -rf /", "mkdir -p /a/b/c",
		"while true; do :; done", "sleep 5 & input tap 1 1 &", "f() { f; }; f", "echo ${x:?}", "ls -la /sdcard | grep -c x", "cat <(ls)", ")(", "`",
		"screenrecord --time-limit 1 --size 64x64 /sdcard/r.mp4", "input keyevent 26; uiautomator dump",
	} {
		f.Add(s)
	}
	d := newDevice(f, android.Config{})
	f.Fuzz(func(t *testing.T, line string) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		d.Run(ctx, line, nil, &limitWriter{1 << 20}, &limitWriter{1 << 20})
		if st := d.Run(context.Background(), "true", nil, io.Discard, io.Discard); st != 0 {
			t.Fatalf("device unusable after %q: status %d", line, st)
		}
	})
}

// FuzzSession: any input to a shell reading stdin (a session) never
// panics or hangs, logs lines whose text is part of the input, and leaves
// the device usable.
func FuzzSession(f *testing.F) {
	for _, s := range []string{
		"echo a\n", "x=1; echo $x\nexit 3\necho b\n", "(getprop ro.product.model\n) </dev/null; echo M:$?; echo M >&2\n",
		"if true\nthen echo y\nfi\n", "echo (\n", "\n\n#c\n", "cat <(ls)\n", "echo 'open\n", "sleep 5\n", "exit\n",
	} {
		f.Add(s)
	}
	d := newDevice(f, android.Config{})
	f.Fuzz(func(t *testing.T, script string) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		d.ClearCommands()
		d.Run(ctx, "", strings.NewReader(script), &limitWriter{1 << 20}, &limitWriter{1 << 20})
		for _, c := range d.Commands() {
			if !strings.Contains(script, c.Line) {
				t.Fatalf("logged line %q is not in the input %q", c.Line, script)
			}
		}
		if st := d.Run(context.Background(), "true", nil, io.Discard, io.Discard); st != 0 {
			t.Fatalf("device unusable after %q: status %d", script, st)
		}
	})
}

// FuzzParseDump: the uiautomator XML decoder (real dumps from phones).
func FuzzParseDump(f *testing.F) {
	d := newDevice(f, android.Config{Scenario: "login"})
	f.Add([]byte(mustRun(f, d, "uiautomator dump /dev/tty")))
	f.Add([]byte(`<hierarchy><node bounds="[0,0][1,1]"/><node bounds="[2,2][3,3]"/></hierarchy>`))
	f.Add([]byte(`<node bounds="[a,b][c,d]">`))
	f.Fuzz(func(t *testing.T, data []byte) {
		root, _, err := ui.ParseDump(data)
		if err == nil {
			ui.WriteDump(io.Discard, root, 0, true)
			ui.Hit(root, root.B.Min)
		}
	})
}
