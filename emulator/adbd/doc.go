// Package adbd speaks the device side of the ADB transport (AOSP adb
// protocol.txt, SERVICES.TXT, SYNC.TXT): CNXN/OPEN/OKAY/WRTE/CLSE over TCP,
// shell (raw and v2), exec and sync services, delivered to a Backend. Debian's
// adb server connects to it with `adb connect 127.0.0.1:PORT` as to a phone.
// A modelled Link (link.go) gives the streams a cable's or a network's
// latency and bandwidth.
package adbd
