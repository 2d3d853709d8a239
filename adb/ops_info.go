package adb

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/adb/parse"
)

// DefaultQueryTimeout bounds the typed read operations (properties, screen,
// power, battery, foreground app) when the context has no deadline.
const DefaultQueryTimeout = 15 * time.Second

// scriptSep separates the outputs of several commands run in one shell
// round trip.
const scriptSep = "--adbc-sep-7f3a--"

// runParts runs trusted command lines in one shell round trip and returns
// each one's stdout. The exit status of the script is ignored; each part is
// checked by its parser.
func (d *Device) runParts(ctx context.Context, cmds ...string) ([]string, error) {
	ctx, cancel := withDefaultTimeout(ctx, DefaultQueryTimeout)
	defer cancel()
	script := strings.Join(cmds, "; echo "+scriptSep+"; ")
	res, err := d.shortScript(ctx, script)
	if err != nil && !isExit(err) {
		return nil, err
	}
	parts := strings.Split(string(res.Stdout), scriptSep+"\n")
	if len(parts) != len(cmds) {
		return nil, fmt.Errorf("%w: expected %d outputs, got %d", ErrProtocol, len(cmds), len(parts))
	}
	return parts, nil
}

func isExit(err error) bool {
	_, ok := err.(*ExitError)
	return ok
}

// Properties returns the device's system properties (getprop). They are
// cached per device until tracking sees it leave state "device" or go away
// (with Config.NoTracking, until refresh); refresh forces a reload.
// Default timeout: DefaultQueryTimeout. The returned map is a copy.
func (d *Device) Properties(ctx context.Context, refresh bool) (map[string]string, error) {
	d.mu.Lock()
	cached := d.props
	d.mu.Unlock()
	if cached != nil && !refresh {
		return maps.Clone(cached), nil
	}
	ctx, cancel := withDefaultTimeout(ctx, DefaultQueryTimeout)
	defer cancel()
	res, err := d.shortScript(ctx, "getprop")
	if err != nil {
		return nil, fmt.Errorf("getprop: %w", err)
	}
	props, err := parse.Props(string(res.Stdout))
	if err != nil {
		return nil, fmt.Errorf("getprop: %w", err)
	}
	d.mu.Lock()
	d.props = props
	d.mu.Unlock()
	return maps.Clone(props), nil
}

// ScreenInfo is the display geometry.
type ScreenInfo struct {
	// Width and Height are the effective size in pixels in the natural
	// (rotation 0) orientation: the override size when set, else physical.
	Width, Height int
	// PhysicalWidth and PhysicalHeight are the panel's size.
	PhysicalWidth, PhysicalHeight int
	// Density is the effective density (override when set), in dpi.
	Density int
	// Rotation is 0-3 (quarter turns); RotationKnown is false when the
	// device did not say.
	Rotation      int
	RotationKnown bool
}

// Oriented returns the effective size in the current orientation, the frame
// input coordinates and screenshots use: Width and Height swapped on a
// quarter turn (parse.Size.Rotated's rule).
func (s ScreenInfo) Oriented() (w, h int) {
	d := parse.Size{Physical: &parse.Dim{W: s.Width, H: s.Height}}.Rotated(s.Rotation)
	return d.W, d.H
}

// ScreenInfo reads wm size, wm density and the rotation from dumpsys window
// in one round trip (and dumpsys input in a second one when the window dump
// does not give the rotation). Default timeout: DefaultQueryTimeout.
func (d *Device) ScreenInfo(ctx context.Context) (ScreenInfo, error) {
	ctx, cancel := withDefaultTimeout(ctx, DefaultQueryTimeout)
	defer cancel()
	seq := d.actions.Load()
	parts, err := d.runParts(ctx, "wm size", "wm density", "dumpsys window")
	if err != nil {
		return ScreenInfo{}, fmt.Errorf("screen info: %w", err)
	}
	return d.screenFrom(ctx, seq, parts[0], parts[1], parts[2])
}

// screenFrom builds ScreenInfo from the outputs of wm size, wm density and
// dumpsys window, asking dumpsys input when the window dump lacks the
// rotation. seq is ActionSeq before the outputs were read.
func (d *Device) screenFrom(ctx context.Context, seq uint64, wmSize, wmDensity, window string) (ScreenInfo, error) {
	size, err := parse.WMSize(wmSize)
	if err != nil {
		return ScreenInfo{}, fmt.Errorf("screen info: %w", err)
	}
	dens, err := parse.WMDensity(wmDensity)
	if err != nil {
		return ScreenInfo{}, fmt.Errorf("screen info: %w", err)
	}
	eff := size.Effective()
	si := ScreenInfo{
		Width: eff.W, Height: eff.H,
		PhysicalWidth: size.Physical.W, PhysicalHeight: size.Physical.H,
		Density: dens.Effective(),
	}
	// The touch path maps points with the latest geometry read (touch.go).
	defer func() { d.noteScreen(si, seq) }()
	if w, err := parse.Window(window); err == nil && w.RotationKnown {
		si.Rotation, si.RotationKnown = w.Rotation, true
		return si, nil
	}
	if in, err := d.runParts(ctx, "dumpsys input"); err == nil {
		if r, err := parse.InputRotation(in[0]); err == nil {
			si.Rotation, si.RotationKnown = r, true
		}
	}
	return si, nil
}

// PowerState says whether the screen is on and the keyguard is showing.
type PowerState struct {
	ScreenOn bool
	// Locked is true when the keyguard (lock screen) shows; LockKnown is
	// false when the device did not say.
	Locked    bool
	LockKnown bool
}

// Power reads dumpsys power and dumpsys window in one round trip. Default
// timeout: DefaultQueryTimeout.
func (d *Device) Power(ctx context.Context) (PowerState, error) {
	parts, err := d.runParts(ctx, "dumpsys power", "dumpsys window")
	if err != nil {
		return PowerState{}, fmt.Errorf("power: %w", err)
	}
	return powerFrom(parts[0], parts[1])
}

// powerFrom builds PowerState from dumpsys power and dumpsys window.
func powerFrom(power, window string) (PowerState, error) {
	p, err := parse.Power(power)
	if err != nil {
		return PowerState{}, fmt.Errorf("power: %w", err)
	}
	ps := PowerState{ScreenOn: p.ScreenOn}
	if w, err := parse.Window(window); err == nil && w.KeyguardKnown {
		ps.Locked, ps.LockKnown = w.KeyguardShowing && !w.KeyguardOccluded, true
	}
	return ps, nil
}

// Battery reads dumpsys battery. Default timeout: DefaultQueryTimeout.
func (d *Device) Battery(ctx context.Context) (parse.BatteryState, error) {
	parts, err := d.runParts(ctx, "dumpsys battery")
	if err != nil {
		return parse.BatteryState{}, fmt.Errorf("battery: %w", err)
	}
	return batteryFrom(parts[0])
}

func batteryFrom(out string) (parse.BatteryState, error) {
	b, err := parse.Battery(out)
	if err != nil {
		return parse.BatteryState{}, fmt.Errorf("battery: %w", err)
	}
	return b, nil
}

// ForegroundApp returns the package and activity in front, from dumpsys
// window (dumpsys activity as a fallback). Default timeout:
// DefaultQueryTimeout.
func (d *Device) ForegroundApp(ctx context.Context) (pkg, activity string, err error) {
	parts, err := d.runParts(ctx, "dumpsys window")
	if err != nil {
		return "", "", fmt.Errorf("foreground app: %w", err)
	}
	return d.foregroundFrom(ctx, parts[0])
}

// ForegroundSecure is ForegroundApp that also says whether the focused
// window forbids capture (FLAG_SECURE), from the same dumpsys window.
// Default timeout: DefaultQueryTimeout.
func (d *Device) ForegroundSecure(ctx context.Context) (pkg, activity string, secure bool, err error) {
	parts, err := d.runParts(ctx, "dumpsys window")
	if err != nil {
		return "", "", false, fmt.Errorf("foreground app: %w", err)
	}
	pkg, activity, err = d.foregroundFrom(ctx, parts[0])
	return pkg, activity, parse.FocusedWindowSecure(parts[0]), err
}

// foregroundFrom reads the focused app from dumpsys window, asking dumpsys
// activity when the window dump names none.
func (d *Device) foregroundFrom(ctx context.Context, window string) (pkg, activity string, err error) {
	if w, err := parse.Window(window); err == nil && w.FocusedPackage != "" {
		return w.FocusedPackage, w.FocusedActivity, nil
	}
	parts, err := d.runParts(ctx, "dumpsys activity activities")
	if err != nil {
		return "", "", fmt.Errorf("foreground app: %w", err)
	}
	pkg, activity, err = parse.TopActivity(parts[0])
	if err != nil {
		return "", "", fmt.Errorf("foreground app: %w", err)
	}
	return pkg, activity, nil
}

// Status is a device's state in one round trip: the screen, power, battery
// and foreground app that separate calls of ScreenInfo, Power, Battery and
// ForegroundApp would read with dumpsys window three times.
type Status struct {
	Screen ScreenInfo
	Power  PowerState
	// Battery is the zero value when BatteryErr is set: vendors print
	// dumpsys battery in shapes the parser may not know, and one unreadable
	// part must not fail the rest.
	Battery    parse.BatteryState
	BatteryErr error
	Package    string // foreground app
	Activity   string
	// KeyboardShown: the soft keyboard is up (dumpsys input_method).
	KeyboardShown bool
	// Secure: the focused window forbids capture (FLAG_SECURE): its
	// screenshots are black.
	Secure bool
}

// Status reads wm size, wm density, dumpsys window, dumpsys power, dumpsys
// battery and dumpsys input_method in one round trip (dumpsys input or activity only when
// the window dump lacks the rotation or the focused app). Default timeout:
// DefaultQueryTimeout.
func (d *Device) Status(ctx context.Context) (Status, error) {
	ctx, cancel := withDefaultTimeout(ctx, DefaultQueryTimeout)
	defer cancel()
	seq := d.actions.Load()
	parts, err := d.runParts(ctx, "wm size", "wm density", "dumpsys window", "dumpsys power", "dumpsys battery", "dumpsys input_method")
	if err != nil {
		return Status{}, fmt.Errorf("status: %w", err)
	}
	var st Status
	if st.Screen, err = d.screenFrom(ctx, seq, parts[0], parts[1], parts[2]); err != nil {
		return Status{}, err
	}
	if st.Power, err = powerFrom(parts[3], parts[2]); err != nil {
		return Status{}, err
	}
	st.Battery, st.BatteryErr = batteryFrom(parts[4])
	st.KeyboardShown, _ = parse.KeyboardShown(parts[5])
	st.Secure = parse.FocusedWindowSecure(parts[2])
	if st.Package, st.Activity, err = d.foregroundFrom(ctx, parts[2]); err != nil {
		return Status{}, err
	}
	return st, nil
}
