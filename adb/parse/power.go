package parse

import (
	"regexp"
	"strings"
)

// PowerState is what `dumpsys power` says about the display.
type PowerState struct {
	// Wakefulness is Awake, Asleep, Dozing or Dreaming ("" when absent).
	Wakefulness string `json:"wakefulness,omitempty"`
	// ScreenOn is true when the device is Awake or Dreaming (screen saver),
	// or, without mWakefulness, when "Display Power: state=ON".
	ScreenOn bool `json:"screen_on"`
	// HoldingDisplaySuspendBlocker is nil when the field is absent.
	HoldingDisplaySuspendBlocker *bool `json:"holding_display_suspend_blocker,omitempty"`
}

var (
	wakefulnessRe  = regexp.MustCompile(`(?:^|\s)mWakefulness=(\w+)`)
	displayPowerRe = regexp.MustCompile(`Display Power: state=(\w+)`)
	suspendBlkRe   = regexp.MustCompile(`mHoldingDisplaySuspendBlocker=(true|false)`)
)

// Power parses `dumpsys power`.
func Power(out string) (PowerState, error) {
	var p PowerState
	if m := suspendBlkRe.FindStringSubmatch(out); m != nil {
		v := m[1] == "true"
		p.HoldingDisplaySuspendBlocker = &v
	}
	if m := wakefulnessRe.FindStringSubmatch(out); m != nil {
		p.Wakefulness = m[1]
		switch strings.ToLower(m[1]) {
		case "awake", "dreaming":
			p.ScreenOn = true
		case "asleep", "dozing":
		default:
			return PowerState{}, formatErr("dumpsys power", "unknown wakefulness "+clip(m[1]))
		}
		return p, nil
	}
	if m := displayPowerRe.FindStringSubmatch(out); m != nil {
		p.ScreenOn = m[1] == "ON"
		return p, nil
	}
	return PowerState{}, formatErr("dumpsys power", "no mWakefulness in "+clip(out))
}
