package parse

import (
	"strconv"
	"strings"
)

// BatteryState is the state printed by `dumpsys battery`.
type BatteryState struct {
	Level int `json:"level"`
	Scale int `json:"scale"`
	// Status is charging, discharging, full, not_charging or unknown.
	Status string `json:"status"`
	// Plugged is ac, usb, wireless, dock or none.
	Plugged string `json:"plugged"`
	// Temperature in degrees Celsius (dumpsys prints tenths).
	Temperature float64 `json:"temperature_c"`
	// Health is good, overheat, dead, over_voltage, failure, cold or unknown.
	Health  string `json:"health"`
	Present bool   `json:"present"`
	// VoltageMV is the battery voltage in millivolts (0 when absent).
	VoltageMV  int    `json:"voltage_mv,omitempty"`
	Technology string `json:"technology,omitempty"`
	// UpdatesStopped is true when `dumpsys battery set/unplug` froze the values.
	UpdatesStopped bool `json:"updates_stopped,omitempty"`
}

// Percent is the level as a percentage of scale (scale 100 when unknown).
func (b BatteryState) Percent() int {
	if b.Scale <= 0 || b.Scale == 100 {
		return b.Level
	}
	return b.Level * 100 / b.Scale
}

// BatteryManager constants (android.os.BatteryManager).
var (
	batteryStatus = map[int]string{1: "unknown", 2: "charging", 3: "discharging", 4: "not_charging", 5: "full"}
	batteryHealth = map[int]string{1: "unknown", 2: "good", 3: "overheat", 4: "dead", 5: "over_voltage", 6: "failure", 7: "cold"}
)

// Battery parses `dumpsys battery`: the keys that AOSP
// frameworks/base/services/core/java/com/android/server/BatteryService.java
// dumpInternal prints, indented two spaces, after "Current Battery Service
// state:". Vendor builds mix in lines of their own, unindented or indented
// one space, before, between and after the standard keys (Samsung prints
// "FEATURE_WIRELESS_FAST_CHARGER_CONTROL: true", "LLB CAL: ...", then
// "[EventLogBuffer]" sections that repeat "level:" in other forms): unknown
// lines are skipped, and the first value of each standard key wins.
func Battery(out string) (BatteryState, error) {
	b := BatteryState{Scale: 100, Status: "unknown", Health: "unknown", Plugged: "none"}
	in, seenLevel := false, false
	seen := map[string]bool{}
	for _, raw := range splitLines(out) {
		line := strings.TrimSpace(raw)
		if !in {
			if line == "Current Battery Service state:" {
				in = true
			}
			continue
		}
		if strings.HasPrefix(line, "(UPDATES STOPPED") {
			b.UpdatesStopped = true
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok || seen[key] {
			continue
		}
		seen[key] = true
		val = strings.TrimSpace(val)
		num, numErr := strconv.Atoi(val)
		switch key {
		case "AC powered", "USB powered", "Wireless powered", "Dock powered":
			if val == "true" && b.Plugged == "none" { // the first one: AC, USB, wireless, dock
				b.Plugged = strings.ToLower(strings.TrimSuffix(key, " powered"))
			}
		case "level":
			if numErr != nil || num < 0 {
				return BatteryState{}, formatErr("dumpsys battery", "bad level "+clip(val))
			}
			b.Level, seenLevel = num, true
		case "scale":
			if numErr == nil && num > 0 {
				b.Scale = num
			}
		case "status":
			if s, ok := batteryStatus[num]; ok && numErr == nil {
				b.Status = s
			}
		case "health":
			if h, ok := batteryHealth[num]; ok && numErr == nil {
				b.Health = h
			}
		case "present":
			b.Present = val == "true"
		case "temperature":
			if numErr == nil {
				b.Temperature = float64(num) / 10
			}
		case "voltage":
			if numErr == nil {
				b.VoltageMV = num
			}
		case "technology":
			b.Technology = val
		}
	}
	if !in {
		return BatteryState{}, formatErr("dumpsys battery", "no battery state in "+clip(out))
	}
	if !seenLevel {
		return BatteryState{}, formatErr("dumpsys battery", "no level")
	}
	return b, nil
}
