// Package emulator runs virtual Android devices that Debian's adb server
// cannot tell from phones on TCP: each Device is an adbd.Server (the ADB
// wire protocol, package adbd) in front of an android.Device (device model,
// shell and files, package android). It also injects link-level faults:
// drop the link, vanish and come back, turn unauthorized.
package emulator
