package tools

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/emulator/android"
)

func TestDeviceStatusOnVirtualPhone(t *testing.T) {
	e := newToolsEnv(t, 2, nil)
	ph := e.device(0).Android()
	locked := func(b bool) *bool { return &b }

	tests := []struct {
		name  string
		setup func(t *testing.T)
		want  func(fgPkg, fgAct string) statusResult
	}{
		{
			name:  "launcher portrait",
			setup: func(t *testing.T) { ph.SetBattery(android.BatterySpec{Level: 57, USBPowered: true}) },
			want: func(pkg, act string) statusResult {
				return statusResult{
					Model: "Pixel 6", Manufacturer: "Google", AndroidVersion: "13", SDK: 33,
					SerialHint: hintOf(e.device(0).Serial()),
					Screen: statusScreen{Width: 720, Height: 1280, Density: 320, Rotation: 0, Orientation: "portrait",
						On: true, Locked: locked(false)},
					Battery:    &statusBattery{Level: 57, Status: "charging", Plugged: "usb"},
					Foreground: statusForeground{Package: pkg, Activity: act},
					Connection: "tcp",
				}
			},
		},
		{
			name: "landscape locked on battery",
			setup: func(t *testing.T) {
				if err := ph.SetRotation(1); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { ph.SetRotation(0) })
				ph.SetLocked(true)
				t.Cleanup(func() { ph.SetLocked(false) })
				ph.SetBattery(android.BatterySpec{Level: 12})
			},
			want: func(pkg, act string) statusResult {
				return statusResult{
					Model: "Pixel 6", Manufacturer: "Google", AndroidVersion: "13", SDK: 33,
					SerialHint: hintOf(e.device(0).Serial()),
					Screen: statusScreen{Width: 1280, Height: 720, Density: 320, Rotation: 90, Orientation: "landscape",
						On: true, Locked: locked(true)},
					Battery:    &statusBattery{Level: 12, Status: "discharging", Plugged: "none"},
					Foreground: statusForeground{Package: pkg, Activity: act},
					Connection: "tcp",
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.setup(t)
			var got statusResult
			mustOK(t, e.call(t, t.Context(), devChannel(0), "android_device_status", `{}`, "", nil), &got)
			pkg, act := ph.Foreground()
			want := tc.want(pkg, act)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
			if got.Foreground.Package == "" {
				t.Error("no foreground package")
			}
		})
	}

	t.Run("serial never in result", func(t *testing.T) {
		a := e.call(t, t.Context(), devChannel(0), "android_device_status", `{}`, "", nil)
		mustOK(t, a, nil)
		if serial := e.device(0).Serial(); strings.Contains(string(a.Result), serial) {
			t.Errorf("result holds the full serial %q: %s", serial, a.Result)
		}
	})

	t.Run("unbound channel", func(t *testing.T) {
		a := e.call(t, t.Context(), "cch_nobody", "android_device_status", `{}`, "", nil)
		if a.Err == nil || a.Err.Code != connector.CodeConnectionNotAuthenticated {
			t.Fatalf("ack = %+v, want connection_not_authenticated", a)
		}
	})

	t.Run("offline device", func(t *testing.T) {
		e.waitOffline(t, e.device(1))
		for _, tool := range []string{"android_device_status", "android_screenshot", "android_tap"} {
			args := `{}`
			if tool == "android_tap" {
				args = `{"x":1,"y":1}`
			}
			a := e.call(t, t.Context(), devChannel(1), tool, args, "", nil)
			if a.Err == nil || a.Err.Code != CodeDeviceOffline {
				t.Errorf("%s on offline device: ack = %+v, want device_offline", tool, a)
			}
		}
	})
}
