package android

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"time"

	"github.com/adb-connector/adb-connector/emulator/adbd"
	"github.com/adb-connector/adb-connector/emulator/android/devices"
	"github.com/adb-connector/adb-connector/emulator/android/model"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
	"github.com/adb-connector/adb-connector/emulator/android/vfs"
)

// Config describes one virtual device. The zero value is usable: a
// "Pixel 6"-like phone on Android 13 (SDK 33) showing the "launcher"
// scenario.
type Config struct {
	// Serial is ro.serialno. Default "VIRT00000001".
	Serial string
	// Model is ro.product.model. Default "Pixel 6".
	Model string
	// Scenario is the name of an embedded scenario ("launcher", "login",
	// "list") or a directory holding a scenario.json. Default "launcher".
	Scenario string
	// Product, Device and Manufacturer are ro.product.name/device/
	// manufacturer. Defaults "oriole", "oriole", "Google".
	Product, Device, Manufacturer string
	// Release and SDK are ro.build.version.release/sdk. Defaults "13", 33.
	// SDK >= 28 makes raw screencap output carry a 16-byte header; SDK >= 29
	// keeps the shell from writing /dev/input nodes (selinux.go); SDK >= 31
	// prices input, am, settings, wm, ime and pm as `cmd` calls (package timing).
	Release string
	SDK     int
	// Screen overrides the scenario's physical display size and density
	// (portrait); the scenario's layout is scaled to it. Zero fields keep
	// the scenario's values. A scenario's pinned `wm size` or `wm density`
	// output wins over both, so the pixels agree with what it prints.
	Screen ui.ScreenSpec
	// Properties are extra or overriding getprop values. Precedence, lowest
	// first: defaults, the scenario's properties, the fields above when set,
	// Properties.
	Properties map[string]string
	// Logger receives debug logs of commands run. Default: discard.
	Logger *slog.Logger
	// Now is the clock (logcat times, file mtimes). Default time.Now.
	Now func() time.Time
	// RealTimeRecord makes screenrecord block for its --time-limit, as on
	// a phone. Default false: it returns as soon as the file is written.
	RealTimeRecord bool
	// EncodeEveryCapture makes `screencap -p` encode a fresh PNG on every
	// call, as a phone does. Default false: the PNG of an unchanged screen
	// is encoded once and served from a cache (much faster than a phone).
	// SetEncodeEveryCapture changes it at run time.
	EncodeEveryCapture bool
	// Profile names the timing profile (ProfileNames): what commands,
	// captures and the link cost, as on a real phone. Default: the
	// scenario's "profile", else "instant" (no cost). An unknown name is
	// an error from New.
	Profile string
	// Rooted models `adb root` on a userdebug build (or a rooted phone):
	// the shell runs as uid 0 in u:r:su:s0 and SELinux lets it write the
	// /dev/input nodes on any SDK. Default false: the shell is uid 2000 in
	// u:r:shell:s0, which may write them only on SDK 28 and earlier
	// (selinux.go). A scenario's "rooted" sets it too.
	Rooted bool
	// NoGzip models a phone without toybox gzip, gunzip and zcat, as
	// before Android 9 (an SDK below 28 implies it): the shell answers
	// "inaccessible or not found", status 127. Default false. A scenario's
	// "no_gzip" sets it too.
	NoGzip bool
	// Timing, when set, is the timing profile itself, and Profile is
	// ignored: a test's own numbers (say a link slow enough, or a PNG
	// encode dear enough, to make one choice certain) without a named
	// profile.
	Timing *Profile
	// AppProcess runs what `app_process` starts (the connector's phone
	// helper) on the host: the harness gives phonefw.Run. Nil: app_process
	// aborts, as on a phone where the helper cannot start.
	AppProcess AppProcessFunc
	// UiAutomationHeld models another owner (uiautomator2, Appium) holding
	// the phone's one UiAutomation slot: the helper's connect and
	// `uiautomator dump` are refused. SetUiAutomationHeld changes it.
	UiAutomationHeld bool
}

// Device is one virtual Android device. It implements adbd.Backend and is
// safe for concurrent use: every exported method may be called from any
// goroutine, and shell commands of concurrent streams serialise on the
// device state, not on each other.
type Device struct {
	p   *model.Phone // the model and its lock
	cfg Config

	dv *devices.Devices

	// Guarded by the model's lock.
	cmdlog   commandLog
	failNext int
	failCode int
}

var _ adbd.Backend = (*Device)(nil)

// New builds a device from cfg, loading its scenario.
func New(cfg Config) (*Device, error) {
	explicit := map[string]string{}
	for k, v := range map[string]string{"ro.serialno": cfg.Serial, "ro.product.model": cfg.Model, "ro.product.name": cfg.Product,
		"ro.product.device": cfg.Device, "ro.product.manufacturer": cfg.Manufacturer, "ro.build.version.release": cfg.Release} {
		if v != "" {
			explicit[k] = v
		}
	}
	if cfg.SDK != 0 {
		explicit["ro.build.version.sdk"] = strconv.Itoa(cfg.SDK)
	}
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&cfg.Serial, "VIRT00000001")
	def(&cfg.Model, "Pixel 6")
	def(&cfg.Scenario, "launcher")
	def(&cfg.Product, "oriole")
	def(&cfg.Device, "oriole")
	def(&cfg.Manufacturer, "Google")
	def(&cfg.Release, "13")
	if cfg.SDK == 0 {
		cfg.SDK = 33
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	sc, err := ui.LoadScenario(cfg.Scenario)
	if err != nil {
		return nil, fmt.Errorf("android: %w", err)
	}
	pname := cfg.Profile
	if pname == "" {
		pname = sc.Profile
	}
	prof, err := ProfileByName(pname)
	if cfg.Timing != nil {
		prof, err = *cfg.Timing, nil
	}
	if err != nil {
		return nil, fmt.Errorf("android: %w", err)
	}
	screen := sc.Screen
	if cfg.Screen.Width > 0 && cfg.Screen.Height > 0 {
		screen.Width, screen.Height = cfg.Screen.Width, cfg.Screen.Height
	}
	if cfg.Screen.Density > 0 {
		screen.Density = cfg.Screen.Density
	}
	p := model.New(model.Options{Log: cfg.Logger, Now: cfg.Now, Scenario: sc, Profile: prof, Screen: screen, EncodeEveryCapture: cfg.EncodeEveryCapture})
	d := &Device{p: p, cfg: cfg}
	props := buildProps(cfg, sc, p.Screen, explicit)
	// The SDK every version check reads is the phone's property, which a
	// scenario's properties or Config.Properties may have set.
	if sdk, err := strconv.Atoi(props["ro.build.version.sdk"]); err == nil && sdk > 0 {
		d.cfg.SDK = sdk
	}
	d.cmdlog.changed = make(chan struct{})
	p.Boot(props, d.cfg.SDK)
	d.dv = devices.New(p, devices.Config{AppProcess: cfg.AppProcess, UiAutomationHeld: cfg.UiAutomationHeld, RealTimeRecord: cfg.RealTimeRecord, InputWritable: d.inputWritable()},
		func(touch *Touch, helper string) { d.logCommand(Command{Time: p.Now(), Touch: touch, Helper: helper}) })
	return d, nil
}

// Identity returns the CNXN banner properties.
func (d *Device) Identity() adbd.Identity {
	return adbd.Identity{Product: d.p.Props["ro.product.name"], Model: d.p.Props["ro.product.model"], Device: d.p.Props["ro.product.device"]}
}

// Files returns the device file system.
func (d *Device) Files() adbd.FileSystem { return d.p.FS }

// FS returns the device file system with its shell-side extras.
func (d *Device) FS() *vfs.FS { return d.p.FS }

// Serial returns ro.serialno.
func (d *Device) Serial() string { return d.p.Props["ro.serialno"] }

// Run runs one command line as `sh -c cmdline` would on the device (see
// adbd.Backend) and returns its exit status: 127 for unknown commands, 130
// when ctx ends first. stdin is the script's standard input, read as it
// comes (`cat > FILE` streams it). Every call is logged (Commands).
func (d *Device) Run(ctx context.Context, cmdline string, stdin io.Reader, stdout, stderr io.Writer) int {
	return d.run(ctx, cmdline, stdin, stdout, stderr)
}
