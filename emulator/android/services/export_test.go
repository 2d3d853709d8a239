package services

// SettingsHelp is `settings`' usage text, for the tests that run it.
const SettingsHelp = settingsHelp

// ReadAPK is what `pm install` reads of a file: package, versionCode and
// versionName, or the failure message pm prints.
func ReadAPK(b []byte) (pkg string, code int64, name, failure string) {
	m, failure := readAPK(b)
	return m.pkg, m.code, m.name, failure
}
