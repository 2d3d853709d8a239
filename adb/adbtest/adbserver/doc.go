// Package adbserver runs Debian's adb server as a test's child process on a
// private port, and speaks the adb host protocol (the server's socket) for
// readiness checks. adbtest builds on it; adbd's own tests use it with a
// fake backend. Missing adb binary: tests fail with the install command.
package adbserver
