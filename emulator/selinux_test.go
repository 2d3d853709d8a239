package emulator_test

import (
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/adb/adbtest"
)

// TestInputNodeThroughADB: through Debian's adb server, a stock Android 13
// pixel-usb phone refuses the shell's write to the touchscreen's node as
// SELinux does (mksh's "Permission denied", `id` in u:r:shell:s0 with
// group input); an Android 9 phone and an adb-root Android 13 phone take it.
func TestInputNodeThroughADB(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		opts     adbtest.Options
		writable bool
		context  string
	}{
		"sdk 33":        {adbtest.Options{Profile: "pixel-usb"}, false, "context=u:r:shell:s0"},
		"sdk 28":        {adbtest.Options{Profile: "pixel-usb", SDK: 28}, true, "context=u:r:shell:s0"},
		"sdk 33 rooted": {adbtest.Options{Profile: "pixel-usb", Rooted: true}, true, "context=u:r:su:s0"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env := adbtest.Start(t, tc.opts)
			d := env.Devices[0]
			out, errOut, st := adbRun(t, env, d, "shell", "echo x > /dev/input/event2")
			switch {
			case tc.writable && st != 0:
				t.Fatalf("write refused: %d %q %q", st, out, errOut)
			case !tc.writable && (st != 1 || errOut != "/system/bin/sh: can't create /dev/input/event2: Permission denied\n"):
				t.Fatalf("write: %d %q %q", st, out, errOut)
			}
			id, _, st := adbRun(t, env, d, "shell", "id")
			if st != 0 || !strings.Contains(id, tc.context) || !strings.Contains(id, ",1004(input),") || !strings.Contains(id, ",3011(uhid)") {
				t.Fatalf("id: %d %q", st, id)
			}
			if _, errOut, st := adbRun(t, env, d, "shell", "echo x > /dev/uinput"); st != 0 {
				t.Fatalf("/dev/uinput: %d %q", st, errOut)
			}
		})
	}
}
