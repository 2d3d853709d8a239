package android

import (
	"fmt"
	"strings"
)

// Who the adb shell is and what SELinux lets it do, by Android version.
//
// The input nodes are crw-rw---- root input and the shell is in group
// input on every release, so mode bits never refuse it. From Android 10
// (SDK 29) SELinux does: AOSP system/sepolicy commit 51156264b ("shell:
// remove /dev/input write access", bug 30861057) made `allow shell
// input_device:chr_file` read-only and added a neverallow that CTS
// enforces; private/shell.te still says so in Android 15. The kernel then
// refuses the open with EACCES, which mksh reports as "can't create
// NODE: Permission denied" and toybox as "NODE: Permission denied"
// (openstf/minitouch #41 and #49, DeviceFarmer/minitouch #17 on Android
// 14, Cartucho/android-touch-record-replay #22 with the avc denial
// `scontext=u:r:shell:s0 tcontext=u:object_r:input_device:s0`). The
// shell may still open /dev/uinput and /dev/uhid (label uhid_device in
// private/file_contexts; `allow shell uhid_device:chr_file rw_file_perms`,
// sepolicy commit 2a7f57102). Android 9 and earlier let the shell write
// the nodes; so does `adb root` on a userdebug build (Config.Rooted),
// where adbd runs the shell as uid 0 in u:r:su:s0, and a rooted or
// permissive phone.

// sdkInputReadOnly is the first SDK whose policy keeps the shell from
// writing input_device nodes (Android 10).
const sdkInputReadOnly = 29

// shellGroup is one supplementary group of the adb shell: minSDK is the
// release that added it to adbd's drop_privileges list (AOSP
// packages/modules/adb daemon/main.cpp).
type shellGroup struct {
	id     int
	name   string
	minSDK int
}

// shellGroups are the adb shell user's supplementary groups. Up to
// Android 10 they are exactly the line a Pixel printed in openstf/minitouch
// #41 (`id` on Android Q: groups=2000(shell),1004(input),1007(log),
// 1011(adb),1015(sdcard_rw),1028(sdcard_r),3001(net_bt_admin),
// 3002(net_bt),3003(inet),3006(net_bw_stats),3009(readproc),3011(uhid));
// Android 11 added ext_data_rw and ext_obb_rw, Android 13 readtracefs.
var shellGroups = []shellGroup{{2000, "shell", 0}, {1004, "input", 0}, {1007, "log", 0}, {1011, "adb", 0}, {1015, "sdcard_rw", 0},
	{1028, "sdcard_r", 0}, {1078, "ext_data_rw", 30}, {1079, "ext_obb_rw", 30}, {3001, "net_bt_admin", 0}, {3002, "net_bt", 0},
	{3003, "inet", 0}, {3006, "net_bw_stats", 0}, {3009, "readproc", 0}, {3011, "uhid", 0}, {3012, "readtracefs", 33}}

// shellIdentity is the adb shell's user, groups and SELinux domain.
type shellIdentity struct {
	uid     int
	user    string
	groups  []shellGroup
	context string
}

// identity returns who the shell runs as on this phone: uid 2000 in
// u:r:shell:s0, or with adb root uid 0 in u:r:su:s0 (adbd.rc's
// --root_seclabel) keeping adbd's other groups.
func (d *Device) identity() shellIdentity {
	var groups []shellGroup
	for _, g := range shellGroups {
		if d.cfg.SDK >= g.minSDK {
			groups = append(groups, g)
		}
	}
	if d.rooted() {
		groups[0] = shellGroup{0, "root", 0}
		return shellIdentity{uid: 0, user: "root", groups: groups, context: "u:r:su:s0"}
	}
	return shellIdentity{uid: 2000, user: "shell", groups: groups, context: "u:r:shell:s0"}
}

// idLine is toybox id's full line for the identity.
func (s shellIdentity) idLine() string {
	gs := make([]string, len(s.groups))
	for i, g := range s.groups {
		gs[i] = fmt.Sprintf("%d(%s)", g.id, g.name)
	}
	return fmt.Sprintf("uid=%d(%s) gid=%d(%s) groups=%s context=%s", s.uid, s.user, s.uid, s.user, strings.Join(gs, ","), s.context)
}

// rooted reports whether the shell runs as root (Config.Rooted or the
// scenario's "rooted").
func (d *Device) rooted() bool { return d.cfg.Rooted || d.p.Scenario.Rooted }

// inputWritable reports whether the shell may open /dev/input nodes for
// writing: SELinux allows it before Android 10 and to the su domain.
func (d *Device) inputWritable() bool { return d.cfg.SDK < sdkInputReadOnly || d.rooted() }
