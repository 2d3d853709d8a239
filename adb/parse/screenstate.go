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
// (WindowState.dump: "  Window #7 Window{f3a1d2 u0 pkg/.Activity}:").
var windowHeaderRe = regexp.MustCompile(`^\s*Window #\d+ Window\{[0-9a-f]+ (?:u\d+ )?(.*)\}:\s*$`)

// FocusedWindowSecure reads `dumpsys window` (all sections, or `windows`):
// whether the focused window has FLAG_SECURE, which makes screenshots of it
// black. WindowManager.LayoutParams prints its flags in the window's mAttrs
// as "fl=... SECURE ..." (AOSP frameworks/base/core/java/android/view/
// WindowManager.java LayoutParams.toString). False when nothing has focus
// or the focused window's block is not in the dump.
func FocusedWindowSecure(out string) bool {
	w, err := Window(out)
	if err != nil || w.FocusedWindow == "" {
		return false
	}
	in := false
	for _, line := range strings.Split(out, "\n") {
		if m := windowHeaderRe.FindStringSubmatch(line); m != nil {
			in = strings.TrimSpace(m[1]) == w.FocusedWindow
			continue
		}
		if !in {
			continue
		}
		if _, flags, ok := strings.Cut(line, " fl="); ok || strings.HasPrefix(strings.TrimSpace(line), "fl=") {
			if !ok {
				_, flags, _ = strings.Cut(line, "fl=")
			}
			for _, f := range strings.Fields(flags) {
				if f == "SECURE" {
					return true
				}
				// Android 8-9 print the flags as hex ("fl=#81810100");
				// FLAG_SECURE is 0x2000.
				if h, ok := strings.CutPrefix(f, "#"); ok {
					v, err := strconv.ParseUint(h, 16, 32)
					return err == nil && v&0x2000 != 0
				}
				if strings.Contains(f, "=") { // the next attribute: the flags ended
					break
				}
			}
		}
	}
	return false
}
