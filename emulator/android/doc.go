// Package android is the Android half of the virtual device: a
// device model (properties, screen, rotation, keyguard, battery, apps, an
// activity stack, a focused text field), Android's services and commands
// (am, pm, wm, settings, dumpsys, input, ime, logcat, screencap,
// screenrecord, uiautomator, getevent, cmd) and the sandboxed
// /system/bin/sh that runs them, built on mvdan.cc/sh/v3, whose commands
// print what real Android prints. It implements adbd.Backend, so
// emulator/adbd can serve it to Debian's adb server.
//
// Its rooms, in dependency order (each imports only rooms above it; rooms
// on one line know nothing of each other):
//   - timing: the timing profiles that make commands and captures cost
//     what a real phone's of that Android version do;
//   - vfs: the in-memory file system, its modes, owners, SELinux file
//     labels and /dev nodes;
//   - ui: scenarios (ui/scenarios/README.md), the element tree that
//     `uiautomator dump` prints and real dump files are read into, and the
//     renderer that draws that same tree, so pixels and XML agree;
//   - model, shell: the phone's state under its one lock, how it reacts to
//     input, the tree and pixels it resolves to (model); the command
//     context, toybox's option parser, its file and text commands, and
//     mksh's builtins (shell);
//   - services, devices: Android's services and their tools (am, pm, wm,
//     settings, ime, dumpsys, logcat, ps, cmd) over the model (services);
//     the touchscreen node, getevent, input, screencap, uiautomator,
//     screenrecord, app_process and the helper (devices);
//   - android (this package): the Device and its public API, the
//     interpreter and its one command table (shell.go), the command log,
//     faults as a test injects them, SELinux by SDK (selinux.go), system
//     properties, and the few commands of the shell's own (getprop, id,
//     run-as, sleep, timeout, ...). It alone wires the rooms: a command of
//     services or devices reaches the model and the command table through
//     the Device as its shell.Ctx's Phone.
//
// Tests live with the room they test; those that run whole command lines
// through the Device's public API live in phonetest, their shared helpers
// in internal/phonekit. internal/archtest keeps the order above and no
// room past 25 .go files.
//
// Nothing here touches the host OS: no exec, no host files, no host
// environment. The phone writes and reads device output with its own
// code, never the host's parsers (adb/parse), so the two cannot agree by
// construction.
package android
