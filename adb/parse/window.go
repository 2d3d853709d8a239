package parse

import (
	"regexp"
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
	// Rotation is 0-3 (Surface.ROTATION_*); RotationKnown is false when no
	// rotation field was found and Rotation is 0 by default.
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
	var w WindowState
	known := false
	lines := splitLines(out)

	// One pass; a regexp runs only on lines holding its literal key, which
	// keeps a 200 KB dump cheap. The first match of each kind wins.
	var focusApps []string
	var focusComp *Component
	var focusPkg string
	var rotLine, rotAltLine, dispInfoLine, awakeLine string
	var keyguardLines []string
	for _, line := range lines {
		if strings.Contains(line, "mCurrentFocus=") {
			if m := currentFocusRe.FindStringSubmatch(line); m != nil {
				known = true
				w.FocusedWindow, focusComp, focusPkg = pickFocus(m[1], w.FocusedWindow, focusComp, focusPkg)
			}
		}
		if strings.Contains(line, "mFocusedApp=") {
			if m := focusedAppRe.FindStringSubmatch(line); m != nil {
				known = true
				focusApps = append(focusApps, m[1])
			}
		}
		if rotLine == "" && strings.Contains(line, "mRotation=") && rotationRe.MatchString(line) {
			rotLine = line
		}
		if rotAltLine == "" && strings.Contains(line, "Rotation=") && rotationAltRe.MatchString(line) {
			rotAltLine = line
		}
		if dispInfoLine == "" && strings.Contains(line, "DisplayInfo{") && displayInfoRotRe.MatchString(line) {
			dispInfoLine = line
		}
		if strings.Contains(line, "Lockscreen=") || strings.Contains(line, "Keyguard") {
			keyguardLines = append(keyguardLines, line)
		}
		if awakeLine == "" && (strings.Contains(line, "mAwake=") || strings.Contains(line, "mScreenOnFully=")) && awakeRe.MatchString(line) {
			awakeLine = line
		}
	}
	if focusComp == nil {
		// The focused window names no activity: the focused app's does,
		// when it is of the same package (a splash screen, a vendor
		// "pkg:hash" window) or the window names none (NotificationShade).
		for _, app := range focusApps {
			if c, ok := componentInRecord(app); ok && (focusPkg == "" || c.Package == focusPkg) {
				focusComp = &c
				break
			}
		}
	}
	switch {
	case focusComp != nil:
		w.FocusedPackage, w.FocusedActivity = focusComp.Package, focusComp.Activity
	case focusPkg != "":
		w.FocusedPackage = focusPkg
	}

	// Rotation.
	if r, ok := windowRotation(rotLine, rotAltLine, dispInfoLine); ok {
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
		return WindowState{}, formatErr("dumpsys window", "no focus, rotation or keyguard field in "+clip(out))
	}
	return w, nil
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

// pickFocus folds one mCurrentFocus window into the running choice: the
// first window naming a package wins; until one is seen, the first non-null
// title is kept as FocusedWindow.
func pickFocus(inner, cur string, comp *Component, pkg string) (string, *Component, string) {
	if pkg != "" || inner == "" {
		return cur, comp, pkg
	}
	w := parseWindowTitle(inner)
	if w.Package != "" {
		return w.Title, w.Comp, w.Package
	}
	if cur == "" {
		cur = w.Title
	}
	return cur, nil, ""
}
