package android

import (
	"github.com/adb-connector/adb-connector/emulator/android/timing"
)

// The timing model lives in package timing; these names keep the
// phone's API (Config.Profile, the emulator command's --profile) in one
// place for its users.

// Profile is the timing model of one kind of phone and link (timing.Profile).
type Profile = timing.Profile

// DefaultProfile is the profile a device gets when none is named.
const DefaultProfile = timing.DefaultProfile

// ErrUnknownProfile is returned for a timing profile name that is not one
// of ProfileNames.
var ErrUnknownProfile = timing.ErrUnknownProfile

// ProfileNames returns the names of the timing profiles, DefaultProfile first.
func ProfileNames() []string { return timing.ProfileNames() }

// ProfileByName returns the named timing profile; "" is DefaultProfile.
func ProfileByName(name string) (Profile, error) { return timing.ProfileByName(name) }

// Profile returns the device's timing profile.
func (d *Device) Profile() Profile { return d.p.Prof }
