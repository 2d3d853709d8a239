package phonetest

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android"
)

// TestCommandCostBySDK pins what each command costs by Android version in
// every profile: from SDK 31 input, am, settings, wm, ime and pm are
// `cmd` calls, below it input (and, the dearer case, the others) start a
// VM; uiautomator, monkey and app_process always do. A change to the data
// must show up here and in docs/phone-timings.md.
func TestCommandCostBySDK(t *testing.T) {
	t.Parallel()
	type costs map[string]time.Duration
	tests := map[string]struct {
		shell           time.Duration
		sdk33, sdk30    costs
		vm              costs // the same on every SDK
		dumpsysWindow33 time.Duration
	}{
		"instant": {sdk33: costs{"input": 0, "am": 0, "pm": 0, "settings": 0, "wm": 0, "ime": 0},
			sdk30: costs{"input": 0}, vm: costs{"uiautomator": 0, "monkey": 0, "app_process": 0, "cmd": 0}},
		"pixel-usb": {shell: 10 * ms,
			sdk33: costs{"input": 30 * ms, "am": 50 * ms, "pm": 60 * ms, "settings": 25 * ms, "wm": 20 * ms, "ime": 25 * ms},
			sdk30: costs{"input": 200 * ms, "am": 200 * ms, "pm": 250 * ms, "settings": 200 * ms, "wm": 150 * ms, "ime": 150 * ms},
			vm:    costs{"uiautomator": 600 * ms, "monkey": 400 * ms, "app_process": 200 * ms, "cmd": 20 * ms, "ls": 0}, dumpsysWindow33: 150 * ms},
		"budget-usb": {shell: 15 * ms,
			sdk33: costs{"input": 90 * ms, "am": 150 * ms, "pm": 180 * ms, "settings": 75 * ms, "wm": 60 * ms, "ime": 75 * ms},
			sdk30: costs{"input": 600 * ms, "am": 600 * ms, "pm": 750 * ms, "settings": 600 * ms, "wm": 450 * ms, "ime": 450 * ms},
			vm:    costs{"uiautomator": 1500 * ms, "monkey": 1200 * ms, "app_process": 600 * ms, "cmd": 60 * ms, "ls": 0}, dumpsysWindow33: 450 * ms},
		"wifi": {shell: 10 * ms,
			sdk33: costs{"input": 30 * ms, "am": 50 * ms, "pm": 60 * ms, "settings": 25 * ms, "wm": 20 * ms, "ime": 25 * ms},
			sdk30: costs{"input": 200 * ms, "am": 200 * ms, "pm": 250 * ms, "settings": 200 * ms, "wm": 150 * ms, "ime": 150 * ms},
			vm:    costs{"uiautomator": 600 * ms, "monkey": 400 * ms, "app_process": 200 * ms, "cmd": 20 * ms, "ls": 0}, dumpsysWindow33: 150 * ms},
	}
	for name, w := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p, err := android.ProfileByName(name)
			if err != nil {
				t.Fatal(err)
			}
			if p.ShellStart != w.shell {
				t.Errorf("ShellStart = %v, want %v", p.ShellStart, w.shell)
			}
			for sdk, want := range map[int]costs{33: w.sdk33, 31: w.sdk33, 30: w.sdk30, 28: w.sdk30} {
				for cmd, c := range want {
					if got := p.CommandCost(sdk, "/system/bin/"+cmd, "x"); got != c {
						t.Errorf("SDK %d %s = %v, want %v", sdk, cmd, got, c)
					}
				}
			}
			for _, sdk := range []int{28, 33} {
				for cmd, c := range w.vm {
					if got := p.CommandCost(sdk, cmd); got != c {
						t.Errorf("SDK %d %s = %v, want %v", sdk, cmd, got, c)
					}
				}
			}
			if got := p.CommandCost(33, "dumpsys", "window"); got != w.dumpsysWindow33 {
				t.Errorf("dumpsys window = %v, want %v", got, w.dumpsysWindow33)
			}
		})
	}
}

// TestCommandCostByDeviceSDK: the phone Charges by its own SDK, which a
// scenario's or android.Config's properties may set: `input` is a VM start on
// Android 11, a `cmd` call on Android 13, after adbd's shell start.
func TestCommandCostByDeviceSDK(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for sdk, want := range map[string]time.Duration{"30": 10*ms + 200*ms, "33": 10*ms + 30*ms} {
			d := newDevice(t, android.Config{Profile: "pixel-usb", Properties: map[string]string{"ro.build.version.sdk": sdk}})
			d.ClearCommands()
			start := time.Now()
			if _, e, st := run(t, d, "input tap 1 1"); st != 0 {
				t.Fatalf("SDK %s: %d %s", sdk, st, e)
			}
			if took, cmds := time.Since(start), d.Commands(); took != want || len(cmds) != 1 || cmds[0].Charged != want {
				t.Errorf("SDK %s: input tap took %v (charged %+v), want %v", sdk, took, cmds, want)
			}
		}
	})
}
