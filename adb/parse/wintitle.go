package parse

import "strings"

// windowTitle is what one "Window{...}" of `dumpsys window` names.
type windowTitle struct {
	// Title is the window's title without the vendor attributes that may
	// follow it ("com.android.settings/com.android.settings.Settings",
	// "NotificationShade", "Splash Screen com.example.app").
	Title string
	// Comp is set when the title is an activity's component.
	Comp *Component
	// Package is the package the window names, when it names one: an
	// activity's, a splash screen's, or a vendor "pkg:hash" prefix.
	Package string
}

// parseWindowTitle reads the inside of "Window{...}".
//
// AOSP frameworks/base/services/core/java/com/android/server/wm/WindowState.java
// toString prints "Window{" + identity hash + " u" + userId + " " + title,
// then " EXITING" while the window animates out, then "}" (Android 4.1 and
// older print no " uN"). Some vendor builds append attributes such as
// " type=1 " after the title, or put the owning package before the hash
// ("Window{com.android.systemui:6d67f78 u0 NotificationShade}"). Splash
// windows are titled "Splash Screen <package>" (AOSP StartingSurfaceDrawer /
// PhoneWindowManager.addSplashScreen), older starting windows
// "Starting <package>".
func parseWindowTitle(inner string) windowTitle {
	fields := strings.Fields(inner)
	if len(fields) == 0 {
		return windowTitle{}
	}
	var w windowTitle
	head := fields[0]
	if _, err := ParseComponent(head); err != nil { // else "Window{pkg/Class}": no hash
		if pkg, hash, ok := strings.Cut(head, ":"); ok && isHex(hash) && ValidPackage(pkg) {
			w.Package = pkg
		}
		fields = fields[1:]
		if len(fields) > 0 && isUserID(fields[0]) {
			fields = fields[1:]
		}
	}
	// Trailing vendor attributes ("type=1"), the exit marker and the
	// "paused=" of very old builds are not part of the title.
	for len(fields) > 0 {
		last := fields[len(fields)-1]
		if last != "EXITING" && !strings.Contains(last, "=") {
			break
		}
		fields = fields[:len(fields)-1]
	}
	w.Title = strings.Join(fields, " ")
	if c, err := ParseComponent(w.Title); err == nil {
		w.Comp, w.Package = &c, c.Package
		return w
	}
	for _, prefix := range []string{"Splash Screen ", "Starting "} {
		if pkg, ok := strings.CutPrefix(w.Title, prefix); ok && ValidPackage(pkg) {
			w.Package = pkg
		}
	}
	return w
}

// isUserID reports whether s is the "u0" / "u10" user field.
func isUserID(s string) bool {
	if len(s) < 2 || s[0] != 'u' {
		return false
	}
	for _, r := range s[1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// isHex reports whether s is a non-empty lowercase hex number (an identity
// hash as Integer.toHexString prints it).
func isHex(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}
