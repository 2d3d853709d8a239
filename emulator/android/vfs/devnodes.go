package vfs

// The device nodes of /dev the shell sees: the file system creates them
// (AddInputNodes) and describes them (CharDevice, Owner); the device
// model decides what a write to them does.

// TouchNode is the panel's node (inputDevices lists it).
const TouchNode = "/dev/input/event2"

// InputNodes are the /dev/input nodes and their device numbers: evdev's
// major 13, minors from 64 (Linux Documentation/admin-guide/devices.txt).
var InputNodes = map[string]int{"/dev/input/event0": 64, TouchNode: 66}

// GIDInput is AID_INPUT (AOSP system/core/libcutils android_filesystem_config.h).
const GIDInput = 1004

// UinputNodes are the user-space input nodes the shell may always write,
// with their misc minors (Linux Documentation/admin-guide/devices.txt:
// 223 uinput, 239 uhid); ueventd.rc makes both 0660 uhid uhid.
var UinputNodes = map[string]int{"/dev/uinput": 223, "/dev/uhid": 239}

// GIDUhid is AID_UHID (AOSP android_filesystem_config.h).
const GIDUhid = 3011
