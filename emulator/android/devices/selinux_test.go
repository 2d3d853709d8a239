package devices_test

import (
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/emulator/android/internal/phonekit"
	"github.com/adb-connector/adb-connector/emulator/android/vfs"
)

// TestInputNodeSELinux: the shell may write the touchscreen's node on
// Android 9 and with adb root, not on stock Android 10+, where the write
// fails as mksh and toybox report it and nothing is touched; /dev/uinput
// and /dev/uhid take writes on every SDK.
func TestInputNodeSELinux(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		cfg      android.Config
		writable bool
	}{
		"sdk 33":           {android.Config{}, false},
		"sdk 29":           {android.Config{SDK: 29, Release: "10"}, false},
		"sdk 28":           {android.Config{SDK: 28, Release: "9"}, true},
		"sdk 33 rooted":    {android.Config{Rooted: true}, true},
		"sdk from a prop":  {android.Config{Properties: map[string]string{"ro.build.version.sdk": "28"}}, true},
		"sdk 34 from prop": {android.Config{SDK: 28, Properties: map[string]string{"ro.build.version.sdk": "34"}}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := newDevice(t, tc.cfg)
			p := center(t, d, phonekit.ByText("Settings"))
			e, st := writeNode(t, d, encode(true, tapEvents(p)...))
			if !tc.writable {
				if st != 1 || e != "/system/bin/sh: can't create /dev/input/event2: Permission denied\n" {
					t.Fatalf("redirect: %d %q", st, e)
				}
				if _, e, st := run(t, d, "echo x | tee /dev/input/event2 >/dev/null"); st != 1 || e != "tee: /dev/input/event2: Permission denied\n" {
					t.Fatalf("tee: %d %q", st, e)
				}
				if got := touches(d); len(got) != 0 {
					t.Fatalf("touched: %+v", got)
				}
			} else if st != 0 || len(touches(d)) != 1 {
				t.Fatalf("write: %d %q, touches %+v", st, e, touches(d))
			} else if fg, _ := d.Foreground(); fg != "com.android.settings" {
				t.Fatalf("foreground %s after a tap on Settings", fg)
			}
			for _, node := range []string{"/dev/uinput", "/dev/uhid"} {
				if _, e, st := run(t, d, "echo x > "+node); st != 0 {
					t.Fatalf("%s: %d %q", node, st, e)
				}
			}
			if out := mustRun(t, d, "getevent -lp"); !strings.Contains(out, vfs.TouchNode) {
				t.Fatalf("getevent: %s", out)
			}
		})
	}
}

// TestShellIdentity: id prints the adb shell's real line (openstf/minitouch
// #41 on Android 10, later releases' added groups), or root's in u:r:su:s0.
func TestShellIdentity(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		cfg  android.Config
		want string
	}{
		"android 10": {android.Config{SDK: 29, Release: "10"}, "uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats),3009(readproc),3011(uhid) context=u:r:shell:s0\n"},
		"android 13": {android.Config{}, "uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),1078(ext_data_rw),1079(ext_obb_rw),3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats),3009(readproc),3011(uhid),3012(readtracefs) context=u:r:shell:s0\n"},
		"adb root":   {android.Config{Rooted: true}, "uid=0(root) gid=0(root) groups=0(root),1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),1078(ext_data_rw),1079(ext_obb_rw),3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats),3009(readproc),3011(uhid),3012(readtracefs) context=u:r:su:s0\n"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := newDevice(t, tc.cfg)
			if got := mustRun(t, d, "id"); got != tc.want {
				t.Fatalf("id:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestLsSELinuxLabels: ls -Z shows the labels file_contexts gives the
// nodes, toybox's way (" LABEL " after the group with -l).
func TestLsSELinuxLabels(t *testing.T) {
	t.Parallel()
	d := newDevice(t, android.Config{})
	out := mustRun(t, d, "ls -lZ /dev/input/event2 /dev/uinput /dev/uhid")
	for _, want := range []string{
		"crw-rw---- 1 root input u:object_r:input_device:s0  13,  66 ",
		"crw-rw---- 1 uhid uhid  u:object_r:uhid_device:s0   10, 239 ",
		"crw-rw---- 1 uhid uhid  u:object_r:uhid_device:s0   10, 223 ",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("ls -lZ lacks %q:\n%s", want, out)
		}
	}
	if out := mustRun(t, d, "ls -Z /dev/uhid"); out != "u:object_r:uhid_device:s0 /dev/uhid\n" {
		t.Fatalf("ls -Z: %q", out)
	}
}
