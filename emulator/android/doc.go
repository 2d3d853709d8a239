// Package android is the Android half of the virtual device: a
// device model (properties, screen, rotation, keyguard, battery, apps, an
// activity stack, a focused text field), Android's services and commands
// (am, pm, wm, settings, dumpsys, input, ime, logcat, screencap,
// screenrecord, uiautomator, getevent, cmd) and the sandboxed
// /system/bin/sh that runs them, built on mvdan.cc/sh/v3, whose commands
// print what real Android prints. It implements adbd.Backend, so
// emulator/adbd can serve it to Debian's adb server.
//
// Its rooms, in dependency order (each imports only those before it):
//   - timing: the timing profiles that make commands and captures cost
//     what a real phone's of that Android version do;
//   - vfs: the in-memory file system, its modes, owners, SELinux file
//     labels and /dev nodes;
//   - ui: scenarios (ui/scenarios/README.md), the element tree that
//     `uiautomator dump` prints and real dump files are read into, and the
//     renderer that draws that same tree, so pixels and XML agree;
//   - shell: the command context, toybox's option parser, its file and
//     text commands, and mksh's builtins;
//   - android (this package): the Device and its state, Android's
//     services and commands, the interpreter and its one command table
//     (shell.go), faults, the command log, SELinux by SDK (selinux.go) and
//     the touchscreen node (inputdev.go): where SELinux lets the shell
//     write it (SDK 28 and earlier, or a rooted phone) input events
//     written to /dev/input/event2 tap, long-press and swipe as `input`
//     does.
//
// Nothing here touches the host OS: no exec, no host files, no host
// environment. The phone writes and reads device output with its own
// code, never the host's parsers (adb/parse), so the two cannot agree by
// construction.
package android
