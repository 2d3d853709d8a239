package model

import (
	"fmt"
	"image"
	"image/color"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

// State is the mutable device model, guarded by the Phone's lock.
type State struct {
	Rotation int // 0..3, Surface.ROTATION_*
	ScreenOn bool
	Locked   bool
	Battery  ui.BatterySpec
	Tasks    []*Task // the last is in front; the home task is never removed
	Fields   map[string]string
	Focus    string // key of the focused text field, "" for none
	SelAll   bool   // the focused field's text is selected (Ctrl+A)
	Checked  map[string]bool
	Scroll   map[string]int
	Settings map[string]string
	Granted  map[string]bool // "package permission" -> a runtime permission granted
	// Notifications are posted, newest first; ShadeOpen: the notification
	// shade is pulled down (`cmd statusbar`, package services).
	Notifications []Notification
	NotifID       int
	ShadeOpen     bool
	WmSize        image.Point // override, zero when unset
	WmDens        int         // override, zero when unset
	Version       uint64      // bumped on every visible change
	nextTask      int
	// LastInput is the last user activity (input, wake-up, a timeout
	// setting changed): the screen times out screen_off_timeout after it.
	LastInput time.Time
	// orientScreen is the screen whose orientation the display follows
	// (see syncOrientationLocked).
	orientScreen string
	// ANR is the package whose "isn't responding" dialog covers the screen,
	// "" for none.
	ANR string
}

type Task struct {
	ID      int
	Pkg     string
	Screens []string // screen ids, last on top
}

func (d *Phone) initState() {
	sc := d.Scenario
	d.State = State{
		ScreenOn: true,
		Locked:   sc.Locked,
		Battery:  ui.BatterySpec{Level: 85, USBPowered: true, Temperature: 250},
		Fields:   map[string]string{},
		Checked:  map[string]bool{},
		Scroll:   map[string]int{},
		Settings: map[string]string{
			"system/screen_off_timeout":           "60000",
			"system/accelerometer_rotation":       "0",
			"system/user_rotation":                "0",
			"system/screen_brightness":            "102",
			"global/airplane_mode_on":             "0",
			"global/wifi_on":                      "1",
			"global/adb_enabled":                  "1",
			"global/development_settings_enabled": "1",
			"secure/android_id":                   "8f2c1a9e4b7d3c60",
			"secure/default_input_method":         "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME",
			// Developer options "Stay awake" on, as on a phone set up for
			// testing: AC|USB|wireless, the value StayAwakePreferenceController
			// (AOSP packages/apps/Settings) writes.
			"global/stay_on_while_plugged_in": "7",
		},
		WmSize:    d.bootWmSize,
		WmDens:    d.bootWmDens,
		nextTask:  10,
		LastInput: d.Now(),
	}
	if sc.Battery != nil {
		d.State.Battery = *sc.Battery
	}
	// Scenario settings take effect as `settings put` would, in a stable
	// order (auto-rotate before user_rotation, so a locked rotation holds).
	for _, k := range slices.Sorted(maps.Keys(sc.Settings)) {
		d.PutSettingLocked(k, sc.Settings[k])
	}
	d.initFaults()
	home := sc.ByID[sc.Home]
	d.State.Tasks = []*Task{{ID: d.newTaskID(), Pkg: home.Package, Screens: []string{sc.Home}}}
	d.seedLogcat()
	if sc.Start != "" && sc.Start != sc.Home {
		d.gotoLocked(sc.Start)
	}
	d.syncOrientationLocked()
}

func (d *Phone) newTaskID() int { d.State.nextTask++; return d.State.nextTask }

func (d *Phone) Changed() { d.State.Version++ }

// Top returns the foreground task.
func (d *Phone) Top() *Task { return d.State.Tasks[len(d.State.Tasks)-1] }

// Foreground returns the package and activity in front (locked() aside).
func (d *Phone) Foreground() (pkg, activity string) {
	t := d.Top()
	s := d.ScreenDef(t.Screens[len(t.Screens)-1])
	act := s.Activity
	if act == "" {
		if a, ok := d.Scenario.AppByPackage(t.Pkg); ok {
			act = a.Activity
		}
	}
	return t.Pkg, ui.FullActivity(t.Pkg, act)
}

// ScreenDef returns a scenario screen, or a blank one for apps without
// screens ("app:<pkg>").
func (d *Phone) ScreenDef(id string) *ui.ScreenDef {
	if s, ok := d.Scenario.ByID[id]; ok {
		return s
	}
	pkg := strings.TrimPrefix(id, "app:")
	label := pkg
	if a, ok := d.Scenario.AppByPackage(pkg); ok {
		label = a.Label
	}
	w, h := d.Scenario.Screen.Width, d.Scenario.Screen.Height
	return &ui.ScreenDef{ID: id, Package: pkg, Root: &ui.Node{Class: "android.widget.FrameLayout", Bounds: [4]int{0, 0, w, h}, Children: []*ui.Node{
		{Class: "android.widget.TextView", ResourceID: "android:id/title", Text: label, Bounds: [4]int{0, 0, w, h / 12}, Color: "#3F51B5"},
	}}}
}

// DumpScreen returns the screen in front when it is a real dump shown
// as captured (screen on, no keyguard), nil otherwise. A dump's bounds are
// display pixels of the phone it came from, so such a screen sets the
// display's geometry instead of being scaled to it.
func (d *Phone) DumpScreen() *ui.ScreenDef {
	if !d.State.ScreenOn || d.State.Locked {
		return nil
	}
	t := d.Top()
	if s := d.ScreenDef(t.Screens[len(t.Screens)-1]); s.Tree != nil {
		return s
	}
	return nil
}

// TopScreenLocked returns the screen in front while the display is on
// and unlocked, nil otherwise.
func (d *Phone) TopScreenLocked() *ui.ScreenDef {
	if !d.State.ScreenOn || d.State.Locked {
		return nil
	}
	t := d.Top()
	return d.ScreenDef(t.Screens[len(t.Screens)-1])
}

// syncOrientationLocked rotates the display when the screen in front
// changes: a dump screen turns it to the dump's rotation (the captured
// app's orientation), any other screen back to system/user_rotation (the
// phone's own, with auto-rotate off). Task changes call it.
func (d *Phone) syncOrientationLocked() {
	t := d.Top()
	id := t.Screens[len(t.Screens)-1]
	if id == d.State.orientScreen {
		return
	}
	d.State.orientScreen = id
	r := d.State.Rotation
	if s := d.ScreenDef(id); s.Tree != nil {
		r = s.Rotation
	} else if u, err := strconv.Atoi(d.State.Settings["system/user_rotation"]); err == nil && u >= 0 && u <= 3 && d.State.Settings["system/accelerometer_rotation"] != "1" {
		r = u
	}
	if r != d.State.Rotation {
		d.State.Rotation = r
		d.Changed()
	}
}

// DisplaySize is the current screen size in pixels (rotation applied,
// wm size override applied; a dump screen's own size while it shows).
func (d *Phone) DisplaySize() image.Point {
	if s := d.DumpScreen(); s != nil {
		return s.Tree.B.Max
	}
	w, h := d.Screen.Width, d.Screen.Height
	if d.State.WmSize != (image.Point{}) {
		w, h = d.State.WmSize.X, d.State.WmSize.Y
	}
	if d.State.Rotation%2 == 1 {
		w, h = h, w
	}
	return image.Pt(w, h)
}

// toDisplay maps a portrait scenario point to display pixels (a dump
// screen's points already are).
func (d *Phone) toDisplay(p image.Point) image.Point {
	if d.DumpScreen() != nil {
		return p
	}
	ds := d.DisplaySize()
	return image.Pt(p.X*ds.X/d.Scenario.Screen.Width, p.Y*ds.Y/d.Scenario.Screen.Height)
}

// FromDisplay maps display pixels back to portrait scenario pixels.
func (d *Phone) FromDisplay(p image.Point) image.Point {
	if d.DumpScreen() != nil {
		return p
	}
	ds := d.DisplaySize()
	return image.Pt(p.X*d.Scenario.Screen.Width/max(ds.X, 1), p.Y*d.Scenario.Screen.Height/max(ds.Y, 1))
}

// Tree returns the UI in display coordinates, nil when the screen is off.
func (d *Phone) Tree() *ui.Element {
	if !d.State.ScreenOn {
		return nil
	}
	return d.MapToDisplay(d.PortraitTree())
}

// MapToDisplay moves a portrait tree to display coordinates, in place.
func (d *Phone) MapToDisplay(root *ui.Element) *ui.Element {
	root.Walk(func(n *ui.Element) bool {
		n.B = image.Rectangle{Min: d.toDisplay(n.B.Min), Max: d.toDisplay(n.B.Max)}
		return true
	})
	return root
}

// PortraitTree resolves the foreground screen against the state.
func (d *Phone) PortraitTree() *ui.Element {
	w, h := d.Scenario.Screen.Width, d.Scenario.Screen.Height
	if d.State.Locked {
		return &ui.Element{Class: "android.widget.FrameLayout", Package: "com.android.systemui", ResourceID: "com.android.systemui:id/keyguard_root_view",
			Enabled: true, B: image.Rect(0, 0, w, h), Color: rgb(0x20, 0x20, 0x30), HasColor: true, Children: []*ui.Element{
				{Class: "android.widget.TextView", Package: "com.android.systemui", ResourceID: "com.android.systemui:id/keyguard_clock", Text: "12:00", Enabled: true, B: image.Rect(0, h/5, w, h/5+h/10)},
				{Class: "android.widget.TextView", Package: "com.android.systemui", ResourceID: "com.android.systemui:id/keyguard_indication_text", Text: "Swipe up to open", Enabled: true, B: image.Rect(0, h*8/10, w, h*8/10+h/20)},
			}}
	}
	t := d.Top()
	s := d.ScreenDef(t.Screens[len(t.Screens)-1])
	var root *ui.Element
	switch {
	case s.Tree != nil:
		root = s.Tree.Clone()
		i := 0
		root.Walk(func(n *ui.Element) bool {
			n.Key = fmt.Sprintf("%s/%d", s.ID, i)
			if n.ResourceID != "" {
				n.Key = s.ID + "/" + n.ResourceID
			}
			i++
			d.applyNodeState(n)
			return true
		})
	case s.Launcher:
		root = d.launcherTree(s)
	default:
		root = d.resolve(s, s.Root, "0", s.Package)
	}
	for _, r := range s.Rules {
		root.Walk(func(n *ui.Element) bool {
			if (r.ResourceID == "" || r.ResourceID == n.ResourceID) && (r.Text == "" || r.Text == n.Text) &&
				(r.ContentDesc == "" || r.ContentDesc == n.ContentDesc) && (r.ResourceID+r.Text+r.ContentDesc != "") {
				a := r.Action
				n.OnTap = &a
			}
			return true
		})
	}
	return root
}

func rgb(r, g, b uint8) color.RGBA { return color.RGBA{r, g, b, 0xff} }

// applyNodeState overlays field text, focus and checked state.
func (d *Phone) applyNodeState(n *ui.Element) {
	if n.Field {
		if v, ok := d.State.Fields[n.Key]; ok {
			n.Text = v
		}
		n.Focused = d.State.Focus == n.Key
	}
	if n.Checkable {
		if n.Setting != "" {
			n.Checked = d.State.Settings[n.Setting] == "1"
		} else if v, ok := d.State.Checked[n.Key]; ok {
			n.Checked = v
		}
	}
}

// resolve turns a scenario node into a ui.Element (portrait coordinates).
func (d *Phone) resolve(s *ui.ScreenDef, n *ui.Node, path, pkg string) *ui.Element {
	if n.Package != "" {
		pkg = n.Package
	}
	u := &ui.Element{
		Class: n.Class, ResourceID: n.ResourceID, Text: d.expandText(n.Text), ContentDesc: n.ContentDesc, Package: pkg, Hint: n.Hint,
		B:         image.Rect(n.Bounds[0], n.Bounds[1], n.Bounds[2], n.Bounds[3]),
		Clickable: n.Clickable || n.OnTap != nil, LongClickable: n.LongClickable, Scrollable: n.Scrollable || n.Items != nil,
		Focusable: n.Focusable, Checkable: n.Checkable, Checked: n.Checked, Password: n.Password, Selected: n.Selected,
		Enabled: !n.Disabled, OnTap: n.OnTap, OnEnter: n.OnEnter, Setting: n.Setting,
	}
	if u.Class == "" {
		u.Class = "android.view.View"
	}
	u.Field = strings.Contains(u.Class, "EditText")
	if u.Field {
		u.Focusable, u.Clickable = true, true
	}
	u.Color, u.HasColor = ui.ParseColor(n.Color)
	u.Picture = n.Picture
	u.Key = s.ID + "/" + path
	if n.ResourceID != "" {
		u.Key = s.ID + "/" + n.ResourceID
	}
	d.applyNodeState(u)
	for i, c := range n.Children {
		u.Children = append(u.Children, d.resolve(s, c, fmt.Sprintf("%s.%d", path, i), pkg))
	}
	if n.Items != nil {
		d.listItems(u, n.Items, pkg)
	}
	return u
}

// listItems lays out the visible rows of a scrolling list.
func (d *Phone) listItems(u *ui.Element, it *ui.Items, pkg string) {
	rowH := max(it.Height, 1)
	u.ContentH = it.Count * rowH
	off := d.State.Scroll[u.Key]
	class := it.Class
	if class == "" {
		class = "android.widget.TextView"
	}
	pattern := it.Text
	if pattern == "" {
		pattern = "Item %d"
	}
	for i := range it.Count {
		top := u.B.Min.Y + i*rowH - off
		r := image.Rect(u.B.Min.X, top, u.B.Max.X, top+rowH).Intersect(u.B)
		if r.Dy() < rowH/4 || r.Empty() {
			continue
		}
		c := &ui.Element{Class: class, Text: fmt.Sprintf(pattern, i+1), Package: pkg, ResourceID: it.IDs, B: r, Enabled: true,
			Clickable: it.OnTap != nil, OnTap: it.OnTap, Key: fmt.Sprintf("%s/item%d", u.Key, i)}
		u.Children = append(u.Children, c)
	}
}

// expandText replaces ${resource-id} with the value typed in that field.
// Replaced text is not scanned again: typed text may itself hold "${".
func (d *Phone) expandText(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		b.WriteString(d.FieldText(s[i+2 : i+j]))
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return b.String()
}

// FieldText returns the text typed into the field with this resource-id
// on any screen ("" when none); when several screens have such a field,
// the one with the smallest key wins. The model is locked.
func (d *Phone) FieldText(resourceID string) string {
	key, val := "", ""
	for k, v := range d.State.Fields {
		if strings.HasSuffix(k, "/"+resourceID) && (key == "" || k < key) {
			key, val = k, v
		}
	}
	return val
}

// launcherTree lays the launcher apps out in a 4-column grid.
func (d *Phone) launcherTree(s *ui.ScreenDef) *ui.Element {
	w, h := d.Scenario.Screen.Width, d.Scenario.Screen.Height
	pkg := s.Package
	root := &ui.Element{Class: "android.widget.FrameLayout", Package: pkg, Enabled: true, B: image.Rect(0, 0, w, h), Key: s.ID + "/0",
		Color: rgb(0xEC, 0xEF, 0xF1), HasColor: true}
	grid := &ui.Element{Class: "android.view.ViewGroup", Package: pkg, ResourceID: pkg + ":id/workspace", Enabled: true, B: image.Rect(0, h/10, w, h*9/10), Key: s.ID + "/grid"}
	root.Children = append(root.Children, grid)
	cols, cell := 4, w/4
	i := 0
	for _, a := range d.Scenario.Apps {
		if a.NoLauncher || a.Package == pkg {
			continue
		}
		x, y := (i%cols)*cell, h/10+(i/cols)*cell*5/4
		c, ok := ui.ParseColor(a.Color)
		if !ok {
			c = rgb(0x42, 0x85, 0xF4)
		}
		act := &ui.Action{Launch: a.Package}
		grid.Children = append(grid.Children, &ui.Element{Class: "android.widget.TextView", Package: pkg, Text: a.Label, ContentDesc: a.Label,
			B: image.Rect(x, y, x+cell, y+cell*5/4), Clickable: true, LongClickable: true, Focusable: true, Enabled: true,
			Color: c, HasColor: true, OnTap: act, Key: s.ID + "/icon/" + a.Package})
		i++
	}
	return root
}

// AppIDs are an installed app's pid while running and its uid: stable
// per scenario position, so repeated ps/pidof calls agree. Settings shares
// the system uid (android.uid.system), as on a phone.
func (d *Phone) AppIDs(pkg string) (pid, uid int) {
	idx := slices.IndexFunc(d.Scenario.Apps, func(a ui.App) bool { return a.Package == pkg })
	if idx < 0 {
		idx = len(d.Scenario.Apps)
	}
	pid, uid = 14821+131*idx, 10190+idx
	if pkg == "com.android.settings" {
		uid = 1000
	}
	return pid, uid
}

// PutSettingLocked stores a setting and applies its effect on the device,
// as the system services observing it do:
//   - system/user_rotation rotates the display while auto-rotate
//     (system/accelerometer_rotation) is off (DisplayRotation reads it only
//     in USER_ROTATION_LOCKED mode);
//   - system/accelerometer_rotation 0 locks the display at user_rotation; 1
//     hands rotation to the sensor, and the virtual phone lies upright;
//   - global/stay_on_while_plugged_in and system/screen_off_timeout decide
//     when the screen times out (see idleLocked);
//   - secure/default_input_method is the current IME (`ime set` writes the
//     same key).
func (d *Phone) PutSettingLocked(key, value string) {
	d.State.Settings[key] = value
	switch key {
	case "system/user_rotation":
		if d.State.Settings["system/accelerometer_rotation"] != "1" {
			if r, err := strconv.Atoi(value); err == nil && r >= 0 && r <= 3 {
				d.State.Rotation = r
			}
		}
	case "system/accelerometer_rotation":
		if value == "1" {
			d.State.Rotation = 0
		} else if r, err := strconv.Atoi(d.State.Settings["system/user_rotation"]); err == nil && r >= 0 && r <= 3 {
			d.State.Rotation = r
		}
	case "system/screen_off_timeout", "global/stay_on_while_plugged_in":
		d.State.LastInput = d.Now()
	}
	d.Changed()
}

// NotificationSpec is a notification an app posts.
type NotificationSpec struct {
	Package, Title, Text string
	// Ongoing sets FLAG_ONGOING_EVENT (a foreground service, a call).
	Ongoing bool
}

// Notification is a posted one.
type Notification struct {
	NotificationSpec
	ID     int
	Posted time.Time
}

// applyPinnedDisplay makes the display what a scenario's pinned `wm size`
// and `wm density` outputs say, so screenshots and dump bounds agree with
// them: the physical values become the screen, the override values the
// boot-time overrides. The phone reads its pins itself ("Physical size:
// WxH", "Override density: N" lines, WindowManagerShellCommand); a pin
// without a physical value is only replayed.
func (d *Phone) applyPinnedDisplay() {
	if p, ok := d.Scenario.PinFor("wm size"); ok {
		if phys, ok := pinnedValue(p.Data, "Physical size"); ok {
			if w, h, ok := ParseWxH(phys); ok {
				d.Screen.Width, d.Screen.Height = w, h
				if over, ok := pinnedValue(p.Data, "Override size"); ok {
					if w, h, ok := ParseWxH(over); ok {
						d.bootWmSize = image.Pt(w, h)
					}
				}
			}
		}
	}
	if p, ok := d.Scenario.PinFor("wm density"); ok {
		if phys, ok := pinnedValue(p.Data, "Physical density"); ok {
			if n, err := strconv.Atoi(phys); err == nil && n > 0 {
				d.Screen.Density, d.bootWmDens = n, 0
				if over, ok := pinnedValue(p.Data, "Override density"); ok {
					if n, err := strconv.Atoi(over); err == nil && n > 0 {
						d.bootWmDens = n
					}
				}
			}
		}
	}
}

// pinnedValue is the trimmed value of the "key: value" line of out.
func pinnedValue(out []byte, key string) (string, bool) {
	for line := range strings.Lines(string(out)) {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && k == key {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

func ParseWxH(s string) (w, h int, ok bool) {
	a, b, found := strings.Cut(strings.ToLower(s), "x")
	if !found {
		return 0, 0, false
	}
	w, err1 := strconv.Atoi(a)
	h, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || w < 16 || h < 16 || w > 8192 || h > 8192 {
		return 0, 0, false
	}
	return w, h, true
}

func APKPath(a *ui.App) string {
	if a.System {
		name := a.Label
		if name == "" {
			name = a.Package
		}
		name = strings.ReplaceAll(name, " ", "")
		return "/system/priv-app/" + name + "/" + name + ".apk"
	}
	return fmt.Sprintf("/data/app/~~%s==/%s-%s==/base.apk", ObjID("apk1", a.Package), a.Package, ObjID("apk2", a.Package))
}

// ObjID is a stable fake identity hash (the hex in "Window{a1b2c3d u0 ...}").
func ObjID(parts ...any) string {
	h := uint32(2166136261)
	for _, b := range []byte(fmt.Sprint(parts...)) {
		h = (h ^ uint32(b)) * 16777619
	}
	return fmt.Sprintf("%x", h&0xfffffff)
}
