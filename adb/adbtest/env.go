package adbtest

import (
	"context"
	"fmt"
	"log/slog"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest/adbserver"
	"github.com/adb-connector/adb-connector/emulator"
	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/emulator/phonefw"
)

// Options configures an Env. The zero value is usable: one device, the
// "launcher" scenario.
type Options struct {
	// Devices is how many virtual devices to start. Default 1; a negative
	// value starts none.
	Devices int
	// Scenario is the android scenario name or directory. Default
	// "launcher".
	Scenario string
	// Logger receives device logs. Default: discard.
	Logger *slog.Logger
	// RealTimeRecord makes screenrecord take its --time-limit, as on a
	// phone (android.Config.RealTimeRecord). Default: it returns at once.
	RealTimeRecord bool
	// Profile is the devices' timing profile (android.ProfileNames).
	// Default: the scenario's, else "instant" (no device or link cost).
	Profile string
	// Timing, when set, is the devices' timing profile itself
	// (android.Config.Timing); Profile is then ignored.
	Timing *android.Profile
	// SDK is ro.build.version.sdk (android.Config.SDK). Default 33.
	SDK int
	// Screen overrides the scenario's display size and density
	// (android.Config.Screen).
	Screen android.ScreenSpec
	// Rooted runs the devices' shell as root, as after `adb root` on a
	// userdebug build (android.Config.Rooted): the shell may then write
	// /dev/input nodes on any SDK. Default false: on SDK 29 and later (the
	// default 33) SELinux refuses the writes and taps go through `input`.
	Rooted bool
	// NoGzip makes the devices lack gzip, as before Android 9
	// (android.Config.NoGzip).
	NoGzip bool
	// NoHelper makes app_process abort, as on a phone where the connector's
	// helper cannot start. Default: app_process runs the pushed helper jar
	// on the host JVM with the fake framework bound to the device
	// (emulator/phonefw; needs java, javac and enjarify, else it aborts
	// the same way).
	NoHelper bool
	// UiAutomationHeld makes another owner hold the devices' UiAutomation
	// slot, as uiautomator2 or Appium would (android.Config.UiAutomationHeld).
	UiAutomationHeld bool
}

// Env is a private adb server with connected virtual devices.
type Env struct {
	// ServerAddr is the adb server's "127.0.0.1:PORT"; Port is its port.
	ServerAddr string
	Port       int
	// Devices are the virtual devices, connected and in state "device".
	// Each one's Serial() is how the adb server lists it.
	Devices []*emulator.Device

	t   testing.TB
	srv *adbserver.Server
}

// readyTimeout bounds each wait for a device state.
const readyTimeout = 30 * time.Second

// Start starts the adb server and opts.Devices virtual devices, connects
// them and waits until each is "device". Everything stops in t.Cleanup.
func Start(t testing.TB, opts Options) *Env {
	t.Helper()
	srv := adbserver.Start(t)
	e := &Env{ServerAddr: srv.Addr, Port: srv.Port, t: t, srv: srv}
	n := opts.Devices
	if n == 0 {
		n = 1
	}
	for i := range max(n, 0) {
		d, err := emulator.Start(context.Background(), emulator.Options{
			Android: android.Config{Serial: fmt.Sprintf("VIRT%08d", i+1), Scenario: opts.Scenario, RealTimeRecord: opts.RealTimeRecord, Profile: opts.Profile,
				Rooted: opts.Rooted, NoGzip: opts.NoGzip, Timing: opts.Timing, SDK: opts.SDK, Screen: opts.Screen},
			Logger: opts.Logger,
		})
		if err != nil {
			t.Fatalf("adbtest: device %d: %v", i, err)
		}
		t.Cleanup(func() { d.Close() })
		if !opts.NoHelper {
			d.Android().SetAppProcess(phonefw.Run)
		}
		if opts.UiAutomationHeld {
			d.Android().SetUiAutomationHeld(true)
		}
		e.Devices = append(e.Devices, d)
	}
	for _, d := range e.Devices {
		e.Connect(d)
	}
	return e
}

// Connect runs `adb connect` for d and waits until it is "device".
func (e *Env) Connect(d *emulator.Device) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	out, err := adbserver.Connect(ctx, e.ServerAddr, d.Addr())
	if err != nil || !strings.Contains(out, "connected to") {
		e.t.Fatalf("adbtest: adb connect %s: %q %v", d.Addr(), out, err)
	}
	e.WaitState(d, "device")
}

// WaitState waits (up to 30 s) until the adb server lists d in state
// ("device", "offline", "unauthorized"; "" = not listed).
func (e *Env) WaitState(d *emulator.Device, state string) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	if last, err := adbserver.WaitState(ctx, e.ServerAddr, d.Serial(), state); err != nil {
		e.t.Fatalf("adbtest: %s: state %q, want %q: %v\nadb server log:\n%s", d.Serial(), last, state, err, e.srv.Log())
	}
}

// State returns d's state as the adb server lists it ("" = not listed).
func (e *Env) State(d *emulator.Device) string {
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	st, err := adbserver.State(ctx, e.ServerAddr, d.Serial())
	if err != nil {
		e.t.Fatalf("adbtest: host:devices: %v", err)
	}
	return st
}

// Adb runs the adb CLI against this server (`adb -P PORT args...`, 60 s
// deadline) and returns its combined output; a non-zero exit status is an
// *exec.ExitError.
func (e *Env) Adb(args ...string) (string, error) { return e.srv.Adb(args...) }

// AdbCmd returns the unstarted `adb -P PORT args...` command (separate
// stdout and stderr, stdin), bounded by ctx (or 60 s).
func (e *Env) AdbCmd(ctx context.Context, args ...string) *exec.Cmd {
	return e.srv.AdbCmd(ctx, args...)
}

// KillServer stops the adb server (`adb kill-server`, then SIGKILL) and
// waits for the process. Devices stay up.
func (e *Env) KillServer() { e.srv.Kill() }

// StartServer starts the adb server again on the same port after
// KillServer. Devices are not reconnected: call Connect (or use
// RestartServer).
func (e *Env) StartServer() { e.srv.Restart() }

// RestartServer kills the adb server, starts it again on the same port and
// reconnects every device (waiting until each is "device").
func (e *Env) RestartServer() {
	e.t.Helper()
	e.srv.Restart()
	for _, d := range e.Devices {
		e.Connect(d)
	}
}
