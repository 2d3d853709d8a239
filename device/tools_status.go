package device

import (
	"context"
	"strconv"

	"golang.org/x/sync/errgroup"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/parse"
	"github.com/adb-connector/adb-connector/connector"
)

// StatusResult is android_device_status's result.
type StatusResult struct {
	Model          string           `json:"model"`
	Manufacturer   string           `json:"manufacturer"`
	AndroidVersion string           `json:"android_version"`
	SDK            int              `json:"sdk"`
	SerialHint     string           `json:"serial_hint"`
	Screen         StatusScreen     `json:"screen"`
	Battery        StatusBattery    `json:"battery"`
	Foreground     StatusForeground `json:"foreground"`
	Connection     string           `json:"connection"` // usb or tcp
}

// StatusScreen is the screen as an agent taps it: Width and Height in the
// current orientation, the coordinate space of android_tap and of an
// unscaled android_screenshot.
type StatusScreen struct {
	Width       int    `json:"width"`
	Height      int    `json:"height"`
	Density     int    `json:"density"`
	Rotation    int    `json:"rotation"`    // degrees: 0, 90, 180, 270
	Orientation string `json:"orientation"` // portrait or landscape
	On          bool   `json:"on"`
	Locked      *bool  `json:"locked"` // null when the device does not say
}

// StatusBattery is the battery part of StatusResult.
type StatusBattery struct {
	Level   int    `json:"level"`   // percent
	Status  string `json:"status"`  // charging, discharging, full, not_charging, unknown
	Plugged string `json:"plugged"` // ac, usb, wireless, dock, none
}

// StatusForeground is the app in front.
type StatusForeground struct {
	Package  string `json:"package"`
	Activity string `json:"activity"`
}

func statusTool(t *Tools) *toolDef {
	return &toolDef{
		tool: connector.Tool{
			ID:    "android_device_status",
			Title: "Android device status",
			Description: "Read-only. Returns the bound phone's model, Android version, screen size (pixels in the current " +
				"orientation, the coordinate space of android_tap), density, rotation, whether the screen is on and locked, " +
				"battery, the app in the foreground and how it is connected (usb or tcp). Call it first, and whenever a " +
				"tool reports the device changed.",
			InputSchema: map[string]any{
				"type":                 "object",
				"properties":           map[string]any{},
				"additionalProperties": false,
			},
			OutputSchema: map[string]any{"type": "object"},
		},
		needsDevice: true,
		run:         t.runStatus,
	}
}

// runStatus queries the device's parts concurrently (reads overlap on a
// device up to its adb read limit).
func (t *Tools) runStatus(ctx context.Context, inv *invocation) (any, error) {
	d := inv.dev
	var (
		props   map[string]string
		screen  adb.ScreenInfo
		power   adb.PowerState
		battery parse.BatteryState
		pkg     string
		act     string
		info    adb.DeviceInfo
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) { props, err = d.Properties(gctx, false); return })
	g.Go(func() (err error) { screen, err = d.ScreenInfo(gctx); return })
	g.Go(func() (err error) { power, err = d.Power(gctx); return })
	g.Go(func() (err error) { battery, err = d.Battery(gctx); return })
	g.Go(func() (err error) { pkg, act, err = d.ForegroundApp(gctx); return })
	g.Go(func() (err error) { info, err = d.Info(gctx); return })
	if err := g.Wait(); err != nil {
		return nil, err
	}
	t.screens.put(d.Key(), screen)
	w, h := screen.Oriented()
	sdk, _ := strconv.Atoi(props["ro.build.version.sdk"])
	res := StatusResult{
		Model:          props["ro.product.model"],
		Manufacturer:   props["ro.product.manufacturer"],
		AndroidVersion: props["ro.build.version.release"],
		SDK:            sdk,
		SerialHint:     SerialHint(d.Serial()),
		Screen: StatusScreen{
			Width: w, Height: h, Density: screen.Density, Rotation: screen.Rotation * 90,
			Orientation: "portrait", On: power.ScreenOn,
		},
		Battery:    StatusBattery{Level: battery.Percent(), Status: battery.Status, Plugged: battery.Plugged},
		Foreground: StatusForeground{Package: pkg, Activity: act},
		Connection: "usb",
	}
	if w > h {
		res.Screen.Orientation = "landscape"
	}
	if power.LockKnown {
		locked := power.Locked
		res.Screen.Locked = &locked
	}
	if info.Transport == adb.TransportTCP || (info.Transport == "" && isNetworkSerial(d.Serial())) {
		res.Connection = "tcp"
	}
	return res, nil
}
