package android

import (
	"fmt"

	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

// Test and operator controls of the device model. All are safe for
// concurrent use.

// Foreground returns the package and fully qualified activity in front.
func (d *Device) Foreground() (pkg, activity string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.foreground()
}

// ScreenID returns the scenario screen id in front ("" while locked).
func (d *Device) ScreenID() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.st.locked {
		return ""
	}
	t := d.top()
	return t.screens[len(t.screens)-1]
}

// FieldText returns the text typed into the field with this resource-id
// on any screen ("" when none).
func (d *Device) FieldText(resourceID string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.fieldText(resourceID)
}

// Setting returns a `settings` value ("namespace/key"), ok false if unset.
func (d *Device) Setting(key string) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	v, ok := d.st.settings[key]
	return v, ok
}

// SetRotation sets the display rotation (0-3, Surface.ROTATION_*):
// screenshots, dumps and input coordinates follow it.
func (d *Device) SetRotation(r int) error {
	if r < 0 || r > 3 {
		return fmt.Errorf("android: rotation %d out of range 0-3", r)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.st.rotation = r
	d.st.settings["system/user_rotation"] = fmt.Sprint(r)
	d.changed()
	return nil
}

// Rotation returns the display rotation (0-3).
func (d *Device) Rotation() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.st.rotation
}

// SetScreenOn turns the display on or off (as POWER/WAKEUP/SLEEP keys do).
func (d *Device) SetScreenOn(on bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.st.screenOn = on
	if on {
		d.st.lastInput = d.now() // the screen timeout starts again
	}
	d.changed()
}

// ScreenOn reports whether the display is on.
func (d *Device) ScreenOn() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.st.screenOn
}

// SetLocked shows or dismisses the (insecure) keyguard. A locked device
// unlocks on an upward swipe or the MENU key.
func (d *Device) SetLocked(locked bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.st.locked = locked
	d.changed()
}

// Locked reports whether the keyguard is showing.
func (d *Device) Locked() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.st.locked
}

// SetBattery replaces the battery state `dumpsys battery` reports.
func (d *Device) SetBattery(b ui.BatterySpec) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.st.battery = b
}

// Scenario returns the device's scenario (read-only).
func (d *Device) Scenario() *ui.Scenario { return d.sc }
