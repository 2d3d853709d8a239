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
	// What the phone is, set by New and Boot and never changed after.
	Log      *slog.Logger
	Now      func() time.Time // the phone's clock
	FS       *vfs.FS          // its file system (safe for concurrent use on its own)
	Props    map[string]string
	Scenario *ui.Scenario
	Prof     timing.Profile
	SDK      int // ro.build.version.sdk
	// Screen is the physical display; scenario layouts (in Scenario.Screen
	// coordinates) are scaled to it.
	Screen ui.ScreenSpec
	// bootWmSize and bootWmDens are the `wm size`/`wm density` overrides
	// in force at boot (from pinned outputs), zero when none.
	bootWmSize image.Point
	bootWmDens int

	mu sync.Mutex // guards everything below (Lock)
	// State is what the phone shows and holds now: the commands of every
	// room read and change it, which is why it is plain data under one
	// lock rather than methods of its own.
	State       State
	render      renderCache
	EncodeEvery bool // a fresh PNG per screencap -p (Config.EncodeEveryCapture)
	Logcat      []LogEntry
	logSeq      uint64
	logWake     chan struct{} // closed when a log entry is appended
	Faults      FaultState
}

// Options are what New builds a Phone from.
type Options struct {
	Log      *slog.Logger
	Now      func() time.Time
	Scenario *ui.Scenario
	Profile  timing.Profile
	// Screen is the physical display before the scenario's pinned
	// `wm size`/`wm density` outputs (applyPinnedDisplay) apply.
	Screen             ui.ScreenSpec
	EncodeEveryCapture bool
}

// New builds a phone's model: its file system with the /dev/input nodes
// and its display as its scenario pins it. Boot completes it.
func New(o Options) *Phone {
	d := &Phone{Log: o.Log, Now: o.Now, Scenario: o.Scenario, Prof: o.Profile, Screen: o.Screen, EncodeEvery: o.EncodeEveryCapture}
	d.FS = vfs.New(o.Now)
	d.FS.AddInputNodes()
	d.applyPinnedDisplay()
	return d
}

// Boot sets the properties (built from the display New settled) and the
// SDK they name, and brings the state to what the phone shows at boot.
func (d *Phone) Boot(props map[string]string, sdk int) {
	d.Props, d.SDK = props, sdk
	d.initState()
}

// Lock takes the lock that guards the state; the methods named ...Locked,
// and State, Faults and the log, want it held.
func (d *Phone) Lock() { d.mu.Lock() }

// Unlock releases the lock Lock took.
func (d *Phone) Unlock() { d.mu.Unlock() }
