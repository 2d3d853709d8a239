package services

// SettingsHelp is `settings`' usage text, for the tests that run it.
const SettingsHelp = settingsHelp
