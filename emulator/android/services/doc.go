// Package services is Android's system services as their shell tools
// reach them: am (ActivityManager), pm and `cmd package`
// (PackageManager, runtime permissions, pm clear), wm (WindowManager),
// settings (SettingsProvider), ime (InputMethodManager), `cmd statusbar`
// and notifications, dumpsys (activity, window, display, SurfaceFlinger,
// power, battery, input, input_method, package, notification), logcat
// and its formats, ps and pidof, and `cmd` itself with the framework's
// ShellCommand argument walker. Each prints what a real phone of the
// model's SDK prints, from the state of package model, under its lock.
//
// A command is a shell.Ctx func; package android lists it in its one
// command table. The phone a command runs on is a Phone: the shell's view
// of it, its model, and the command table (`cmd activity` runs am). It
// imports model, shell and ui, never package devices.
package services
