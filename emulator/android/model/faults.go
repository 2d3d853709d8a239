package model

import (
	"image"
	"slices"
	"strconv"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

// FaultState is the run-time side of Faults, guarded by the Phone's lock.
type FaultState struct {
	// Latency is what every command line and touchscreen write waits first
	// (android.Device.SetLatency).
	Latency     time.Duration
	DumpNotIdle int
	DumpWait    time.Duration
	Hang        []string
	SleepAfter  int
	Commands    int
}

func (d *Phone) initFaults() {
	f := d.Scenario.Faults
	d.Faults = FaultState{DumpNotIdle: f.DumpNotIdle, DumpWait: 10 * time.Second, Hang: slices.Clone(f.Hang), SleepAfter: f.SleepAfterCommands}
	if f.DumpIdleWaitMS > 0 {
		d.Faults.DumpWait = time.Duration(f.DumpIdleWaitMS) * time.Millisecond
	}
	d.State.ANR = f.ANR
}

// TakeDumpFault reports whether this dump fails, and how long it waits. The model is locked.
func (d *Phone) TakeDumpFault() (time.Duration, bool) {
	switch n := d.Faults.DumpNotIdle; {
	case n < 0:
		return d.Faults.DumpWait, true
	case n > 0:
		d.Faults.DumpNotIdle--
		return d.Faults.DumpWait, true
	}
	return 0, false
}

func (d *Phone) SleepLocked(lock bool) {
	d.State.ScreenOn = false
	d.State.Locked = d.State.Locked || lock
	d.Changed()
}

// IdleLocked turns the screen off once it has been idle for
// system/screen_off_timeout, unless global/stay_on_while_plugged_in holds
// the bit of the current power source (BatteryManager.BATTERY_PLUGGED_AC 1,
// USB 2), as PowerManagerService does. The keyguard locks when the scenario
// has one.
func (d *Phone) IdleLocked() {
	if !d.State.ScreenOn {
		return
	}
	if d.StayOnLocked() {
		return
	}
	ms, err := strconv.Atoi(d.State.Settings["system/screen_off_timeout"])
	if err != nil || ms <= 0 {
		return
	}
	if d.Now().Sub(d.State.LastInput) >= time.Duration(ms)*time.Millisecond {
		d.SleepLocked(d.Scenario.Locked)
	}
}

// StayOnLocked reports whether global/stay_on_while_plugged_in keeps the
// screen on with the current power source: PowerManagerService's mStayOn
// (BatteryManagerInternal.isPowered(mStayOnWhilePluggedInSetting)).
func (d *Phone) StayOnLocked() bool {
	stay, _ := strconv.Atoi(d.State.Settings["global/stay_on_while_plugged_in"])
	plug := PlugType(d.State.Battery)
	return plug != 0 && stay&plug != 0
}

// ANRDialog is the ANR dialog window in portrait scenario coordinates:
// AppNotRespondingDialog's title (android:id/alertTitle, "LABEL isn't
// responding") and its buttons android:id/aerr_close "Close app" and
// android:id/aerr_wait "Wait" (AOSP frameworks/base core/res layout
// app_anr_dialog.xml and strings anr_activity_application, aerr_close,
// aerr_wait).
func (d *Phone) ANRDialog() *ui.Element {
	w, h := d.Scenario.Screen.Width, d.Scenario.Screen.Height
	label := d.State.ANR
	if a, ok := d.Scenario.AppByPackage(d.State.ANR); ok {
		label = a.Label
	}
	box := image.Rect(w/12, h*3/8, w*11/12, h*5/8)
	rowH := box.Dy() / 4
	node := func(class, id, text string, r image.Rectangle, clickable bool) *ui.Element {
		return &ui.Element{Class: class, Package: "android", ResourceID: id, Text: text, B: r, Enabled: true, Clickable: clickable, Focusable: clickable}
	}
	title := node("android.widget.TextView", "android:id/alertTitle", label+" isn't responding", image.Rect(box.Min.X, box.Min.Y+rowH/2, box.Max.X, box.Min.Y+rowH*3/2), false)
	closeBtn := node("android.widget.Button", "android:id/aerr_close", "Close app", image.Rect(box.Min.X, box.Min.Y+rowH*2, box.Max.X, box.Min.Y+rowH*3), true)
	wait := node("android.widget.Button", "android:id/aerr_wait", "Wait", image.Rect(box.Min.X, box.Min.Y+rowH*3, box.Max.X, box.Max.Y), true)
	closeBtn.Key, wait.Key = "anr/close", "anr/wait"
	root := node("android.widget.FrameLayout", "", "", box, false)
	root.Color, root.HasColor = rgb(0xf8, 0xf8, 0xf8), true
	root.Children = []*ui.Element{title, closeBtn, wait}
	return root
}

// anrTapLocked handles a tap (portrait point) while the ANR dialog is
// showing: the dialog is modal, only its buttons react.
func (d *Phone) anrTapLocked(p image.Point) {
	n := ui.Hit(d.ANRDialog(), p)
	if n == nil {
		return
	}
	pkg := d.State.ANR
	d.State.ANR = ""
	if n.Key == "anr/close" {
		d.ForceStopLocked(pkg)
	}
	d.Changed()
}

func PlugType(b ui.BatterySpec) int {
	switch {
	case b.ACPowered:
		return 1
	case b.USBPowered:
		return 2
	}
	return 0
}
