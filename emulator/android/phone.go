package android

import (
	"slices"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android/devices"
	"github.com/adb-connector/adb-connector/emulator/android/model"
	"github.com/adb-connector/adb-connector/emulator/android/services"
	"github.com/adb-connector/adb-connector/emulator/android/shell"
)

// The device as its shell's commands see it (shell.Phone).
var _ shell.Phone = (*Device)(nil)

// Now is the phone's clock (Config.Now).
func (d *Device) Now() time.Time { return d.p.Now() }

// dev is the device a command of this package runs on.
func dev(c *shell.Ctx) *Device { return c.Phone.(*Device) }

// WhichPath is the directory a phone's $PATH finds each modelled command
// in: every one of them is in /system/bin.
func (d *Device) WhichPath(name string) (string, bool) {
	if strings.HasPrefix(name, "__") || strings.Contains(name, "/") {
		return "", false
	}
	if _, ok := d.command(name); ok || slices.Contains(shellBuiltinTools, name) {
		return "/system/bin/" + name, true
	}
	return "", false
}

// shellBuiltinTools are commands mksh runs as builtins that also exist as
// toybox binaries in /system/bin (so `which` finds them).
var shellBuiltinTools = []string{"[", "test", "pwd", "kill"}

// The device as the service commands see it (services.Phone).
var _ services.Phone = (*Device)(nil)

// Model is the phone's model, which the command rooms read and change
// under its lock.
func (d *Device) Model() *model.Phone { return d.p }

// CommandFunc is the device command name runs on this phone (the dispatch
// table's, as the shell finds it).
func (d *Device) CommandFunc(name string) (func(*shell.Ctx) int, bool) {
	fn, ok := d.command(name)
	return fn, ok
}

// The device as its devices' commands see it (devices.Phone).
var _ devices.Phone = (*Device)(nil)

// Devices are the phone's devices (touchscreen, capture, app_process).
func (d *Device) Devices() *devices.Devices { return d.dv }
