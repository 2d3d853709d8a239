// Package vfs is the virtual phone's file system: an in-memory tree with
// the modes, owners and device nodes (/dev/input, /dev/uinput) a real
// phone shows the adb shell user, and the write rules of that user
// (read-only /system, shell-owned /sdcard and /data/local/tmp). It
// implements adbd.FileSystem for the sync service; the shell and its
// commands see the same files. It imports nothing else of the phone.
package vfs
