package phonetest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/adb-connector/adb-connector/emulator/adbd"
	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/emulator/android/shell"
)

const ms = time.Millisecond

// TestProfileModel pins each profile's computed costs: a change to the
// data in package timing must show up here (and in docs/phone-timings.md).
func TestProfileModel(t *testing.T) {
	t.Parallel()
	type want struct {
		tap, amStart, dumpWindow, dumpOther, ls time.Duration
		rawFHD, pngFHD                          time.Duration // 1080x2400
		dumpIdle                                time.Duration
		deflate10MB                             time.Duration // gzip -1
		open, write1MiB, read64KiB              time.Duration
		realTime                                bool
	}
	tests := map[string]want{
		"instant": {},
		"pixel-usb": {tap: 200 * ms, amStart: 200 * ms, dumpWindow: 150 * ms, dumpOther: 60 * ms,
			rawFHD: 80*ms + 103680*time.Microsecond, pngFHD: 80*ms + 622080*time.Microsecond, dumpIdle: time.Second, deflate10MB: 120 * ms,
			open: 1*ms + 1762*time.Nanosecond, write1MiB: 1*ms + 27595367*time.Nanosecond,
			read64KiB: 1*ms + 1725894*time.Nanosecond, realTime: true},
		"budget-usb": {tap: 600 * ms, amStart: 600 * ms, dumpWindow: 450 * ms, dumpOther: 180 * ms,
			rawFHD: 200*ms + 311040*time.Microsecond, pngFHD: 200*ms + 2643840*time.Microsecond, dumpIdle: time.Second, deflate10MB: 350 * ms,
			open: 2*ms + 3350*time.Nanosecond, write1MiB: 2*ms + 52431200*time.Nanosecond,
			read64KiB: 2*ms + 3279200*time.Nanosecond, realTime: true},
		"wifi": {tap: 200 * ms, amStart: 200 * ms, dumpWindow: 150 * ms, dumpOther: 60 * ms,
			rawFHD: 80*ms + 103680*time.Microsecond, pngFHD: 80*ms + 622080*time.Microsecond, dumpIdle: time.Second, deflate10MB: 120 * ms,
			open: 8*ms + 16750*time.Nanosecond, write1MiB: 8*ms + 262156*time.Microsecond,
			read64KiB: 8*ms + 16396*time.Microsecond, realTime: true},
	}
	if got, wantNames := android.ProfileNames(), []string{"instant", "budget-usb", "pixel-usb", "wifi"}; !slices.Equal(got, wantNames) {
		t.Fatalf("ProfileNames = %q, want %q", got, wantNames)
	}
	for name, w := range tests {
		t.Run(name, func(t *testing.T) {
			p, err := android.ProfileByName(name)
			if err != nil {
				t.Fatal(err)
			}
			check := func(what string, got, want time.Duration) {
				t.Helper()
				if got != want {
					t.Errorf("%s = %v, want %v", what, got, want)
				}
			}
			check("input tap", p.StartCost("input", "tap", "1", "2"), w.tap)
			check("/system/bin/am start", p.StartCost("/system/bin/am", "start", "-n", "a/.B"), w.amStart)
			check("dumpsys window", p.StartCost("dumpsys", "window", "windows"), w.dumpWindow)
			check("dumpsys -t 60 window", p.StartCost("dumpsys", "-t", "60", "window"), w.dumpOther) // "60" is read as the service
			check("dumpsys battery", p.StartCost("dumpsys", "battery"), w.dumpOther)
			check("ls", p.StartCost("ls", "/sdcard"), w.ls)
			check("screencap 1080x2400", p.CaptureCost(1080, 2400, false), w.rawFHD)
			check("screencap -p 1080x2400", p.CaptureCost(1080, 2400, true), w.pngFHD)
			check("dump idle", p.DumpIdle, w.dumpIdle)
			check("gzip -1 of 10 MB", p.DeflateCost(10_000_000, 1), w.deflate10MB)
			check("gzip -3 of 10 MB", p.DeflateCost(10_000_000, 3), w.deflate10MB)
			check("gzip -6 of 10 MB", p.DeflateCost(10_000_000, 6), 3*w.deflate10MB)
			check("gzip -9 of 10 MB", p.DeflateCost(10_000_000, 9), w.deflate10MB*18/5)
			check("link open of shell:input tap 1 2", p.Link.OpenCost(len("shell:input tap 1 2")), w.open)
			check("link device WRTE of 1 MiB", p.Link.WriteCost(1<<20), w.write1MiB)
			check("link host WRTE of 64 KiB", p.Link.ReadCost(64<<10), w.read64KiB)
			if p.RealTimeRecord != w.realTime {
				t.Errorf("RealTimeRecord = %v, want %v", p.RealTimeRecord, w.realTime)
			}
			if (name == "instant") != p.Link.IsZero() {
				t.Errorf("Link.IsZero = %v", p.Link.IsZero())
			}
		})
	}
}

func TestProfileByNameRefusesUnknown(t *testing.T) {
	t.Parallel()
	if p, err := android.ProfileByName(""); err != nil || p.Name != android.DefaultProfile {
		t.Fatalf(`ProfileByName("") = %q, %v; want the default`, p.Name, err)
	}
	for _, name := range []string{"bogus", "Pixel-USB", " wifi"} {
		_, err := android.ProfileByName(name)
		if !errors.Is(err, android.ErrUnknownProfile) {
			t.Fatalf("%q: err = %v, want ErrUnknownProfile", name, err)
		}
		for _, n := range android.ProfileNames() {
			if !strings.Contains(err.Error(), n) {
				t.Errorf("%q: error %q does not name %q", name, err, n)
			}
		}
	}
	if _, err := android.New(android.Config{Profile: "bogus"}); !errors.Is(err, android.ErrUnknownProfile) {
		t.Fatalf("New with a bad profile: %v", err)
	}
}

// TestProfileCharges runs commands on a pixel-usb phone in a synctest
// bubble: each command log entry records what the model charged, and the
// (fake) clock advanced by exactly that.
func TestProfileCharges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newDevice(t, android.Config{Profile: "pixel-usb"})
		p := d.Profile()
		w, h := d.Screenshot().Rect.Dx(), d.Screenshot().Rect.Dy()
		// Each line is one stream: adbd's shell start, then what it runs
		// (SDK 33: input and am are `cmd` calls).
		sh := p.ShellStart
		tests := []struct {
			line string
			want time.Duration
		}{
			{"input tap 10 10", sh + p.CommandCost(33, "input")},
			{"/system/bin/input keyevent 4 && input keyevent 3", sh + 2*p.CommandCost(33, "input")},
			{"screencap -p", sh + p.CaptureCost(w, h, true)},
			{"screencap", sh + p.CaptureCost(w, h, false)},
			{"screencap /sdcard/a.png", sh + p.CaptureCost(w, h, true)},
			{"uiautomator dump /dev/tty", sh + p.StartCost("uiautomator") + p.DumpIdle},
			{"dumpsys window windows", sh + p.StartCost("dumpsys", "window")}, // no pipeline: its os.Pipe blocks outside the bubble
			{"sh -c 'am start -n com.example.list/.ListActivity'", sh + p.CommandCost(33, "am")},
			{"ls /sdcard; echo hi; getprop ro.serialno", sh},
			{"screenrecord --time-limit 3 /sdcard/r.mp4", sh + 3*time.Second},
		}
		for _, tt := range tests {
			start := time.Now()
			d.ClearCommands()
			if _, stderr, status := run(t, d, tt.line); status != 0 {
				t.Fatalf("%q: status %d: %s", tt.line, status, stderr)
			}
			cmds := d.Commands()
			if len(cmds) != 1 || cmds[0].Charged != tt.want {
				t.Errorf("%q: charged %v, want %v", tt.line, cmds[0].Charged, tt.want)
			}
			if took := time.Since(start); took != tt.want {
				t.Errorf("%q: took %v of fake time, want %v", tt.line, took, tt.want)
			}
		}
	})
}

// TestProfileChargeCanceled: a closed stream ends the wait at once.
func TestProfileChargeCanceled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newDevice(t, android.Config{Profile: "budget-usb"})
		ctx, cancel := context.WithTimeout(t.Context(), 50*ms)
		defer cancel()
		start := time.Now()
		if status := d.Run(ctx, "uiautomator dump", strings.NewReader(""), nopWriter{}, nopWriter{}); status != shell.ExitCanceled {
			t.Fatalf("status %d, want %d", status, shell.ExitCanceled)
		}
		if took := time.Since(start); took != 50*ms {
			t.Fatalf("took %v, want the 50ms until cancel", took)
		}
	})
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }

func TestScenarioProfile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(profile string) {
		t.Helper()
		js := `{"name": "p", "profile": "` + profile + `", "screens": [{"id": "home", "package": "com.android.launcher3", "launcher": true}]}`
		if err := os.WriteFile(filepath.Join(dir, "scenario.json"), []byte(js), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("wifi")
	d := newDevice(t, android.Config{Scenario: dir})
	if got := d.Profile(); got.Name != "wifi" || got.Link != (adbd.Link{Up: got.Link.Up, Down: got.Link.Down}) || got.Link.IsZero() {
		t.Fatalf("scenario profile: got %q", got.Name)
	}
	if got := newDevice(t, android.Config{Scenario: dir, Profile: "budget-usb"}).Profile().Name; got != "budget-usb" {
		t.Fatalf("Config.Profile over the scenario's: got %q", got)
	}
	write("turbo")
	if _, err := android.New(android.Config{Scenario: dir}); !errors.Is(err, android.ErrUnknownProfile) {
		t.Fatalf("scenario with a bad profile: %v", err)
	}
}
