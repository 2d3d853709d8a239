// Package timing holds the timing profiles that make the virtual phone cost what a real one costs:
// adbd's shell start per stream, the start of each command (a Java VM for
// some, a `cmd` binder call for others, by Android version), screen
// capture and PNG encoding, uiautomator's idle wait, screenrecord's real
// time, and the cable or network (adbd.Link). Every number comes from a
// published measurement or is a labelled estimate; docs/phone-timings.md
// gives the source, the range found and the value chosen. The default profile, "instant", costs nothing, so unit
// tests run as fast as the machine allows.
//
// It knows nothing else of the phone, which Charges the costs where they
// occur.
package timing
