package model

import (
	"image"
	"log/slog"
	"sync"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android/timing"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
	"github.com/adb-connector/adb-connector/emulator/android/vfs"
)

// Phone is the phone's model: what it is (properties, scenario, display,
// timing profile, file system) and its state (screen, keyguard, rotation,
// tasks, fields, settings, notifications, the log, injected faults), with
// the one lock that guards the state.
type Phone struct {
	Log      *slog.Logger
	Now      func() time.Time
	FS       *vfs.FS
	Props    map[string]string // immutable after New
	Scenario *ui.Scenario
	Prof     timing.Profile // timing profile (immutable)
	SDK      int            // ro.build.version.sdk
	// screen is the physical display; scenario layouts (in sc.Screen
	// coordinates) are scaled to it.
	Screen ui.ScreenSpec
	// bootWmSize and bootWmDens are the `wm size`/`wm density` overrides
	// in force at boot (from pinned outputs), zero when none.
	BootWmSize image.Point
	BootWmDens int

	mu          sync.Mutex // guards everything below
	State       State
	render      renderCache
	EncodeEvery bool // a fresh PNG per screencap -p (Config.EncodeEveryCapture)
	Logcat      []LogEntry
	LogSeq      uint64
	LogWake     chan struct{} // closed when a log entry is appended
	Faults      FaultState
}

// Options are what New builds a Phone from.
type Options struct {
	Log      *slog.Logger
	Now      func() time.Time
	Scenario *ui.Scenario
	Profile  timing.Profile
	// Screen is the physical display before the scenario's pinned
	// `wm size`/`wm density` outputs (ApplyPinnedDisplay) apply.
	Screen             ui.ScreenSpec
	EncodeEveryCapture bool
}

// New builds a phone's model: its file system with the /dev/input nodes
// and its display as its scenario pins it. Boot completes it.
func New(o Options) *Phone {
	d := &Phone{Log: o.Log, Now: o.Now, Scenario: o.Scenario, Prof: o.Profile, Screen: o.Screen, EncodeEvery: o.EncodeEveryCapture}
	d.FS = vfs.New(o.Now)
	d.FS.AddInputNodes()
	d.ApplyPinnedDisplay()
	return d
}

// Boot sets the properties (built from the display New settled) and the
// SDK they name, and brings the state to what the phone shows at boot.
func (d *Phone) Boot(props map[string]string, sdk int) {
	d.Props, d.SDK = props, sdk
	d.InitState()
}

// Lock takes the lock that guards the state; the methods named ...Locked,
// and State, Faults and the log, want it held.
func (d *Phone) Lock() { d.mu.Lock() }

// Unlock releases the lock Lock took.
func (d *Phone) Unlock() { d.mu.Unlock() }
