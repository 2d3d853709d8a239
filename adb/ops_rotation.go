package adb

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Rotation settings: the two system settings the window manager reads to
// decide how the display turns (AOSP frameworks/base
// services/core/java/com/android/server/wm/DisplayRotation.java,
// SettingsObserver and updateSettings: Settings.System.ACCELEROMETER_ROTATION
// 0 is USER_ROTATION_LOCKED, where Settings.System.USER_ROTATION, a
// Surface.ROTATION_* value, is the rotation; 1 is USER_ROTATION_FREE, the
// sensor decides). `settings put` works on every release this package
// supports; `wm user-rotation` only exists from Android 11
// (WindowManagerShellCommand).

// RotationSettings are a phone's rotation settings.
type RotationSettings struct {
	// Auto is accelerometer_rotation 1: the sensor turns the display.
	Auto bool
	// User is user_rotation (0-3), the rotation while Auto is off.
	User int
}

// ErrBadRotation: a rotation outside 0-3.
var ErrBadRotation = errors.New("adb: rotation out of range 0-3")

// RotationSettings reads accelerometer_rotation and user_rotation in one
// round trip. A setting the phone has no row for reads "null" (settings
// get): it counts as 0, the default DisplayRotation.updateSettings reads
// both with (auto-rotation off, ROTATION_0). Default timeout:
// DefaultQueryTimeout.
func (d *Device) RotationSettings(ctx context.Context) (RotationSettings, error) {
	parts, err := d.runParts(ctx, "settings get system accelerometer_rotation", "settings get system user_rotation")
	if err != nil {
		return RotationSettings{}, fmt.Errorf("rotation settings: %w", err)
	}
	s := RotationSettings{Auto: strings.TrimSpace(parts[0]) == "1"}
	if n, err := strconv.Atoi(strings.TrimSpace(parts[1])); err == nil && n >= 0 && n <= 3 {
		s.User = n
	}
	return s, nil
}

// SetRotationSettings writes s: user_rotation first, then
// accelerometer_rotation, so a phone going from auto to locked turns once,
// straight to User. The display turns afterwards, asynchronously (read it
// back with ScreenInfo). Serialized with inputs. Default timeout:
// DefaultInputTimeout.
func (d *Device) SetRotationSettings(ctx context.Context, s RotationSettings) error {
	if s.User < 0 || s.User > 3 {
		return fmt.Errorf("%w: %d", ErrBadRotation, s.User)
	}
	ctx, cancel := withDefaultTimeout(ctx, DefaultInputTimeout)
	defer cancel()
	auto := "0"
	if s.Auto {
		auto = "1"
	}
	cmd := "settings put system user_rotation " + strconv.Itoa(s.User) + " && settings put system accelerometer_rotation " + auto
	if _, err := d.shellScript(ctx, opInput, cmd); err != nil {
		return fmt.Errorf("set rotation: %w", err)
	}
	return nil
}
