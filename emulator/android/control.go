package android

import (
	"fmt"
	"image"

	"github.com/adb-connector/adb-connector/emulator/android/model"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

// Test and operator controls of the device model. All are safe for
// concurrent use.

// Foreground returns the package and fully qualified activity in front.
func (d *Device) Foreground() (pkg, activity string) {
	d.p.Lock()
	defer d.p.Unlock()
	return d.p.Foreground()
}

// ScreenID returns the scenario screen id in front ("" while locked).
func (d *Device) ScreenID() string {
	d.p.Lock()
	defer d.p.Unlock()
	if d.p.State.Locked {
		return ""
	}
	t := d.p.Top()
	return t.Screens[len(t.Screens)-1]
}

// FieldText returns the text typed into the field with this resource-id
// on any screen ("" when none).
func (d *Device) FieldText(resourceID string) string {
	d.p.Lock()
	defer d.p.Unlock()
	return d.p.FieldText(resourceID)
}

// Setting returns a `settings` value ("namespace/key"), ok false if unset.
func (d *Device) Setting(key string) (string, bool) {
	d.p.Lock()
	defer d.p.Unlock()
	v, ok := d.p.State.Settings[key]
	return v, ok
}

// SetRotation sets the display rotation (0-3, Surface.ROTATION_*):
// screenshots, dumps and input coordinates follow it.
func (d *Device) SetRotation(r int) error {
	if r < 0 || r > 3 {
		return fmt.Errorf("android: rotation %d out of range 0-3", r)
	}
	d.p.Lock()
	defer d.p.Unlock()
	d.p.State.Rotation = r
	d.p.State.Settings["system/user_rotation"] = fmt.Sprint(r)
	d.p.Changed()
	return nil
}

// Rotation returns the display rotation (0-3).
func (d *Device) Rotation() int {
	d.p.Lock()
	defer d.p.Unlock()
	return d.p.State.Rotation
}

// SetScreenOn turns the display on or off (as POWER/WAKEUP/SLEEP keys do).
func (d *Device) SetScreenOn(on bool) {
	d.p.Lock()
	defer d.p.Unlock()
	d.p.State.ScreenOn = on
	if on {
		d.p.State.LastInput = d.p.Now() // the screen timeout starts again
	}
	d.p.Changed()
}

// ScreenOn reports whether the display is on.
func (d *Device) ScreenOn() bool {
	d.p.Lock()
	defer d.p.Unlock()
	return d.p.State.ScreenOn
}

// SetLocked shows or dismisses the (insecure) keyguard. A locked device
// unlocks on an upward swipe or the MENU key.
func (d *Device) SetLocked(locked bool) {
	d.p.Lock()
	defer d.p.Unlock()
	d.p.State.Locked = locked
	d.p.Changed()
}

// Locked reports whether the keyguard is showing.
func (d *Device) Locked() bool {
	d.p.Lock()
	defer d.p.Unlock()
	return d.p.State.Locked
}

// SetBattery replaces the battery state `dumpsys battery` reports.
func (d *Device) SetBattery(b ui.BatterySpec) {
	d.p.Lock()
	defer d.p.Unlock()
	d.p.State.Battery = b
}

// Scenario returns the device's scenario (read-only).
func (d *Device) Scenario() *ui.Scenario { return d.p.Scenario }

// PostNotification posts n (as NotificationManager.notify would); the
// newest is printed first, as NotificationManagerService keeps its list.
func (d *Device) PostNotification(n NotificationSpec) {
	d.p.Lock()
	defer d.p.Unlock()
	d.p.State.NotifID++
	d.p.State.Notifications = append([]model.Notification{{NotificationSpec: n, ID: d.p.State.NotifID, Posted: d.p.Now()}}, d.p.State.Notifications...)
	d.p.Changed()
}

// ShadeOpen reports whether the notification shade is pulled down.
func (d *Device) ShadeOpen() bool {
	d.p.Lock()
	defer d.p.Unlock()
	return d.p.State.ShadeOpen
}

// SetEncodeEveryCapture switches Config.EncodeEveryCapture: on, every
// `screencap -p` encodes a fresh PNG as a phone does; off, the PNG of an
// unchanged screen comes from a cache.
func (d *Device) SetEncodeEveryCapture(on bool) {
	d.p.Lock()
	defer d.p.Unlock()
	d.p.EncodeEvery = on
}

// Screenshot returns the current frame as the device would capture it.
func (d *Device) Screenshot() *image.RGBA {
	d.p.Lock()
	defer d.p.Unlock()
	img := d.p.ScreenshotLocked()
	out := image.NewRGBA(img.Rect)
	copy(out.Pix, img.Pix)
	return out
}

// LogAs appends a line to the device log as pkg's process would.
func (d *Device) LogAs(pkg string, level byte, tag, msg string) {
	d.p.Lock()
	defer d.p.Unlock()
	d.p.LogApp(pkg, level, tag, msg)
}

// Log appends a line to the device log as an app would: the main buffer,
// system_server's pid (kept for the tests that read it).
func (d *Device) Log(level byte, tag, msg string) {
	d.p.Lock()
	defer d.p.Unlock()
	d.p.AppendLog(model.LogEntry{Time: d.p.Now(), PID: model.SystemServerPID, TID: 890, UID: 10100, LID: model.LogMain, Level: level, Tag: tag, Msg: msg})
}

// SetAppProcess sets what runs `app_process` (Config.AppProcess); nil
// makes it abort.
func (d *Device) SetAppProcess(fn AppProcessFunc) { d.dv.SetAppProcess(fn) }

// SetUiAutomationHeld says whether another owner (uiautomator2, Appium)
// holds the UiAutomation slot; Config.UiAutomationHeld at start.
func (d *Device) SetUiAutomationHeld(held bool) { d.dv.SetUiAutomationHeld(held) }

// HelperConnected reports whether a helper holds the UiAutomation slot.
func (d *Device) HelperConnected() bool { return d.dv.HelperConnected() }

// Clipboard returns the primary clip's text (what the helper set).
func (d *Device) Clipboard() string { return d.dv.Clipboard() }
