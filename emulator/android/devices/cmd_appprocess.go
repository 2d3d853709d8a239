package devices

import (
	"context"
	"io"
	"strings"
	"sync"
	"time"

	"mvdan.cc/sh/v3/interp"

	"github.com/adb-connector/adb-connector/emulator/android/shell"
	"github.com/adb-connector/adb-connector/emulator/phonefw"
)

// AppProcessFunc runs a Java program app_process was asked to start: the
// pushed jar's bytes, its main class, the VM's environment, its standard
// streams, and the phone its framework stands on. It returns the exit
// status, or an error when the program could not start at all. The
// virtual phone never runs host programs itself: the harness hands it
// phonefw.Run (Config.AppProcess).
type AppProcessFunc func(ctx context.Context, s phonefw.Spec) (int, error)

// HelperCost is what the connector's resident helper costs on a phone:
// published measurements of app_process helpers (mobilecli's, scrcpy's
// server, uiautomator2's u2.jar), docs/phone-timings.md "The resident
// helper".
type HelperCost struct {
	// Start is the helper's class loading and UiAutomation connect, up
	// to its first answer, after the VM start the shell charges as the
	// command's start (Profile.Start["app_process"]): together what
	// `uiautomator` costs to start (a VM and a connect).
	Start time.Duration
	// TreeBase and TreePerNode are a warm tree from a connected
	// UiAutomation: the walk and the XML, by node.
	TreeBase, TreePerNode time.Duration
	// Inject is one injected input event waited for (WAIT_FOR_FINISH).
	Inject time.Duration
	// Shot is UiAutomation.takeScreenshot; JPEGPerMP and PNGPerMP the
	// on-phone encode (Bitmap.compress) per megapixel of the output, scale
	// included.
	Shot, JPEGPerMP, PNGPerMP time.Duration
	// Action is one accessibility action on a node (set text, paste).
	Action time.Duration
}

// helperCosts are the helper's costs by timing profile; a profile not
// listed (instant, a test's own) costs nothing.
var helperCosts = map[string]HelperCost{
	"pixel-usb": {Start: 400 * time.Millisecond, TreeBase: 4 * time.Millisecond, TreePerNode: 150 * time.Microsecond,
		Inject: 3 * time.Millisecond, Shot: 40 * time.Millisecond, JPEGPerMP: 25 * time.Millisecond, PNGPerMP: 150 * time.Millisecond,
		Action: 8 * time.Millisecond},
	"budget-usb": {Start: 900 * time.Millisecond, TreeBase: 12 * time.Millisecond, TreePerNode: 450 * time.Microsecond,
		Inject: 9 * time.Millisecond, Shot: 120 * time.Millisecond, JPEGPerMP: 80 * time.Millisecond, PNGPerMP: 600 * time.Millisecond,
		Action: 25 * time.Millisecond},
	"wifi": {Start: 400 * time.Millisecond, TreeBase: 4 * time.Millisecond, TreePerNode: 150 * time.Microsecond,
		Inject: 3 * time.Millisecond, Shot: 40 * time.Millisecond, JPEGPerMP: 25 * time.Millisecond, PNGPerMP: 150 * time.Millisecond,
		Action: 8 * time.Millisecond},
}

// helperCost returns this phone's helper costs.
func (d *Devices) helperCost() HelperCost { return helperCosts[d.p.Prof.Name] }

// AppProcess: `app_process [java-options] cmd-dir start-class [args]`
// (AOSP frameworks/base/cmds/app_process/app_main.cpp), the class path from
// CLASSPATH (or -Djava.class.path=). The program runs through
// Config.AppProcess on the host JVM with the fake framework bound to this
// phone. Where it cannot (no AppProcess, no Java on the host, an SDK the
// fake framework does not model) the runtime aborts, as app_process does
// on a phone where it cannot start (LOG_ALWAYS_FATAL: SIGABRT, status 134
// from the shell); a missing jar or class is ART's ClassNotFoundException.
func AppProcess(c *shell.Ctx) int {
	args := c.Args[1:]
	cp := interp.HandlerCtx(c.Context).Env.Get("CLASSPATH").String()
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		if v, ok := strings.CutPrefix(args[0], "-Djava.class.path="); ok {
			cp = v
		}
		args = args[1:]
	}
	if len(args) < 2 {
		c.Errorf("Error: no class name or --zygote supplied.\nUsage: app_process [java-options] cmd-dir start-class-name [options]\n")
		return 134
	}
	main := args[1]
	d := dev(c)
	var jar []byte
	if cp != "" {
		jar, _ = d.p.FS.ReadFile(c.Abs(strings.Split(cp, ":")[0]))
	}
	if jar == nil {
		c.Errorf("Exception in thread \"main\" java.lang.ClassNotFoundException: Didn't find class \"%s\" on path: DexPathList[[],nativeLibraryDirectories=[/system/lib64, /system_ext/lib64, /system/lib64, /system_ext/lib64]]\n", main)
		return 1
	}
	d.p.Lock()
	runner := d.cfg.AppProcess
	d.p.Unlock()
	if runner == nil {
		c.Errorf("Aborted \n")
		return 134
	}
	// The phone's start cost runs while the host's JVM starts: the first
	// output (or the exit) comes no sooner than Start after the command
	// began, so the host's own start time is not paid twice.
	out := &startGate{c: c, w: c.Stdout, until: time.Now().Add(d.helperCost().Start)}
	p := &helperPhone{d: d, c: c}
	env := []string{"CLASSPATH=" + cp}
	code, err := runner(c.Context, phonefw.Spec{Jar: jar, Main: main, SDK: d.p.SDK, Env: env,
		Stdin: c.Stdin, Stdout: out, Stderr: c.Stderr, Phone: p})
	if !out.open() {
		return shell.ExitCanceled
	}
	if err != nil {
		if c.Context.Err() != nil {
			return shell.ExitCanceled
		}
		d.p.Log.Debug("app_process could not start", "err", err)
		c.Errorf("Aborted \n")
		return 134
	}
	return code
}

// startGate holds the program's output until the phone's start cost has
// passed, then passes each write on at once: the helper's answers are
// small frames the host waits for (adbd coalesces output otherwise).
type startGate struct {
	c      *shell.Ctx
	w      io.Writer
	until  time.Time
	mu     sync.Mutex
	opened bool
	ok     bool
}

// open waits (once) until the start cost has passed; false when the
// command was cancelled meanwhile.
func (g *startGate) open() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.opened {
		g.opened = true
		g.ok = g.c.Charge(max(time.Until(g.until), 0))
	}
	return g.ok
}

func (g *startGate) Write(p []byte) (int, error) {
	if !g.open() {
		return 0, context.Canceled
	}
	n, err := g.w.Write(p)
	if fl, ok := g.w.(interface{ Flush() error }); ok && err == nil {
		err = fl.Flush()
	}
	return n, err
}

// HoldsUiAutomation wraps a command that connects the phone's one
// UiAutomation (uiautomator; monkey too, as tools that detect a busy slot
// treat it): while it runs the slot is taken, and while another holder
// (the helper, Config.UiAutomationHeld) has it, the command fails as
// UiAutomationManager refuses a second registration.
func HoldsUiAutomation(fn func(*shell.Ctx) int) func(*shell.Ctx) int {
	return func(c *shell.Ctx) int {
		d := dev(c)
		d.p.Lock()
		busy := d.slotHeldLocked()
		if !busy {
			d.helper.others++
		}
		d.p.Unlock()
		if busy && c.Args[0] == "uiautomator" {
			c.Errorf("Exception in thread \"main\" java.lang.IllegalStateException: UiAutomationService android.accessibilityservice.IAccessibilityServiceClient$Stub$Proxy@8b5a2b1already registered!\n")
			return 1
		}
		if !busy {
			defer func() {
				d.p.Lock()
				d.helper.others--
				d.p.Unlock()
			}()
		}
		return fn(c)
	}
}

// helperState is the phone's side of the helper: who holds the
// UiAutomation slot, the clipboard, the touch being injected.
type helperState struct {
	others    int  // uiautomator / monkey runs holding the slot
	connected bool // the helper holds it
	clip      string
	gesture   struct {
		down     bool
		multi    bool
		from, to [2]float64
		start    int64
	}
}

// slotHeldLocked reports whether anyone holds the UiAutomation slot: an
// owner outside the model (Config or the scenario), a uiautomator or
// monkey run, the helper.
func (d *Devices) slotHeldLocked() bool {
	return d.cfg.UiAutomationHeld || d.p.Scenario.UiAutomationHeld || d.helper.others > 0 || d.helper.connected
}

// SetAppProcess sets what runs `app_process` (Config.AppProcess); nil
// makes it abort.
func (d *Devices) SetAppProcess(fn AppProcessFunc) {
	d.p.Lock()
	d.cfg.AppProcess = fn
	d.p.Unlock()
}

// SetUiAutomationHeld says whether another owner (uiautomator2, Appium)
// holds the UiAutomation slot; Config.UiAutomationHeld at start.
func (d *Devices) SetUiAutomationHeld(held bool) {
	d.p.Lock()
	d.cfg.UiAutomationHeld = held
	d.p.Unlock()
}

// HelperConnected reports whether a helper holds the UiAutomation slot.
func (d *Devices) HelperConnected() bool {
	d.p.Lock()
	defer d.p.Unlock()
	return d.helper.connected
}

// Clipboard returns the primary clip's text (what the helper set).
func (d *Devices) Clipboard() string {
	d.p.Lock()
	defer d.p.Unlock()
	return d.helper.clip
}
