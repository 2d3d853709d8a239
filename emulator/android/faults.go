package android

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android/shell"
)

// FailDumpNotIdle makes the next n `uiautomator dump` runs (every one for
// n < 0; none for 0) wait for wait, then print "ERROR: could not get idle
// state." on stderr and exit 0 without writing a file, as DumpCommand does
// when UiAutomation.waitForIdle times out.
func (d *Device) FailDumpNotIdle(n int, wait time.Duration) {
	d.p.Lock()
	defer d.p.Unlock()
	d.p.Faults.DumpNotIdle, d.p.Faults.DumpWait = n, wait
}

// HangCommands makes commands hang until the host closes their stream
// (see Faults.Hang); no arguments clears the list.
func (d *Device) HangCommands(commands ...string) {
	d.p.Lock()
	defer d.p.Unlock()
	d.p.Faults.Hang = slices.Clone(commands)
}

func (d *Device) hangs(line string) bool {
	line = strings.TrimSpace(line)
	first, _, _ := strings.Cut(line, " ")
	return slices.ContainsFunc(d.p.Faults.Hang, func(h string) bool { return h == line || h == first })
}

// ShowANR covers the screen with the "isn't responding" dialog of pkg, as
// ActivityManager shows it for an app whose main thread is stuck: the dump
// holds the dialog window, the screenshot shows it over the dimmed app and
// `dumpsys window` names it as mCurrentFocus. "Close app" force-stops pkg,
// "Wait" dismisses the dialog. An empty pkg dismisses it.
func (d *Device) ShowANR(pkg string) {
	d.p.Lock()
	defer d.p.Unlock()
	d.p.State.ANR = pkg
	d.p.Changed()
}

// ANR returns the package whose ANR dialog is showing, "" for none.
func (d *Device) ANR() string {
	d.p.Lock()
	defer d.p.Unlock()
	return d.p.State.ANR
}

// SleepAndLock turns the screen off and locks the keyguard, as a phone
// does when its screen times out or its power button is pressed.
func (d *Device) SleepAndLock() {
	d.p.Lock()
	defer d.p.Unlock()
	d.p.SleepLocked(true)
}

// SleepAfterCommands turns the screen off and locks the keyguard once n
// more commands have run (0 cancels).
func (d *Device) SleepAfterCommands(n int) {
	d.p.Lock()
	defer d.p.Unlock()
	d.p.Faults.SleepAfter, d.p.Faults.Commands = n, 0
}

// applyFaults runs before each command line: screen timeout, scripted
// sleep, latency, hangs and pending failures. faulted reports that the
// command must not run and status is its exit status.
func (d *Device) applyFaults(ctx context.Context, line string, stderr io.Writer) (status int, faulted bool) {
	d.p.Lock()
	d.p.IdleLocked()
	d.p.Faults.Commands++
	if d.p.Faults.SleepAfter > 0 && d.p.Faults.Commands == d.p.Faults.SleepAfter+1 {
		d.p.SleepLocked(true)
	}
	lat := d.p.Faults.Latency
	fail := d.failNext > 0
	code := d.failCode
	if fail {
		d.failNext--
	}
	hang := d.hangs(line)
	d.p.Unlock()
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
