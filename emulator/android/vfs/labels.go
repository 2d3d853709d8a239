package vfs

import "strings"

// fileLabels are the labels `ls -Z` shows, by path and what is under it,
// most specific first (AOSP system/sepolicy private/file_contexts and
// genfs_contexts).
var fileLabels = []struct{ dir, label string }{
	{"/dev/input", "u:object_r:input_device:s0"},
	{"/dev/uinput", "u:object_r:uhid_device:s0"},
	{"/dev/uhid", "u:object_r:uhid_device:s0"},
	{"/dev/null", "u:object_r:null_device:s0"},
	{"/sdcard", "u:object_r:fuse:s0"},
	{"/data/local/tmp", "u:object_r:shell_data_file:s0"},
	{"/data", "u:object_r:system_data_file:s0"},
	{"/system", "u:object_r:system_file:s0"},
	{"/proc", "u:object_r:proc:s0"},
	{"/storage", "u:object_r:tmpfs:s0"},
	{"/mnt", "u:object_r:tmpfs:s0"},
}

// FileLabel is the SELinux label `ls -Z` shows for p.
func FileLabel(p string) string {
	for _, l := range fileLabels {
		if p == l.dir || strings.HasPrefix(p, l.dir+"/") {
			return l.label
		}
	}
	if p == "/dev" {
		return "u:object_r:device:s0"
	}
	return "u:object_r:rootfs:s0"
}
