package android

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

// state is the mutable device model, guarded by Device.mu.
type state struct {
	rotation int // 0..3, Surface.ROTATION_*
	screenOn bool
	locked   bool
	battery  ui.BatterySpec
	tasks    []*task // the last is in front; the home task is never removed
	fields   map[string]string
	focus    string // key of the focused text field, "" for none
	selAll   bool   // the focused field's text is selected (Ctrl+A)
	checked  map[string]bool
	scroll   map[string]int
	settings map[string]string
	granted  map[string]bool // "package permission" -> a runtime permission granted
	// notifications are posted, newest first; shadeOpen: the notification
	// shade is pulled down (cmd_notification.go).
	notifications []notification
	notifID       int
	shadeOpen     bool
	wmSize        image.Point // override, zero when unset
	wmDens        int         // override, zero when unset
	version       uint64      // bumped on every visible change
	nextTask      int
	// lastInput is the last user activity (input, wake-up, a timeout
	// setting changed): the screen times out screen_off_timeout after it.
	lastInput time.Time
	// orientScreen is the screen whose orientation the display follows
	// (see syncOrientationLocked).
	orientScreen string
	// anr is the package whose "isn't responding" dialog covers the screen,
	// "" for none.
	anr string
}

type task struct {
	id      int
	pkg     string
	screens []string // screen ids, last on top
}

func (d *Device) initState() {
	sc := d.sc
	d.panel.reset()
	d.st = state{
		screenOn: true,
		locked:   sc.Locked,
		battery:  ui.BatterySpec{Level: 85, USBPowered: true, Temperature: 250},
		fields:   map[string]string{},
		checked:  map[string]bool{},
		scroll:   map[string]int{},
		settings: map[string]string{
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
		wmSize:    d.bootWmSize,
		wmDens:    d.bootWmDens,
		nextTask:  10,
		lastInput: d.now(),
	}
	if sc.Battery != nil {
		d.st.battery = *sc.Battery
	}
	// Scenario settings take effect as `settings put` would, in a stable
	// order (auto-rotate before user_rotation, so a locked rotation holds).
	for _, k := range slices.Sorted(maps.Keys(sc.Settings)) {
		d.putSettingLocked(k, sc.Settings[k])
	}
	d.initFaults()
	home := sc.ByID[sc.Home]
	d.st.tasks = []*task{{id: d.newTaskID(), pkg: home.Package, screens: []string{sc.Home}}}
	d.seedLogcat()
	if sc.Start != "" && sc.Start != sc.Home {
		d.gotoLocked(sc.Start)
	}
	d.syncOrientationLocked()
}

func (d *Device) newTaskID() int { d.st.nextTask++; return d.st.nextTask }

func (d *Device) changed() { d.st.version++ }

// top returns the foreground task.
func (d *Device) top() *task { return d.st.tasks[len(d.st.tasks)-1] }

// foreground returns the package and activity in front (locked() aside).
func (d *Device) foreground() (pkg, activity string) {
	t := d.top()
	s := d.screenDef(t.screens[len(t.screens)-1])
	act := s.Activity
	if act == "" {
		if a, ok := d.sc.AppByPackage(t.pkg); ok {
			act = a.Activity
		}
	}
	return t.pkg, ui.FullActivity(t.pkg, act)
}

// screenDef returns a scenario screen, or a blank one for apps without
// screens ("app:<pkg>").
func (d *Device) screenDef(id string) *ui.ScreenDef {
	if s, ok := d.sc.ByID[id]; ok {
		return s
	}
	pkg := strings.TrimPrefix(id, "app:")
	label := pkg
	if a, ok := d.sc.AppByPackage(pkg); ok {
		label = a.Label
	}
	w, h := d.sc.Screen.Width, d.sc.Screen.Height
	return &ui.ScreenDef{ID: id, Package: pkg, Root: &ui.Node{Class: "android.widget.FrameLayout", Bounds: [4]int{0, 0, w, h}, Children: []*ui.Node{
		{Class: "android.widget.TextView", ResourceID: "android:id/title", Text: label, Bounds: [4]int{0, 0, w, h / 12}, Color: "#3F51B5"},
	}}}
}

// dumpScreen returns the screen in front when it is a real dump shown
// as captured (screen on, no keyguard), nil otherwise. A dump's bounds are
// display pixels of the phone it came from, so such a screen sets the
// display's geometry instead of being scaled to it.
func (d *Device) dumpScreen() *ui.ScreenDef {
	if !d.st.screenOn || d.st.locked {
		return nil
	}
	t := d.top()
	if s := d.screenDef(t.screens[len(t.screens)-1]); s.Tree != nil {
		return s
	}
	return nil
}

// topScreenLocked returns the screen in front while the display is on
// and unlocked, nil otherwise.
func (d *Device) topScreenLocked() *ui.ScreenDef {
	if !d.st.screenOn || d.st.locked {
		return nil
	}
	t := d.top()
	return d.screenDef(t.screens[len(t.screens)-1])
}

// syncOrientationLocked rotates the display when the screen in front
// changes: a dump screen turns it to the dump's rotation (the captured
// app's orientation), any other screen back to system/user_rotation (the
// phone's own, with auto-rotate off). Task changes call it.
func (d *Device) syncOrientationLocked() {
	t := d.top()
	id := t.screens[len(t.screens)-1]
	if id == d.st.orientScreen {
		return
	}
	d.st.orientScreen = id
	r := d.st.rotation
	if s := d.screenDef(id); s.Tree != nil {
		r = s.Rotation
	} else if u, err := strconv.Atoi(d.st.settings["system/user_rotation"]); err == nil && u >= 0 && u <= 3 && d.st.settings["system/accelerometer_rotation"] != "1" {
		r = u
	}
	if r != d.st.rotation {
		d.st.rotation = r
		d.changed()
	}
}

// displaySize is the current screen size in pixels (rotation applied,
// wm size override applied; a dump screen's own size while it shows).
func (d *Device) displaySize() image.Point {
	if s := d.dumpScreen(); s != nil {
		return s.Tree.B.Max
	}
	w, h := d.screen.Width, d.screen.Height
	if d.st.wmSize != (image.Point{}) {
		w, h = d.st.wmSize.X, d.st.wmSize.Y
	}
	if d.st.rotation%2 == 1 {
		w, h = h, w
	}
	return image.Pt(w, h)
}

// toDisplay maps a portrait scenario point to display pixels (a dump
// screen's points already are).
func (d *Device) toDisplay(p image.Point) image.Point {
	if d.dumpScreen() != nil {
		return p
	}
	ds := d.displaySize()
	return image.Pt(p.X*ds.X/d.sc.Screen.Width, p.Y*ds.Y/d.sc.Screen.Height)
}

// fromDisplay maps display pixels back to portrait scenario pixels.
func (d *Device) fromDisplay(p image.Point) image.Point {
	if d.dumpScreen() != nil {
		return p
	}
	ds := d.displaySize()
	return image.Pt(p.X*d.sc.Screen.Width/max(ds.X, 1), p.Y*d.sc.Screen.Height/max(ds.Y, 1))
}

// tree returns the UI in display coordinates, nil when the screen is off.
func (d *Device) tree() *ui.Element {
	if !d.st.screenOn {
		return nil
	}
	return d.mapToDisplay(d.portraitTree())
}

// mapToDisplay moves a portrait tree to display coordinates, in place.
func (d *Device) mapToDisplay(root *ui.Element) *ui.Element {
	root.Walk(func(n *ui.Element) bool {
		n.B = image.Rectangle{Min: d.toDisplay(n.B.Min), Max: d.toDisplay(n.B.Max)}
		return true
	})
	return root
}

// portraitTree resolves the foreground screen against the state.
func (d *Device) portraitTree() *ui.Element {
	w, h := d.sc.Screen.Width, d.sc.Screen.Height
	if d.st.locked {
		return &ui.Element{Class: "android.widget.FrameLayout", Package: "com.android.systemui", ResourceID: "com.android.systemui:id/keyguard_root_view",
			Enabled: true, B: image.Rect(0, 0, w, h), Color: rgb(0x20, 0x20, 0x30), HasColor: true, Children: []*ui.Element{
				{Class: "android.widget.TextView", Package: "com.android.systemui", ResourceID: "com.android.systemui:id/keyguard_clock", Text: "12:00", Enabled: true, B: image.Rect(0, h/5, w, h/5+h/10)},
				{Class: "android.widget.TextView", Package: "com.android.systemui", ResourceID: "com.android.systemui:id/keyguard_indication_text", Text: "Swipe up to open", Enabled: true, B: image.Rect(0, h*8/10, w, h*8/10+h/20)},
			}}
	}
	t := d.top()
	s := d.screenDef(t.screens[len(t.screens)-1])
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
func (d *Device) applyNodeState(n *ui.Element) {
	if n.Field {
		if v, ok := d.st.fields[n.Key]; ok {
			n.Text = v
		}
		n.Focused = d.st.focus == n.Key
	}
	if n.Checkable {
		if n.Setting != "" {
			n.Checked = d.st.settings[n.Setting] == "1"
		} else if v, ok := d.st.checked[n.Key]; ok {
			n.Checked = v
		}
	}
}

// resolve turns a scenario node into a ui.Element (portrait coordinates).
func (d *Device) resolve(s *ui.ScreenDef, n *ui.Node, path, pkg string) *ui.Element {
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
func (d *Device) listItems(u *ui.Element, it *ui.Items, pkg string) {
	rowH := max(it.Height, 1)
	u.ContentH = it.Count * rowH
	off := d.st.scroll[u.Key]
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
func (d *Device) expandText(s string) string {
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
		b.WriteString(d.fieldText(s[i+2 : i+j]))
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return b.String()
}

// fieldText returns the text typed into the field with this resource-id
// on any screen ("" when none); when several screens have such a field,
// the one with the smallest key wins. d.mu held.
func (d *Device) fieldText(resourceID string) string {
	key, val := "", ""
	for k, v := range d.st.fields {
		if strings.HasSuffix(k, "/"+resourceID) && (key == "" || k < key) {
			key, val = k, v
		}
	}
	return val
}

// launcherTree lays the launcher apps out in a 4-column grid.
func (d *Device) launcherTree(s *ui.ScreenDef) *ui.Element {
	w, h := d.sc.Screen.Width, d.sc.Screen.Height
	pkg := s.Package
	root := &ui.Element{Class: "android.widget.FrameLayout", Package: pkg, Enabled: true, B: image.Rect(0, 0, w, h), Key: s.ID + "/0",
		Color: rgb(0xEC, 0xEF, 0xF1), HasColor: true}
	grid := &ui.Element{Class: "android.view.ViewGroup", Package: pkg, ResourceID: pkg + ":id/workspace", Enabled: true, B: image.Rect(0, h/10, w, h*9/10), Key: s.ID + "/grid"}
	root.Children = append(root.Children, grid)
	cols, cell := 4, w/4
	i := 0
	for _, a := range d.sc.Apps {
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
