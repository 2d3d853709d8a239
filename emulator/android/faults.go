package android

import (
	"context"
	"fmt"
	"image"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android/shell"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

// faultState is the run-time side of Faults, guarded by Device.mu.
type faultState struct {
	dumpNotIdle int
	dumpWait    time.Duration
	hang        []string
	sleepAfter  int
	commands    int
}

func (d *Device) initFaults() {
	f := d.sc.Faults
	d.faults = faultState{dumpNotIdle: f.DumpNotIdle, dumpWait: 10 * time.Second, hang: slices.Clone(f.Hang), sleepAfter: f.SleepAfterCommands}
	if f.DumpIdleWaitMS > 0 {
		d.faults.dumpWait = time.Duration(f.DumpIdleWaitMS) * time.Millisecond
	}
	d.st.anr = f.ANR
}

// FailDumpNotIdle makes the next n `uiautomator dump` runs (every one for
// n < 0; none for 0) wait for wait, then print "ERROR: could not get idle
// state." on stderr and exit 0 without writing a file, as DumpCommand does
// when UiAutomation.waitForIdle times out.
func (d *Device) FailDumpNotIdle(n int, wait time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.faults.dumpNotIdle, d.faults.dumpWait = n, wait
}

// takeDumpFault reports whether this dump fails, and how long it waits. d.mu held.
func (d *Device) takeDumpFault() (time.Duration, bool) {
	switch n := d.faults.dumpNotIdle; {
	case n < 0:
		return d.faults.dumpWait, true
	case n > 0:
		d.faults.dumpNotIdle--
		return d.faults.dumpWait, true
	}
	return 0, false
}

// HangCommands makes commands hang until the host closes their stream
// (see Faults.Hang); no arguments clears the list.
func (d *Device) HangCommands(commands ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.faults.hang = slices.Clone(commands)
}

func (d *Device) hangs(line string) bool {
	line = strings.TrimSpace(line)
	first, _, _ := strings.Cut(line, " ")
	return slices.ContainsFunc(d.faults.hang, func(h string) bool { return h == line || h == first })
}

// ShowANR covers the screen with the "isn't responding" dialog of pkg, as
// ActivityManager shows it for an app whose main thread is stuck: the dump
// holds the dialog window, the screenshot shows it over the dimmed app and
// `dumpsys window` names it as mCurrentFocus. "Close app" force-stops pkg,
// "Wait" dismisses the dialog. An empty pkg dismisses it.
func (d *Device) ShowANR(pkg string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.st.anr = pkg
	d.changed()
}

// ANR returns the package whose ANR dialog is showing, "" for none.
func (d *Device) ANR() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.st.anr
}

// SleepAndLock turns the screen off and locks the keyguard, as a phone
// does when its screen times out or its power button is pressed.
func (d *Device) SleepAndLock() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sleepLocked(true)
}

func (d *Device) sleepLocked(lock bool) {
	d.st.screenOn = false
	d.st.locked = d.st.locked || lock
	d.changed()
}

// SleepAfterCommands turns the screen off and locks the keyguard once n
// more commands have run (0 cancels).
func (d *Device) SleepAfterCommands(n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.faults.sleepAfter, d.faults.commands = n, 0
}

// idleLocked turns the screen off once it has been idle for
// system/screen_off_timeout, unless global/stay_on_while_plugged_in holds
// the bit of the current power source (BatteryManager.BATTERY_PLUGGED_AC 1,
// USB 2), as PowerManagerService does. The keyguard locks when the scenario
// has one.
func (d *Device) idleLocked() {
	if !d.st.screenOn {
		return
	}
	if d.stayOnLocked() {
		return
	}
	ms, err := strconv.Atoi(d.st.settings["system/screen_off_timeout"])
	if err != nil || ms <= 0 {
		return
	}
	if d.now().Sub(d.st.lastInput) >= time.Duration(ms)*time.Millisecond {
		d.sleepLocked(d.sc.Locked)
	}
}

// stayOnLocked reports whether global/stay_on_while_plugged_in keeps the
// screen on with the current power source: PowerManagerService's mStayOn
// (BatteryManagerInternal.isPowered(mStayOnWhilePluggedInSetting)).
func (d *Device) stayOnLocked() bool {
	stay, _ := strconv.Atoi(d.st.settings["global/stay_on_while_plugged_in"])
	plug := plugType(d.st.battery)
	return plug != 0 && stay&plug != 0
}

// applyFaults runs before each command line: screen timeout, scripted
// sleep, latency, hangs and pending failures. faulted reports that the
// command must not run and status is its exit status.
func (d *Device) applyFaults(ctx context.Context, line string, stderr io.Writer) (status int, faulted bool) {
	d.mu.Lock()
	d.idleLocked()
	d.faults.commands++
	if d.faults.sleepAfter > 0 && d.faults.commands == d.faults.sleepAfter+1 {
		d.sleepLocked(true)
	}
	lat := d.latency
	fail := d.failNext > 0
	code := d.failCode
	if fail {
		d.failNext--
	}
	hang := d.hangs(line)
	d.mu.Unlock()
	if !shell.SleepCtx(ctx, lat) {
		return shell.ExitCanceled, true
	}
	if hang {
		<-ctx.Done()
		return shell.ExitCanceled, true
	}
	if fail {
		fmt.Fprintf(stderr, "%s: injected failure\n", shell.ShellName)
		return code, true
	}
	return 0, false
}

// anrDialog is the ANR dialog window in portrait scenario coordinates:
// AppNotRespondingDialog's title (android:id/alertTitle, "LABEL isn't
// responding") and its buttons android:id/aerr_close "Close app" and
// android:id/aerr_wait "Wait" (AOSP frameworks/base core/res layout
// app_anr_dialog.xml and strings anr_activity_application, aerr_close,
// aerr_wait).
func (d *Device) anrDialog() *ui.Element {
	w, h := d.sc.Screen.Width, d.sc.Screen.Height
	label := d.st.anr
	if a, ok := d.sc.AppByPackage(d.st.anr); ok {
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
func (d *Device) anrTapLocked(p image.Point) {
	n := ui.Hit(d.anrDialog(), p)
	if n == nil {
		return
	}
	pkg := d.st.anr
	d.st.anr = ""
	if n.Key == "anr/close" {
		d.forceStopLocked(pkg)
	}
	d.changed()
}
