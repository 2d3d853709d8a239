// Package parse turns the text (and bytes) that Android commands print into
// typed Go values: getprop, wm size/density, dumpsys battery/window/power/
// activity/input (and display, for the rotation), uiautomator dump, pm list packages / pm path /
// cmd package resolve-activity, logcat and the raw screencap header.
//
// Every function is pure, safe for concurrent use, never panics, and returns
// an error wrapping ErrFormat (or ErrNotFound where documented) for output it
// cannot read. Formats are those of Android 8 to 14; testdata/SOURCES.md says
// where each golden input comes from. Package adb runs the commands; this
// package only reads their output.
package parse
