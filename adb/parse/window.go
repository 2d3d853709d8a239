package parse

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// WindowState is what `dumpsys window` (Android 8-14) says about focus,
// rotation, keyguard and screen.
type WindowState struct {
	// FocusedWindow is the title of the focused window (mCurrentFocus), e.g.
	// "com.android.settings/com.android.settings.Settings", "StatusBar",
	// "NotificationShade"; "" when nothing has focus.
	FocusedWindow string `json:"focused_window,omitempty"`
	// FocusedPackage and FocusedActivity name the focused app: from
	// mCurrentFocus when it is an activity window, else from mFocusedApp.
	FocusedPackage  string `json:"focused_package,omitempty"`
	FocusedActivity string `json:"focused_activity,omitempty"`
	// FocusedDisplay is the id of the display the focus above was read
	// from: the one with input focus (mTopFocusedDisplayId), else display 0,
	// else the first with a focused window or app. 0 on single-display
	// phones and on dumps that print no per-display blocks.
	FocusedDisplay int `json:"focused_display,omitempty"`
	// Rotation is 0-3 (Surface.ROTATION_*) of display 0; RotationKnown is
	// false when no rotation field was found and Rotation is 0 by default.
	Rotation      int  `json:"rotation"`
	RotationKnown bool `json:"rotation_known"`
	// KeyguardShowing is true when the lock screen is up; KeyguardKnown is
	// false when no keyguard field was found.
	KeyguardShowing bool `json:"keyguard_showing"`
	KeyguardKnown   bool `json:"keyguard_known"`
	// KeyguardOccluded is true when an activity shows over the keyguard
	// (camera, alarm, call); KeyguardShowing stays true then.
	KeyguardOccluded bool `json:"keyguard_occluded,omitempty"`
	// ScreenOn is nil when the dump does not say.
	ScreenOn *bool `json:"screen_on,omitempty"`
}

var (
	currentFocusRe = regexp.MustCompile(`(?:^|\s)mCurrentFocus=(?:Window\{([^}]*)\}|null)`)
	focusedAppRe   = regexp.MustCompile(`(?:^|\s)mFocusedApp=(\S.*)`)
	// AOSP DisplayContent.dump: "  Display: mDisplayId=0 rootTasks=4" opens
	// each display's block; RootWindowContainer.dumpTopFocusedDisplayId:
	// "  mTopFocusedDisplayId=0" (Android 10+, in the windows section).
	displayIDRe  = regexp.MustCompile(`^\s*Display: mDisplayId=(\d+)`)
	topFocusedRe = regexp.MustCompile(`(?:^|\s)mTopFocusedDisplayId=(-?\d+)`)
	// DisplayRotation (Android 10+): "  mRotation=1 mDeferredRotationPauseCount=0";
	// DisplayContent (Android 8-9): "mRotation=1 mAltOrientation=false".
	rotationRe    = regexp.MustCompile(`(?:^|\s)mRotation=(\d)\b`)
	rotationAltRe = regexp.MustCompile(`(?:^|\s)m(?:Current|Display)Rotation=(ROTATION_)?(\d+)\b`)
	// DisplayInfo.toString: "mDisplayInfo=DisplayInfo{"Built-in Screen", displayId 0, ..., rotation 1, ...}".
	displayInfoRotRe = regexp.MustCompile(`DisplayInfo\{[^\n]*?, rotation (\d)\b`)
	keyguardTrueRe   = regexp.MustCompile(`(?:^|\s)(?:mShowingLockscreen|mDreamingLockscreen|isStatusBarKeyguard|mKeyguardShowing|isKeyguardShowing)=(true|false)`)
	delegateFieldRe  = regexp.MustCompile(`^(showing|occluded|screenState|interactiveState)=(\S+)`)
	awakeRe          = regexp.MustCompile(`(?:^|\s)(?:mAwake|mScreenOnFully)=(true|false)`)
)

// Window parses `dumpsys window` (or `dumpsys window policy` /
// `dumpsys window displays`, which hold subsets of the same fields). Output
// with none of the known fields is an error.
func Window(out string) (WindowState, error) {
	w, _, err := window(out)
	return w, err
}

// window is Window that also returns the focused window's object hash
// ("8c3e1aa" of mCurrentFocus=Window{8c3e1aa u0 ...}), which tells the
// focused window from others of the same title in the window list.
func window(out string) (w WindowState, focusedID string, err error) {
	known := false
	lines := splitLines(out)

	// One pass; a regexp runs only on lines holding its literal key, which
	// keeps a 200 KB dump cheap. Android 10+ prints mCurrentFocus and
	// mFocusedApp once per display, inside that display's block, in
	// WindowManager's z-order rather than by id (a car head unit lists
	// displays 3, 1, 2, 0); older releases print them once, outside any
	// block. Lines outside a block belong to display -1.
	foci := map[int]*displayFocus{}
	var order []int
	focusOf := func(id int) *displayFocus {
		if f, ok := foci[id]; ok {
			return f
		}
		f := &displayFocus{}
		foci[id] = f
		order = append(order, id)
		return f
	}
	display, topFocused := -1, -1
	rot := map[int]*rotationLines{}
	rotOf := func(id int) *rotationLines {
		if r, ok := rot[id]; ok {
			return r
		}
		r := &rotationLines{}
		rot[id] = r
		return r
	}
	var awakeLine string
	var keyguardLines []string
	for _, line := range lines {
		if line != "" && line[0] != ' ' && line[0] != '\t' {
			display = -1 // a new top-level section
		}
		if strings.Contains(line, "Display: mDisplayId=") {
			if m := displayIDRe.FindStringSubmatch(line); m != nil {
				if id, err := strconv.Atoi(m[1]); err == nil {
					display = id
				}
			}
		}
		if strings.Contains(line, "mTopFocusedDisplayId=") {
			if m := topFocusedRe.FindStringSubmatch(line); m != nil {
				if id, err := strconv.Atoi(m[1]); err == nil {
					topFocused = id
				}
			}
		}
		if strings.Contains(line, "mCurrentFocus=") {
			if m := currentFocusRe.FindStringSubmatch(line); m != nil {
				known = true
				focusOf(display).addWindow(m[1])
			}
		}
		if strings.Contains(line, "mFocusedApp=") {
			if m := focusedAppRe.FindStringSubmatch(line); m != nil {
				known = true
				f := focusOf(display)
				f.apps = append(f.apps, m[1])
			}
		}
		r := rotOf(display)
		if r.rot == "" && strings.Contains(line, "mRotation=") && rotationRe.MatchString(line) {
			r.rot = line
		}
		if r.alt == "" && strings.Contains(line, "Rotation=") && rotationAltRe.MatchString(line) {
			r.alt = line
		}
		if r.info == "" && strings.Contains(line, "DisplayInfo{") && displayInfoRotRe.MatchString(line) {
			r.info = line
		}
		if strings.Contains(line, "Lockscreen=") || strings.Contains(line, "Keyguard") {
			keyguardLines = append(keyguardLines, line)
		}
		if awakeLine == "" && (strings.Contains(line, "mAwake=") || strings.Contains(line, "mScreenOnFully=")) && awakeRe.MatchString(line) {
			awakeLine = line
		}
	}
	// The display with input focus, else the main display, else the
	// focus printed outside any block, else the first display that has one.
	candidates := append([]int{0, -1}, order...)
	if topFocused >= 0 {
		candidates = append([]int{topFocused}, candidates...)
	}
	for _, id := range candidates {
		f, ok := foci[id]
		if !ok {
			continue
		}
		if pkg, act, ok := f.app(id == -1); ok || f.window != "" {
			w.FocusedWindow, focusedID, w.FocusedPackage, w.FocusedActivity = f.window, f.id, pkg, act
			w.FocusedDisplay = max(id, 0)
			break
		}
	}

	// Rotation.
	// Display 0's (what screencap and input use by default), else the
	// rotation printed outside any block, else the first display's.
	rl := rot[0]
	if rl == nil || *rl == (rotationLines{}) {
		rl = rot[-1]
	}
	if rl == nil || *rl == (rotationLines{}) {
		for _, id := range order {
			if r := rot[id]; r != nil && *r != (rotationLines{}) {
				rl = r
				break
			}
		}
	}
	if rl == nil {
		rl = &rotationLines{}
	}
	if r, ok := windowRotation(rl.rot, rl.alt, rl.info); ok {
		w.Rotation, w.RotationKnown, known = r, true, true
	}

	// Keyguard and screen: the KeyguardServiceDelegate block is
	// authoritative; the older PhoneWindowManager flags are the fallback.
	delegate := keyguardDelegate(lines)
	if v, ok := delegate["showing"]; ok {
		w.KeyguardShowing, w.KeyguardKnown, known = v == "true", true, true
		w.KeyguardOccluded = delegate["occluded"] == "true"
	} else {
		for _, line := range keyguardLines {
			for _, m := range keyguardTrueRe.FindAllStringSubmatch(line, -1) {
				w.KeyguardKnown, known = true, true
				if m[1] == "true" {
					w.KeyguardShowing = true
				}
			}
		}
	}
	on, onKnown := false, false
	switch v := delegate["interactiveState"]; {
	case v != "":
		// Android 8 prints the int: SLEEP=0 WAKING=1 AWAKE=2 GOING_TO_SLEEP=3.
		on, onKnown = v == "INTERACTIVE_STATE_AWAKE" || v == "INTERACTIVE_STATE_WAKING" || v == "1" || v == "2", true
	case delegate["screenState"] != "":
		s := delegate["screenState"]
		// Android 8 prints the int: OFF=0 TURNING_ON=1 ON=2 TURNING_OFF=3.
		on, onKnown = s == "SCREEN_STATE_ON" || s == "SCREEN_STATE_TURNING_ON" || s == "1" || s == "2", true
	default:
		if m := awakeRe.FindStringSubmatch(awakeLine); m != nil {
			on, onKnown = m[1] == "true", true
		}
	}
	if onKnown {
		w.ScreenOn, known = &on, true
	}
	if !known {
		return WindowState{}, "", formatErr("dumpsys window", "no focus, rotation or keyguard field in "+clip(out))
	}
	return w, focusedID, nil
}

// keyguardDelegate reads the fields of the "KeyguardServiceDelegate" block:
// the lines indented deeper than its header, up to the nested
// "KeyguardStateMonitor" block.
func keyguardDelegate(lines []string) map[string]string {
	f := map[string]string{}
	for i, line := range lines {
		if strings.TrimSpace(line) != "KeyguardServiceDelegate" {
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " \t"))
		for _, l := range lines[i+1:] {
			t := strings.TrimSpace(l)
			if t == "" {
				continue
			}
			if len(l)-len(strings.TrimLeft(l, " \t")) <= indent || t == "KeyguardStateMonitor" {
				break
			}
			if m := delegateFieldRe.FindStringSubmatch(t); m != nil {
				f[m[1]] = m[2]
			}
		}
		break
	}
	return f
}

// windowRotation finds the default display's rotation: the numeric
// mRotation= of DisplayRotation / WindowManagerService (never the
// "mRotation=ROTATION_90" of a window's winConfig), then
// mCurrentRotation=/mDisplayRotation= (a number, or ROTATION_<degrees>),
// then the DisplayInfo "rotation N".
func windowRotation(rotLine, rotAltLine, dispInfoLine string) (int, bool) {
	if m := rotationRe.FindStringSubmatch(rotLine); m != nil {
		if r, err := strconv.Atoi(m[1]); err == nil && r <= 3 {
			return r, true
		}
	}
	if m := rotationAltRe.FindStringSubmatch(rotAltLine); m != nil {
		if r, err := strconv.Atoi(m[2]); err == nil {
			if m[1] != "" { // ROTATION_0/90/180/270
				if r%90 != 0 {
					return 0, false
				}
				r /= 90
			}
			if r >= 0 && r <= 3 {
				return r, true
			}
		}
	}
	if m := displayInfoRotRe.FindStringSubmatch(dispInfoLine); m != nil {
		if r, err := strconv.Atoi(m[1]); err == nil && r <= 3 {
			return r, true
		}
	}
	return 0, false
}

// rotationLines are the first line of each rotation field in one display's
// block.
type rotationLines struct{ rot, alt, info string }

// displayFocus is what one display's block says has focus.
type displayFocus struct {
	// window is the focused window's title (the first one naming a
	// package, else the first non-null one), id its object hash.
	window, id string
	comp       *Component
	pkg        string
	// apps are the mFocusedApp values, in order.
	apps []string
}

// addWindow folds one mCurrentFocus window ("" for null) into f: the first
// window naming a package wins; until one is seen, the first non-null title
// is kept.
func (f *displayFocus) addWindow(inner string) {
	if f.pkg != "" || inner == "" {
		return
	}
	w := parseWindowTitle(inner)
	id, _, _ := strings.Cut(inner, " ")
	if w.Package != "" {
		f.window, f.id, f.comp, f.pkg = w.Title, id, w.Comp, w.Package
		return
	}
	if f.window == "" {
		f.window, f.id = w.Title, id
	}
}

// app names the focused app: the focused window's activity; else the
// focused app's, when it is of the window's package (a splash screen, a
// vendor "pkg:hash" window) or the window names none (NotificationShade);
// else the window's package alone. flat says the lines came outside any
// display block: one per display when there are several (a grep of an
// Android 10+ dump), and then the last is taken: the real two-display
// captures list the default display's app last, after the cover screen's
// (Galaxy Z Flip 5G and Flip 4 on Android 12, appium/appium issue
// "mFocusedApp and mCurrentFocus return two entries on Android 12 Galaxy
// Flip 5G" and appium/appium-adb issue "getFocusedPackageAndActivity()
// returns wrong answer on Android 12 Galaxy Flip 4": SubHomeActivity first).
func (f *displayFocus) app(flat bool) (pkg, activity string, ok bool) {
	if f.comp != nil {
		return f.comp.Package, f.comp.Activity, true
	}
	apps := f.apps
	if flat {
		apps = slices.Clone(apps)
		slices.Reverse(apps)
	}
	for _, app := range apps {
		if c, ok := componentInRecord(app); ok && (f.pkg == "" || c.Package == f.pkg) {
			return c.Package, c.Activity, true
		}
	}
	return f.pkg, "", f.pkg != ""
}
