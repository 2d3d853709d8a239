package android

import (
	"fmt"
	"image"
	"slices"
	"strings"

	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

// The device's reaction to input. All functions here run with d.mu held.

// tapLocked handles a tap at display point p.
func (d *Device) tapLocked(p image.Point) {
	d.st.lastInput = d.now()
	if !d.st.screenOn || d.st.locked {
		return
	}
	pt := d.fromDisplay(p)
	if d.st.anr != "" {
		d.anrTapLocked(pt)
		return
	}
	root := d.portraitTree()
	n := ui.Hit(root, pt)
	if n == nil {
		return
	}
	if n.Field {
		d.st.focus, d.st.selAll = n.Key, false
		d.changed()
	}
	if n.Checkable && (n.OnTap == nil || n.OnTap.Toggle) {
		d.toggleLocked(n)
	}
	if n.OnTap != nil {
		d.actLocked(n.OnTap)
	}
}

func (d *Device) toggleLocked(n *ui.Element) {
	v := !n.Checked
	if n.Setting != "" {
		d.st.settings[n.Setting] = map[bool]string{true: "1", false: "0"}[v]
	} else {
		d.st.checked[n.Key] = v
	}
	pkg, _ := d.foreground()
	d.logApp(pkg, 'I', "ViewRootImpl", fmt.Sprintf("toggle %s -> %t", n.Key, v))
	d.changed()
}

// actLocked runs a scenario action.
func (d *Device) actLocked(a *ui.Action) {
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
		d.portraitTree().Walk(func(n *ui.Element) bool {
			if n.ResourceID == a.ToggleID && n.Checkable {
				d.toggleLocked(n)
				return false
			}
			return true
		})
	case a.Goto != "":
		d.gotoLocked(a.Goto)
	case a.Launch != "":
		d.launchLocked(a.Launch, "")
	case a.Back:
		d.backLocked()
	case a.Home:
		d.homeLocked()
	}
}

func (d *Device) fieldFilled(id string) bool {
	for k, v := range d.st.fields {
		if strings.HasSuffix(k, "/"+id) && v != "" {
			return true
		}
	}
	return false
}

// gotoLocked shows screen id: on the current task when it belongs to the
// same package, else on the task of its package.
func (d *Device) gotoLocked(id string) {
	defer d.syncOrientationLocked()
	s, ok := d.sc.ByID[id]
	if !ok {
		return
	}
	t := d.top()
	if s.Package != t.pkg && s.Package != "" {
		d.launchLocked(s.Package, "")
		t = d.top()
	}
	if t.screens[len(t.screens)-1] != id {
		t.screens = append(t.screens, id)
	}
	d.st.focus = ""
	d.logActivityStart()
	d.changed()
}

// launchLocked brings pkg's task to the front, creating it at the app's
// first screen (or screen, when given) if needed. It reports false for an
// unknown package.
func (d *Device) launchLocked(pkg, screen string) bool {
	defer d.syncOrientationLocked()
	if pkg == d.homePkg() {
		d.homeLocked()
		return true
	}
	a, ok := d.sc.AppByPackage(pkg)
	if !ok {
		return false
	}
	i := slices.IndexFunc(d.st.tasks, func(t *task) bool { return t.pkg == pkg })
	if i >= 0 {
		t := d.st.tasks[i]
		d.st.tasks = append(slices.Delete(d.st.tasks, i, i+1), t)
		if screen != "" && t.screens[len(t.screens)-1] != screen {
			t.screens = append(t.screens, screen)
		}
	} else {
		first := a.Screen
		if first == "" {
			first = "app:" + pkg
		}
		if screen != "" {
			first = screen
		}
		d.st.tasks = append(d.st.tasks, &task{id: d.newTaskID(), pkg: pkg, screens: []string{first}})
		// A new app process: ART looks for the app's dex metadata next to
		// its APK and logs that there is none, from the app's own pid (a
		// line in practically every app start on Android 10+ in public
		// logcat captures).
		d.logApp(pkg, 'W', "ziparchive", "Unable to open '"+strings.TrimSuffix(apkPath(a), ".apk")+".dm': No such file or directory")
	}
	d.st.focus = ""
	d.logActivityStart()
	d.changed()
	return true
}

// homeLocked brings the home task to the front, at its first screen.
func (d *Device) homeLocked() {
	defer d.syncOrientationLocked()
	i := slices.IndexFunc(d.st.tasks, func(t *task) bool { return t.pkg == d.homePkg() })
	t := d.st.tasks[i]
	t.screens = t.screens[:1]
	d.st.tasks = append(slices.Delete(d.st.tasks, i, i+1), t)
	d.st.focus = ""
	d.changed()
}

// backLocked pops the top screen; an emptied task finishes.
func (d *Device) backLocked() {
	defer d.syncOrientationLocked()
	t := d.top()
	d.st.focus = ""
	d.changed()
	if len(t.screens) > 1 {
		t.screens = t.screens[:len(t.screens)-1]
		return
	}
	if t.pkg == d.homePkg() {
		return // back on the launcher does nothing
	}
	d.st.tasks = d.st.tasks[:len(d.st.tasks)-1]
	d.ensureHomeOnTop()
}

func (d *Device) homePkg() string { return d.sc.ByID[d.sc.Home].Package }

// ensureHomeOnTop shows the launcher when the task below is not home:
// on a phone, finishing an app returns to the launcher.
func (d *Device) ensureHomeOnTop() {
	if d.top().pkg != d.homePkg() {
		for i, t := range d.st.tasks {
			if t.pkg == d.homePkg() {
				d.st.tasks = append(slices.Delete(d.st.tasks, i, i+1), t)
				return
			}
		}
	}
}

// forceStopLocked kills pkg's task.
func (d *Device) forceStopLocked(pkg string) {
	defer d.syncOrientationLocked()
	if pkg == d.homePkg() {
		return
	}
	i := slices.IndexFunc(d.st.tasks, func(t *task) bool { return t.pkg == pkg })
	if i < 0 {
		return
	}
	wasTop := i == len(d.st.tasks)-1
	d.st.tasks = slices.Delete(d.st.tasks, i, i+1)
	if d.st.anr == pkg {
		d.st.anr = "" // a killed app's ANR dialog goes with it
	}
	for k := range d.st.fields {
		if s, ok := d.sc.ByID[strings.SplitN(k, "/", 2)[0]]; ok && s.Package == pkg {
			delete(d.st.fields, k)
		}
	}
	if wasTop {
		d.ensureHomeOnTop()
		d.st.focus = ""
	}
	d.changed()
}

// typeLocked appends text to the focused field.
func (d *Device) typeLocked(text string) {
	d.st.lastInput = d.now()
	if d.st.focus == "" || !d.st.screenOn || d.st.locked {
		return
	}
	if d.st.selAll {
		d.st.fields[d.st.focus], d.st.selAll = "", false
	}
	d.st.fields[d.st.focus] += text
	d.changed()
}

// swipeLocked scrolls the list under the start point or unlocks.
func (d *Device) swipeLocked(from, to image.Point) {
	d.st.lastInput = d.now()
	if !d.st.screenOn {
		return
	}
	if d.st.locked {
		if from.Y-to.Y > d.displaySize().Y/5 {
			d.st.locked = false
			d.changed()
		}
		return
	}
	pf, pt := d.fromDisplay(from), d.fromDisplay(to)
	s := ui.ScrollerAt(d.portraitTree(), pf)
	if s == nil || s.ContentH == 0 {
		return
	}
	maxOff := max(s.ContentH-s.B.Dy(), 0)
	off := min(max(d.st.scroll[s.Key]+(pf.Y-pt.Y), 0), maxOff)
	if off != d.st.scroll[s.Key] {
		d.st.scroll[s.Key] = off
		d.changed()
	}
}

// keyLocked handles a key press by key code.
func (d *Device) keyLocked(code int) {
	d.st.lastInput = d.now()
	switch code {
	case 3: // HOME
		d.wakeLocked()
		if !d.st.locked {
			d.homeLocked()
		}
	case 4, 111: // BACK, ESCAPE
		if d.st.screenOn && !d.st.locked {
			d.backLocked()
		}
	case 26: // POWER
		d.st.screenOn = !d.st.screenOn
		if !d.st.screenOn {
			d.st.locked = d.sc.Locked || d.st.locked
		}
		d.changed()
	case 224: // WAKEUP
		d.wakeLocked()
	case 223: // SLEEP
		d.st.screenOn = false
		d.changed()
	case 82: // MENU dismisses an insecure keyguard
		if d.st.screenOn && d.st.locked {
			d.st.locked = false
			d.changed()
		}
	case 67: // DEL
		if f := d.st.focus; f != "" && d.st.selAll {
			d.st.fields[f], d.st.selAll = "", false
			d.changed()
		} else if f != "" && d.st.fields[f] != "" {
			r := []rune(d.st.fields[f])
			d.st.fields[f] = string(r[:len(r)-1])
			d.changed()
		}
	case 66, 160: // ENTER, NUMPAD_ENTER
		if d.st.focus == "" || !d.st.screenOn || d.st.locked {
			return
		}
		var act *ui.Action
		d.portraitTree().Walk(func(n *ui.Element) bool {
			if n.Key == d.st.focus {
				act = n.OnEnter
				return false
			}
			return true
		})
		if act != nil {
			d.actLocked(act)
		}
	case 62: // SPACE
		d.typeLocked(" ")
	default:
		if code >= 7 && code <= 16 { // digits
			d.typeLocked(string(rune('0' + code - 7)))
		} else if code >= 29 && code <= 54 { // letters
			d.typeLocked(string(rune('a' + code - 29)))
		}
	}
}

func (d *Device) wakeLocked() {
	if !d.st.screenOn {
		d.st.screenOn = true
		d.changed()
	}
}
