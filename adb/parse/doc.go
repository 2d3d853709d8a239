// Package parse turns the text (and bytes) that Android commands print into
// typed Go values: getprop, wm size/density, dumpsys battery/window/power/
// activity/input (and display, for the rotation), uiautomator dump, pm list packages / pm path /
// cmd package resolve-activity, logcat, getevent -lp (the touchscreen), the raw screencap header and the box
// structure of the MP4 files screenrecord writes (MP4; MP4Head follows a
// file as it streams past, the one type here with state).
//
// Every function is pure, safe for concurrent use, never panics, and returns
// a *FormatError (wrapping ErrFormat, naming the command) or, where
// documented, an error wrapping ErrNotFound for output it cannot read, so a
// caller reading several outputs can leave out the one part that failed. Formats are those of Android 8 to 14; testdata/SOURCES.md says
// where each golden input comes from. Package adb runs the commands; this
// package only reads their output.
package parse
