package adbtest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/emulator/android"
)

// TestProfileAppliedThroughADB runs commands through the real adb server
// on a "wifi" phone and checks that the timing model was consulted: each
// command log entry records what the profile charged, and the transport
// waited on the modelled link. No wall-clock threshold is asserted.
func TestProfileAppliedThroughADB(t *testing.T) {
	env := adbtest.Start(t, adbtest.Options{Profile: "wifi"})
	dev := env.Devices[0]
	p := dev.Android().Profile()
	if p.Name != "wifi" {
		t.Fatalf("profile %q, want wifi", p.Name)
	}
	img := dev.Android().Screenshot()
	tests := []struct {
		args []string
		line string
		want int64
	}{
		// Every stream pays adbd's shell start; input is a `cmd` call on
		// the default SDK 33.
		{[]string{"shell", "input", "tap", "10", "10"}, "input tap 10 10", int64(p.ShellStart + p.CommandCost(33, "input"))},
		{[]string{"exec-out", "screencap", "-p"}, "screencap -p", int64(p.ShellStart + p.CaptureCost(img.Rect.Dx(), img.Rect.Dy(), true))},
		{[]string{"shell", "getprop", "ro.serialno"}, "getprop ro.serialno", int64(p.ShellStart)},
	}
	for _, tt := range tests {
		before := dev.Server().LinkCharged()
		dev.Android().ClearCommands()
		out, err := env.Adb(append([]string{"-s", dev.Serial()}, tt.args...)...)
		if err != nil {
			t.Fatalf("adb %q: %v: %s", tt.args, err, out)
		}
		cmds := dev.Android().Commands()
		if len(cmds) != 1 || len(cmds[0].Argv) == 0 || strings.Join(cmds[0].Argv[0], " ") != tt.line {
			t.Fatalf("adb %q: commands %+v", tt.args, cmds)
		}
		if got := int64(cmds[0].Charged); got != tt.want {
			t.Errorf("%q: charged %v, want %v", tt.line, cmds[0].Charged, tt.want)
		}
		// At least the OPEN's round trip and the output's bytes on the way up.
		if got, min := dev.Server().LinkCharged()-before, p.Link.OpenCost(0)+p.Link.Up.Cost(len(out)); got < min {
			t.Errorf("%q: link charged %v, want at least %v", tt.line, got, min)
		}
	}
}

// TestProfileLinkPush: a pushed file's bytes pay the link's way down.
func TestProfileLinkPush(t *testing.T) {
	env := adbtest.Start(t, adbtest.Options{Profile: "wifi"})
	dev := env.Devices[0]
	data := make([]byte, 256<<10)
	src := filepath.Join(t.TempDir(), "blob")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	before := dev.Server().LinkCharged()
	if out, err := env.Adb("-s", dev.Serial(), "push", src, "/sdcard/blob"); err != nil {
		t.Fatalf("adb push: %v: %s", err, out)
	}
	link := dev.Android().Profile().Link
	if got, min := dev.Server().LinkCharged()-before, link.OpenCost(0)+link.Down.Cost(len(data)); got < min {
		t.Errorf("push of %d bytes: link charged %v, want at least %v", len(data), got, min)
	}
}

// TestProfileInstantChargesNothing: the default profile leaves the suite
// as fast as before.
func TestProfileInstantChargesNothing(t *testing.T) {
	env := adbtest.Start(t, adbtest.Options{})
	dev := env.Devices[0]
	if out, err := env.Adb("-s", dev.Serial(), "shell", "input tap 1 1; uiautomator dump /dev/tty >/dev/null; screencap -p | wc -c"); err != nil || strings.TrimSpace(out) == "" {
		t.Fatalf("adb shell: %q %v", out, err)
	}
	for _, c := range dev.Android().Commands() {
		if c.Charged != 0 {
			t.Errorf("%q charged %v on instant", c.Line, c.Charged)
		}
	}
	if got := dev.Server().LinkCharged(); got != 0 {
		t.Errorf("instant link charged %v", got)
	}
	if dev.Android().Profile().Name != android.DefaultProfile {
		t.Errorf("default profile %q", dev.Android().Profile().Name)
	}
}
