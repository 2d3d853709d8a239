package tools

import (
	"context"
	"strconv"

	"golang.org/x/sync/errgroup"

	"github.com/adb-connector/adb-connector/adb"
)

// statusResult is android_device_status's result.
type statusResult struct {
	Model          string           `json:"model"`
	Manufacturer   string           `json:"manufacturer"`
	AndroidVersion string           `json:"android_version"`
	SDK            int              `json:"sdk"`
	SerialHint     string           `json:"serial_hint"`
	Screen         statusScreen     `json:"screen"`
	Battery        *statusBattery   `json:"battery,omitempty"` // absent when the device's dump is unreadable
	Foreground     statusForeground `json:"foreground"`
	Connection     string           `json:"connection"` // usb or tcp
}

// statusScreen is the screen as an agent taps it: Width and Height in the
// current orientation, the coordinate space of android_tap and of an
// unscaled android_screenshot.
type statusScreen struct {
	Width       int    `json:"width"`
	Height      int    `json:"height"`
	Density     int    `json:"density"`
	Rotation    int    `json:"rotation"`    // degrees: 0, 90, 180, 270
	Orientation string `json:"orientation"` // portrait or landscape
	On          bool   `json:"on"`
	Locked      *bool  `json:"locked"` // null when the device does not say
}

// statusBattery is the battery part of statusResult.
type statusBattery struct {
	Level   int    `json:"level"`   // percent
	Status  string `json:"status"`  // charging, discharging, full, not_charging, unknown
	Plugged string `json:"plugged"` // ac, usb, wireless, dock, none
}

// statusForeground is the app in front.
type statusForeground struct {
	Package  string `json:"package"`
	Activity string `json:"activity"`
}

func statusTool(t *Tools) *toolDef {
	return declare(t, decl[noArgs]{
		id: "android_device_status", title: "Android device status",
		props: map[string]any{}, readOnly: true, run: (*Tools).runStatus,
		description: "Read-only. Returns the bound phone's model, Android version, screen size (pixels in the current " +
			"orientation, the coordinate space of android_tap), density, rotation, whether the screen is on and locked, " +
			"battery, the app in the foreground and how it is connected (usb or tcp). Call it first, and whenever a " +
			"tool reports the device changed.",
	})
}

// runStatus reads the device's state in one round trip and its cached
// properties; how it is attached comes from tracking (Meta), not from a new
// query. A battery dump the parser cannot read leaves battery out rather
// than failing the call.
func (t *Tools) runStatus(ctx context.Context, inv *invocation, _ noArgs) (any, error) {
	d := inv.dev
	var (
		props map[string]string
		st    adb.Status
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) { props, err = d.Properties(gctx, false); return })
	g.Go(func() (err error) { st, err = d.Status(gctx); return })
	if err := g.Wait(); err != nil {
		return nil, err
	}
	w, h := st.Screen.Oriented()
	sdk, _ := strconv.Atoi(props["ro.build.version.sdk"])
	res := statusResult{
		Model:          props["ro.product.model"],
		Manufacturer:   props["ro.product.manufacturer"],
		AndroidVersion: props["ro.build.version.release"],
		SDK:            sdk,
		SerialHint:     inv.meta.Hint,
		Screen: statusScreen{
			Width: w, Height: h, Density: st.Screen.Density, Rotation: st.Screen.Rotation * 90,
			Orientation: "portrait", On: st.Power.ScreenOn,
		},
		Foreground: statusForeground{Package: st.Package, Activity: st.Activity},
		Connection: "usb",
	}
	if st.BatteryErr == nil {
		res.Battery = &statusBattery{Level: st.Battery.Percent(), Status: st.Battery.Status, Plugged: st.Battery.Plugged}
	} else {
		t.log.Debug("battery not readable; left out of the status", "device", inv.meta.Hint, "err", st.BatteryErr)
	}
	if w > h {
		res.Screen.Orientation = "landscape"
	}
	if st.Power.LockKnown {
		locked := st.Power.Locked
		res.Screen.Locked = &locked
	}
	if inv.meta.Transport == adb.TransportTCP {
		res.Connection = "tcp"
	}
	return res, nil
}
