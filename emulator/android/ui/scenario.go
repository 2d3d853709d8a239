package ui

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/adb-connector/adb-connector/emulator/android/timing"
)

//go:embed scenarios
var Embedded embed.FS

// ErrUnknownScenario is returned by LoadScenario for a name that is neither
// an embedded scenario nor a directory.
var ErrUnknownScenario = errors.New("unknown scenario")

// Scenario is a device's UI and canned data, read from scenario.json (the
// format is documented in scenarios/README.md). A loaded Scenario is never
// modified; devices keep their own state.
type Scenario struct {
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	Screen      ScreenSpec        `json:"screen"`
	Properties  map[string]string `json:"properties,omitempty"`
	// Settings are initial `settings` values keyed "namespace/key".
	Settings map[string]string `json:"settings,omitempty"`
	// Home is the screen shown by HOME; default "home".
	Home string `json:"home,omitempty"`
	// Start is the screen shown at boot (its app is launched); default Home.
	Start   string       `json:"start,omitempty"`
	Apps    []App        `json:"apps"`
	Screens []ScreenDef  `json:"screens"`
	Pinned  []Pin        `json:"pinned,omitempty"`
	Logcat  []LogcatSeed `json:"logcat,omitempty"`
	Battery *BatterySpec `json:"battery,omitempty"`
	Locked  bool         `json:"locked,omitempty"`
	// Faults are failures injected from boot (see Faults).
	Faults Faults `json:"faults,omitempty"`
	// Profile is the timing profile (ProfileNames) devices of this
	// scenario use unless Config.Profile names one.
	Profile string `json:"profile,omitempty"`
	// Rooted: the shell runs as root, as after `adb root` on a userdebug
	// build (Config.Rooted).
	Rooted bool `json:"rooted,omitempty"`
	// NoGzip: the phone has no gzip, gunzip or zcat (Config.NoGzip).
	NoGzip bool `json:"no_gzip,omitempty"`
	// UiAutomationHeld: another owner holds the UiAutomation slot
	// (Config.UiAutomationHeld).
	UiAutomationHeld bool `json:"uiautomation_held,omitempty"`
	files            fs.FS
	ByID             map[string]*ScreenDef
}

// ScreenSpec is the physical display in portrait orientation.
type ScreenSpec struct {
	Width   int `json:"width"`   // default 720
	Height  int `json:"height"`  // default 1280
	Density int `json:"density"` // default 320
}

// App is an installed package.
type App struct {
	Package  string `json:"package"`
	Label    string `json:"label"`
	Activity string `json:"activity"` // launcher activity, ".Main" or full class
	// NoLauncher hides the app from the launcher and from monkey/resolve-activity.
	NoLauncher bool `json:"no_launcher,omitempty"`
	// System apps live in /system and are left out by `pm list packages -3`.
	System bool `json:"system,omitempty"`
	// Screen is the first screen of the app (default: the app has a blank screen).
	Screen string `json:"screen,omitempty"`
	// ViewSchemes lists URL schemes whose VIEW intents the app handles.
	ViewSchemes []string `json:"view_schemes,omitempty"`
	// Color is the launcher icon colour, "#RRGGBB".
	Color string `json:"color,omitempty"`
	// Debuggable apps (android:debuggable, debug builds) accept run-as.
	Debuggable bool `json:"debuggable,omitempty"`
	// Permissions are the <uses-permission> names the app requests; the
	// runtime ones start denied (the phone's cmd_permission.go).
	Permissions []string `json:"permissions,omitempty"`
	// VersionCode and VersionName are the app's version (dumpsys package);
	// set by `pm install` from the APK. Zero: a preinstalled app (1, "1.0").
	VersionCode int64  `json:"version_code,omitempty"`
	VersionName string `json:"version_name,omitempty"`
}

// ScreenDef is one screen: a UI tree (Root), or a real `uiautomator dump`
// XML file (Dump, optionally with its screenshot PNG), or a generated
// launcher grid (Launcher).
type ScreenDef struct {
	ID       string `json:"id"`
	Package  string `json:"package"`
	Activity string `json:"activity,omitempty"`
	Root     *Node  `json:"root,omitempty"`
	Dump     string `json:"dump,omitempty"`
	PNG      string `json:"png,omitempty"`
	Launcher bool   `json:"launcher,omitempty"`
	// Rules add tap actions to nodes selected by resource-id/text/content-desc
	// (useful for screens given as dump files).
	Rules []Rule `json:"rules,omitempty"`
	// NeverIdle marks a screen that never stops animating (a playing
	// video, a spinner): `uiautomator dump` waits out its 10 s idle cap
	// there and fails (cmdUiautomator).
	NeverIdle bool `json:"never_idle,omitempty"`
	Tree      *Element
	// raw is the dump file as captured: `uiautomator dump` replays it byte
	// for byte while nothing on the screen has changed.
	Raw []byte
	// rotation is the dump's <hierarchy rotation>: showing the screen
	// rotates the display to it, as the captured app's orientation did.
	Rotation int
	PNGData  []byte
}

// Node is a UI element as written in scenario files.
type Node struct {
	Class         string `json:"class,omitempty"`
	ResourceID    string `json:"resource-id,omitempty"`
	Text          string `json:"text,omitempty"`
	ContentDesc   string `json:"content-desc,omitempty"`
	Hint          string `json:"hint,omitempty"`
	Package       string `json:"package,omitempty"`
	Bounds        [4]int `json:"bounds"` // left, top, right, bottom (portrait pixels)
	Clickable     bool   `json:"clickable,omitempty"`
	LongClickable bool   `json:"long-clickable,omitempty"`
	Scrollable    bool   `json:"scrollable,omitempty"`
	Focusable     bool   `json:"focusable,omitempty"`
	Checkable     bool   `json:"checkable,omitempty"`
	Checked       bool   `json:"checked,omitempty"`
	Password      bool   `json:"password,omitempty"`
	Selected      bool   `json:"selected,omitempty"`
	Disabled      bool   `json:"disabled,omitempty"`
	Color         string `json:"color,omitempty"` // background "#RRGGBB"
	// Picture fills the node with generated photographic content:
	// "photo" (a landscape) or "map" (a satellite-style map); picture.go.
	Picture  string  `json:"picture,omitempty"`
	Setting  string  `json:"setting,omitempty"`
	OnTap    *Action `json:"on_tap,omitempty"`
	OnEnter  *Action `json:"on_enter,omitempty"`
	Items    *Items  `json:"items,omitempty"`
	Children []*Node `json:"children,omitempty"`
}

// Items generates the rows of a scrolling list inside its node.
type Items struct {
	Count  int     `json:"count"`
	Height int     `json:"height"`          // row height in portrait pixels
	Text   string  `json:"text"`            // fmt pattern with one %d (1-based)
	Class  string  `json:"class,omitempty"` // default android.widget.TextView
	IDs    string  `json:"resource-id,omitempty"`
	OnTap  *Action `json:"on_tap,omitempty"`
}

// Action is what a tap (or ENTER in a field) does.
type Action struct {
	Goto   string `json:"goto,omitempty"`   // push this screen on the current task
	Launch string `json:"launch,omitempty"` // start this package
	Toggle bool   `json:"toggle,omitempty"` // flip checked (and the bound setting)
	// ToggleID flips the checkable with this resource-id on the screen, as
	// tapping a settings row flips the switch in it.
	ToggleID string `json:"toggle_id,omitempty"`
	Back     bool   `json:"back,omitempty"`
	Home     bool   `json:"home,omitempty"`
	// RequireFilled lists resource-ids of fields that must be non-empty;
	// otherwise Else (a screen id) is shown, or nothing happens.
	RequireFilled []string `json:"require_filled,omitempty"`
	Else          string   `json:"else,omitempty"`
}

// Rule attaches an action to nodes of a screen that match.
type Rule struct {
	ResourceID  string `json:"resource-id,omitempty"`
	Text        string `json:"text,omitempty"`
	ContentDesc string `json:"content-desc,omitempty"`
	Action      Action `json:"action"`
}

// Pin fixes the output of one command line, byte for byte. Command is
// matched against the raw line (trimmed) and against each simple command's
// argv joined by single spaces.
type Pin struct {
	Command    string `json:"command"`
	Stdout     string `json:"stdout,omitempty"`
	StdoutFile string `json:"stdout_file,omitempty"`
	Stderr     string `json:"stderr,omitempty"`
	Exit       int    `json:"exit,omitempty"`
	Data       []byte
}

// LogcatSeed is a log line present at boot.
type LogcatSeed struct {
	Level   string `json:"level"` // V D I W E F
	Tag     string `json:"tag"`
	Message string `json:"message"`
	PID     int    `json:"pid,omitempty"`
}

// BatterySpec is the initial battery state.
type BatterySpec struct {
	Level       int  `json:"level"`
	ACPowered   bool `json:"ac_powered"`
	USBPowered  bool `json:"usb_powered"`
	Temperature int  `json:"temperature"` // tenths of a degree C
}

// ScenarioNames lists the embedded scenarios.
func ScenarioNames() []string {
	ents, _ := Embedded.ReadDir("scenarios")
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// LoadScenario loads an embedded scenario by name, or the scenario.json in
// a directory on disk (any path containing a "/" or naming a directory).
func LoadScenario(nameOrDir string) (*Scenario, error) {
	var fsys fs.FS
	if st, err := os.Stat(nameOrDir); err == nil && st.IsDir() && (strings.Contains(nameOrDir, "/") || !isEmbedded(nameOrDir)) {
		fsys = os.DirFS(nameOrDir)
	} else if isEmbedded(nameOrDir) {
		sub, err := fs.Sub(Embedded, "scenarios/"+nameOrDir)
		if err != nil {
			return nil, err
		}
		fsys = sub
	} else {
		return nil, fmt.Errorf("scenario %q: %w", nameOrDir, ErrUnknownScenario)
	}
	sc, err := ParseScenario(fsys)
	if err != nil {
		return nil, fmt.Errorf("scenario %q: %w", nameOrDir, err)
	}
	return sc, nil
}

func isEmbedded(name string) bool {
	if name == "" || strings.ContainsAny(name, "/.\\") {
		return false
	}
	st, err := fs.Stat(Embedded, "scenarios/"+name)
	return err == nil && st.IsDir()
}

// ParseScenario reads scenario.json and the files it names from fsys.
func ParseScenario(fsys fs.FS) (*Scenario, error) {
	raw, err := fs.ReadFile(fsys, "scenario.json")
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	sc := &Scenario{}
	if err := dec.Decode(sc); err != nil {
		return nil, fmt.Errorf("scenario.json: %w", err)
	}
	sc.files = fsys
	if sc.Screen.Width <= 0 || sc.Screen.Height <= 0 {
		sc.Screen.Width, sc.Screen.Height = 720, 1280
	}
	if sc.Screen.Density <= 0 {
		sc.Screen.Density = 320
	}
	if sc.Home == "" {
		sc.Home = "home"
	}
	sc.ByID = map[string]*ScreenDef{}
	for i := range sc.Screens {
		s := &sc.Screens[i]
		if s.ID == "" {
			return nil, fmt.Errorf("screen %d: missing id", i)
		}
		if _, dup := sc.ByID[s.ID]; dup {
			return nil, fmt.Errorf("screen %q: duplicate id", s.ID)
		}
		sc.ByID[s.ID] = s
		if s.Dump != "" {
			x, err := fs.ReadFile(fsys, s.Dump)
			if err != nil {
				return nil, fmt.Errorf("screen %q: %w", s.ID, err)
			}
			s.Raw = x
			if s.Tree, s.Rotation, err = ParseDump(x); err != nil {
				return nil, fmt.Errorf("screen %q: %s: %w", s.ID, s.Dump, err)
			}
		}
		if s.PNG != "" {
			if s.PNGData, err = fs.ReadFile(fsys, s.PNG); err != nil {
				return nil, fmt.Errorf("screen %q: %w", s.ID, err)
			}
		}
		if s.Root == nil && s.Tree == nil && !s.Launcher {
			return nil, fmt.Errorf("screen %q: needs root, dump or launcher", s.ID)
		}
		if p := badPicture(s.Root); p != "" {
			return nil, fmt.Errorf("screen %q: unknown picture %q", s.ID, p)
		}
	}
	if sc.Profile != "" {
		if _, err := timing.ProfileByName(sc.Profile); err != nil {
			return nil, err
		}
	}
	if _, ok := sc.ByID[sc.Home]; !ok {
		return nil, fmt.Errorf("home screen %q not defined", sc.Home)
	}
	if _, ok := sc.ByID[sc.Start]; sc.Start != "" && !ok {
		return nil, fmt.Errorf("start screen %q not defined", sc.Start)
	}
	for _, a := range sc.Apps {
		if a.Screen != "" {
			if _, ok := sc.ByID[a.Screen]; !ok {
				return nil, fmt.Errorf("app %s: screen %q not defined", a.Package, a.Screen)
			}
		}
	}
	for i := range sc.Pinned {
		p := &sc.Pinned[i]
		p.Data = []byte(p.Stdout)
		if p.StdoutFile != "" {
			if p.Data, err = fs.ReadFile(fsys, p.StdoutFile); err != nil {
				return nil, fmt.Errorf("pinned %q: %w", p.Command, err)
			}
		}
	}
	return sc, nil
}

func (sc *Scenario) PinFor(line string) (*Pin, bool) {
	line = strings.TrimSpace(line)
	for i := range sc.Pinned {
		if sc.Pinned[i].Command == line {
			return &sc.Pinned[i], true
		}
	}
	return nil, false
}

func (p *Pin) Write(stdout, stderr io.Writer) int {
	stdout.Write(p.Data)
	io.WriteString(stderr, p.Stderr)
	return p.Exit
}

func (sc *Scenario) AppByPackage(pkg string) (*App, bool) {
	for i := range sc.Apps {
		if sc.Apps[i].Package == pkg {
			return &sc.Apps[i], true
		}
	}
	return nil, false
}

// fullActivity expands ".Main" to "pkg.Main".
func FullActivity(pkg, act string) string {
	if strings.HasPrefix(act, ".") {
		return pkg + act
	}
	return act
}

// shortActivity is the "pkg/.Main" form Android prints.
func ShortActivity(pkg, act string) string {
	act = FullActivity(pkg, act)
	if strings.HasPrefix(act, pkg+".") {
		return pkg + "/" + act[len(pkg):]
	}
	return pkg + "/" + act
}
