package android

import (
	"github.com/adb-connector/adb-connector/emulator/android/devices"
	"github.com/adb-connector/adb-connector/emulator/android/model"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

// The scenario model lives in package ui; these are the names the
// phone's users (Config, the test harness, the emulator command) write.
type (
	// Scenario is a device's UI and canned data (ui.Scenario).
	Scenario = ui.Scenario
	// ScreenSpec is the physical display in portrait orientation (ui.ScreenSpec).
	ScreenSpec = ui.ScreenSpec
	// BatterySpec is the initial battery state (ui.BatterySpec).
	BatterySpec = ui.BatterySpec
	// Faults are failures real phones show (ui.Faults).
	Faults = ui.Faults
)

// NotificationSpec is a notification an app posts (model.NotificationSpec).
type NotificationSpec = model.NotificationSpec

// Touch is a gesture the touchscreen decoded (devices.Touch).
type Touch = devices.Touch

// AppProcessFunc runs what app_process starts (devices.AppProcessFunc).
type AppProcessFunc = devices.AppProcessFunc
