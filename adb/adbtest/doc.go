// Package adbtest is the test harness for everything that talks to phones:
// it starts Debian's adb server as a child on a private port, N virtual
// devices (package emulator) on free ports, connects them, waits until each
// is "device", and tears everything down in t.Cleanup. A missing adb binary
// fails the test with the install command (`apt-get install -y adb`).
//
// Its own tests also point adb clients written elsewhere at the virtual
// phones through that server: gadb (Go) in clients_test.go and adbkit
// (@devicefarmer/adbkit, Node; pinned in testdata/adbkit, installed with
// `npm ci` into the user cache on first use) in adbkit_test.go.
package adbtest
