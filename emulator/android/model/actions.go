package model

import (
	"fmt"
	"image"
	"slices"
	"strings"

	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

// The device's reaction to input. All functions here run with the model locked.

// TapLocked handles a tap at display point p.
func (d *Phone) TapLocked(p image.Point) {
	d.State.LastInput = d.Now()
	if !d.State.ScreenOn || d.State.Locked {
		return
	}
	pt := d.FromDisplay(p)
	if d.State.ANR != "" {
		d.anrTapLocked(pt)
		return
	}
	root := d.PortraitTree()
	n := ui.Hit(root, pt)
	if n == nil {
		return
	}
	if n.Field {
		d.State.Focus, d.State.SelAll = n.Key, false
		d.Changed()
	}
	if n.Checkable && (n.OnTap == nil || n.OnTap.Toggle) {
		d.toggleLocked(n)
	}
	if n.OnTap != nil {
		d.actLocked(n.OnTap)
	}
}

func (d *Phone) toggleLocked(n *ui.Element) {
	v := !n.Checked
	if n.Setting != "" {
		d.State.Settings[n.Setting] = map[bool]string{true: "1", false: "0"}[v]
	} else {
		d.State.Checked[n.Key] = v
	}
	pkg, _ := d.Foreground()
	d.LogApp(pkg, 'I', "ViewRootImpl", fmt.Sprintf("toggle %s -> %t", n.Key, v))
	d.Changed()
}

// actLocked runs a scenario action.
func (d *Phone) actLocked(a *ui.Action) {
	for _, id := range a.RequireFilled {
		if !d.fieldFilled(id) {
			if a.Else != "" {
				d.gotoLocked(a.Else)
			}
			return
		}
	}
	switch {
	case a.ToggleID != "":
		d.PortraitTree().Walk(func(n *ui.Element) bool {
			if n.ResourceID == a.ToggleID && n.Checkable {
				d.toggleLocked(n)
				return false
			}
			return true
		})
	case a.Goto != "":
		d.gotoLocked(a.Goto)
	case a.Launch != "":
		d.LaunchLocked(a.Launch, "")
	case a.Back:
		d.backLocked()
	case a.Home:
		d.homeLocked()
	}
}

func (d *Phone) fieldFilled(id string) bool {
	for k, v := range d.State.Fields {
		if strings.HasSuffix(k, "/"+id) && v != "" {
			return true
		}
	}
	return false
}

// gotoLocked shows screen id: on the current task when it belongs to the
// same package, else on the task of its package.
func (d *Phone) gotoLocked(id string) {
	defer d.syncOrientationLocked()
	s, ok := d.Scenario.ByID[id]
	if !ok {
		return
	}
	t := d.Top()
	if s.Package != t.Pkg && s.Package != "" {
		d.LaunchLocked(s.Package, "")
		t = d.Top()
	}
	if t.Screens[len(t.Screens)-1] != id {
		t.Screens = append(t.Screens, id)
	}
	d.State.Focus = ""
	d.logActivityStart()
	d.Changed()
}

// LaunchLocked brings pkg's task to the front, creating it at the app's
// first screen (or screen, when given) if needed. It reports false for an
// unknown package.
func (d *Phone) LaunchLocked(pkg, screen string) bool {
	defer d.syncOrientationLocked()
	if pkg == d.HomePkg() {
		d.homeLocked()
		return true
	}
	a, ok := d.Scenario.AppByPackage(pkg)
	if !ok {
		return false
	}
	i := slices.IndexFunc(d.State.Tasks, func(t *Task) bool { return t.Pkg == pkg })
	if i >= 0 {
		t := d.State.Tasks[i]
		d.State.Tasks = append(slices.Delete(d.State.Tasks, i, i+1), t)
		if screen != "" && t.Screens[len(t.Screens)-1] != screen {
			t.Screens = append(t.Screens, screen)
		}
	} else {
		first := a.Screen
		if first == "" {
			first = "app:" + pkg
		}
		if screen != "" {
			first = screen
		}
		d.State.Tasks = append(d.State.Tasks, &Task{ID: d.newTaskID(), Pkg: pkg, Screens: []string{first}})
		// A new app process: ART looks for the app's dex metadata next to
		// its APK and logs that there is none, from the app's own pid (a
		// line in practically every app start on Android 10+ in public
		// logcat captures).
		d.LogApp(pkg, 'W', "ziparchive", "Unable to open '"+strings.TrimSuffix(APKPath(a), ".apk")+".dm': No such file or directory")
	}
	d.State.Focus = ""
	d.logActivityStart()
	d.Changed()
	return true
}

// homeLocked brings the home task to the front, at its first screen.
func (d *Phone) homeLocked() {
	defer d.syncOrientationLocked()
	i := slices.IndexFunc(d.State.Tasks, func(t *Task) bool { return t.Pkg == d.HomePkg() })
	t := d.State.Tasks[i]
	t.Screens = t.Screens[:1]
	d.State.Tasks = append(slices.Delete(d.State.Tasks, i, i+1), t)
	d.State.Focus = ""
	d.Changed()
}

// backLocked pops the top screen; an emptied task finishes.
func (d *Phone) backLocked() {
	defer d.syncOrientationLocked()
	t := d.Top()
	d.State.Focus = ""
	d.Changed()
	if len(t.Screens) > 1 {
		t.Screens = t.Screens[:len(t.Screens)-1]
		return
	}
	if t.Pkg == d.HomePkg() {
		return // back on the launcher does nothing
	}
	d.State.Tasks = d.State.Tasks[:len(d.State.Tasks)-1]
	d.ensureHomeOnTop()
}

func (d *Phone) HomePkg() string { return d.Scenario.ByID[d.Scenario.Home].Package }

// ensureHomeOnTop shows the launcher when the task below is not home:
// on a phone, finishing an app returns to the launcher.
func (d *Phone) ensureHomeOnTop() {
	if d.Top().Pkg != d.HomePkg() {
		for i, t := range d.State.Tasks {
			if t.Pkg == d.HomePkg() {
				d.State.Tasks = append(slices.Delete(d.State.Tasks, i, i+1), t)
				return
			}
		}
	}
}

// ForceStopLocked kills pkg's task.
func (d *Phone) ForceStopLocked(pkg string) {
	defer d.syncOrientationLocked()
	if pkg == d.HomePkg() {
		return
	}
	i := slices.IndexFunc(d.State.Tasks, func(t *Task) bool { return t.Pkg == pkg })
	if i < 0 {
		return
	}
	wasTop := i == len(d.State.Tasks)-1
	d.State.Tasks = slices.Delete(d.State.Tasks, i, i+1)
	if d.State.ANR == pkg {
		d.State.ANR = "" // a killed app's ANR dialog goes with it
	}
	for k := range d.State.Fields {
		if s, ok := d.Scenario.ByID[strings.SplitN(k, "/", 2)[0]]; ok && s.Package == pkg {
			delete(d.State.Fields, k)
		}
	}
	if wasTop {
		d.ensureHomeOnTop()
		d.State.Focus = ""
	}
	d.Changed()
}

// TypeLocked appends text to the focused field.
func (d *Phone) TypeLocked(text string) {
	d.State.LastInput = d.Now()
	if d.State.Focus == "" || !d.State.ScreenOn || d.State.Locked {
		return
	}
	if d.State.SelAll {
		d.State.Fields[d.State.Focus], d.State.SelAll = "", false
	}
	d.State.Fields[d.State.Focus] += text
	d.Changed()
}

// SwipeLocked scrolls the list under the start point or unlocks.
func (d *Phone) SwipeLocked(from, to image.Point) {
	d.State.LastInput = d.Now()
	if !d.State.ScreenOn {
		return
	}
	if d.State.Locked {
		if from.Y-to.Y > d.DisplaySize().Y/5 {
			d.State.Locked = false
			d.Changed()
		}
		return
	}
	pf, pt := d.FromDisplay(from), d.FromDisplay(to)
	s := ui.ScrollerAt(d.PortraitTree(), pf)
	if s == nil || s.ContentH == 0 {
		return
	}
	maxOff := max(s.ContentH-s.B.Dy(), 0)
	off := min(max(d.State.Scroll[s.Key]+(pf.Y-pt.Y), 0), maxOff)
	if off != d.State.Scroll[s.Key] {
		d.State.Scroll[s.Key] = off
		d.Changed()
	}
}

// KeyLocked handles a key press by key code.
func (d *Phone) KeyLocked(code int) {
	d.State.LastInput = d.Now()
	switch code {
	case 3: // HOME
		d.wakeLocked()
		if !d.State.Locked {
			d.homeLocked()
		}
	case 4, 111: // BACK, ESCAPE
		if d.State.ScreenOn && !d.State.Locked {
			d.backLocked()
		}
	case 26: // POWER
		d.State.ScreenOn = !d.State.ScreenOn
		if !d.State.ScreenOn {
			d.State.Locked = d.Scenario.Locked || d.State.Locked
		}
		d.Changed()
	case 224: // WAKEUP
		d.wakeLocked()
	case 223: // SLEEP
		d.State.ScreenOn = false
		d.Changed()
	case 82: // MENU dismisses an insecure keyguard
		if d.State.ScreenOn && d.State.Locked {
			d.State.Locked = false
			d.Changed()
		}
	case 67: // DEL
		if f := d.State.Focus; f != "" && d.State.SelAll {
			d.State.Fields[f], d.State.SelAll = "", false
			d.Changed()
		} else if f != "" && d.State.Fields[f] != "" {
			r := []rune(d.State.Fields[f])
			d.State.Fields[f] = string(r[:len(r)-1])
			d.Changed()
		}
	case 66, 160: // ENTER, NUMPAD_ENTER
		if d.State.Focus == "" || !d.State.ScreenOn || d.State.Locked {
			return
		}
		var act *ui.Action
		d.PortraitTree().Walk(func(n *ui.Element) bool {
			if n.Key == d.State.Focus {
				act = n.OnEnter
				return false
			}
			return true
		})
		if act != nil {
			d.actLocked(act)
		}
	case 62: // SPACE
		d.TypeLocked(" ")
	default:
		if code >= 7 && code <= 16 { // digits
			d.TypeLocked(string(rune('0' + code - 7)))
		} else if code >= 29 && code <= 54 { // letters
			d.TypeLocked(string(rune('a' + code - 29)))
		}
	}
}

func (d *Phone) wakeLocked() {
	if !d.State.ScreenOn {
		d.State.ScreenOn = true
		d.Changed()
	}
}
