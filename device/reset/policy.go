package reset

// Policy says what a reset does, in this order. The zero value does
// nothing (and a device owes no reset); DefaultPolicy is the default.
type Policy struct {
	// Home presses HOME (KEYCODE_HOME), so the next user starts from the
	// launcher.
	Home bool
	// ForceStopLaunched force-stops the apps the binding started: apps with
	// a launcher entry running at the release but not when the binding
	// began, and the app left in front (never the launcher).
	ForceStopLaunched bool
	// ClearPackages are cleared (pm clear: their data and accounts go).
	// A package the phone does not have is skipped.
	ClearPackages []string
	// DeleteFiles deletes the files the connector left on the phone
	// (/data/local/tmp/adbc-*, a recording in progress included).
	DeleteFiles bool
	// ScreenOff turns the screen off (KEYCODE_SLEEP) last.
	ScreenOff bool
	// UninstallInstalled uninstalls the apps the binding installed: the
	// user-installed packages the phone has at the release and did not
	// have when the binding began (policy apps.uninstall_on_reset). The
	// baseline lists them only when this is on.
	UninstallInstalled bool
}

// DefaultPolicy goes home, stops the apps the binding launched and deletes
// the connector's files: cheap, and nothing the next user would miss.
// Clearing data and turning the screen off change the phone more, so an
// operator asks for them.
func DefaultPolicy() Policy {
	return Policy{Home: true, ForceStopLaunched: true, DeleteFiles: true}
}

// Empty reports whether the reset does nothing.
func (p Policy) Empty() bool {
	return !p.Home && !p.ForceStopLaunched && len(p.ClearPackages) == 0 && !p.DeleteFiles && !p.ScreenOff && !p.UninstallInstalled
}
