package parse

import (
	"regexp"
	"strconv"
	"strings"
)

// inputShownRe is InputMethodManagerService's dump line saying whether the
// soft keyboard is up ("  mInputShown=true", AOSP
// frameworks/base/services/core/java/com/android/server/inputmethod/
// InputMethodManagerService.java dump; Android 14 prints it from the
// visibility state as "mInputShown=false" too).
var inputShownRe = regexp.MustCompile(`(?:^|\s)mInputShown=(true|false)\b`)

// KeyboardShown reads `dumpsys input_method`: whether the soft keyboard is
// shown. known is false when the dump does not say (no such line).
func KeyboardShown(out string) (shown, known bool) {
	m := inputShownRe.FindStringSubmatch(out)
	if m == nil {
		return false, false
	}
	return m[1] == "true", true
}

// windowHeaderRe is a window's header in `dumpsys window windows`
// (WindowState.dump: "  Window #7 Window{f3a1d2 u0 pkg/.Activity}:"): its
// object hash and title.
var windowHeaderRe = regexp.MustCompile(`^\s*Window #\d+ Window\{([0-9a-f]+) (?:u\d+ )?(.*)\}:\s*$`)

// hexFlagsRe is the flags word printed as hex: "#81812100" (Android 8-9,
// LayoutParams.toString) or bare "81910100" (Samsung One UI 2 on Android
// 10, S2-group/android-runner issue "Could not parse activity from dumpsys
// on Android 10, Galaxy A70"). Flag names are never all hex digits.
var hexFlagsRe = regexp.MustCompile(`^#?[0-9a-f]{1,8}$`)

// FocusedWindowSecure reads `dumpsys window` (all sections, or `windows`):
// whether the focused window has FLAG_SECURE, which makes screenshots of it
// black. WindowManager.LayoutParams prints its flags in the window's mAttrs
// as "fl=... SECURE ..." (AOSP frameworks/base/core/java/android/view/
// WindowManager.java LayoutParams.toString), the last of them followed by
// the mAttrs brace when nothing comes after ("SECURE}"). The focused
// window is the one whose object hash mCurrentFocus names: several windows
// may share a title (an app's exiting and new window, a vendor's twin
// window), and only the focused one's flags count. False when nothing has
// focus or the focused window's block is not in the dump.
func FocusedWindowSecure(out string) bool {
	w, focusedID, err := window(out)
	if err != nil || w.FocusedWindow == "" {
		return false
	}
	in := false
	for _, line := range strings.Split(out, "\n") {
		if m := windowHeaderRe.FindStringSubmatch(line); m != nil {
			if focusedID != "" {
				in = m[1] == focusedID
			} else {
				in = strings.TrimSpace(m[2]) == w.FocusedWindow
			}
			continue
		}
		if !in {
			continue
		}
		_, flags, ok := strings.Cut(line, " fl=")
		if !ok {
			if flags, ok = strings.CutPrefix(strings.TrimSpace(line), "fl="); !ok {
				continue
			}
		}
		return secureFlag(flags)
	}
	return false
}

// secureFlag reads the flags after "fl=" up to the next attribute or the
// closing brace: FLAG_SECURE by name, or bit 0x2000 of the hex word.
func secureFlag(flags string) bool {
	for _, f := range strings.Fields(flags) {
		if strings.Contains(f, "=") { // the next attribute: the flags ended
			return false
		}
		name, closed := strings.CutSuffix(f, "}")
		if name == "SECURE" {
			return true
		}
		if hexFlagsRe.MatchString(name) {
			v, err := strconv.ParseUint(strings.TrimPrefix(name, "#"), 16, 32)
			return err == nil && v&0x2000 != 0
		}
		if closed {
			return false
		}
	}
	return false
}
