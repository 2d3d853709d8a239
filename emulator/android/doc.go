// Package android is the Android half of the virtual device: a
// device model (properties, screen, rotation, keyguard, battery, apps, an
// activity stack, a focused text field), an in-memory file system and a
// sandboxed /system/bin/sh built on mvdan.cc/sh/v3 whose commands print what
// real Android prints. It implements adbd.Backend, so emulator/adbd can
// serve it to Debian's adb server.
//
// UI comes from scenarios (see scenarios/README.md): screens as UI trees or
// real `uiautomator dump` files, transitions on tap, text fields, scrolling
// lists. Screenshots are rendered from the same tree `uiautomator dump`
// returns, so pixels and XML agree; generated pictures (picture.go) give
// screens photographic content. The touchscreen is a device node too
// (inputdev.go): where SELinux lets the shell write it (SDK 28 and earlier,
// or a rooted phone: selinux.go) input events written to /dev/input/event2
// tap, long-press and swipe as `input` does, and getevent describes the
// node. Timing profiles (timing.go, timing_sdk.go) make commands and
// captures cost what a real phone's of that Android version do. Nothing in this package touches
// the host OS: no exec, no host files, no host environment.
package android
