package android

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func runCmd(t *testing.T, d *Device, line string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	st := d.Run(context.Background(), line, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), st
}

func TestSmoke(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"getprop ro.product.model", "echo hi && false || echo x; exit 3", "foo", "wm size", "dumpsys window | cat", "input tap 90 200; dumpsys activity activities", "uiautomator dump; cat /sdcard/window_dump.xml", "screencap -p | cat > /sdcard/a.png; ls -l /sdcard", "logcat -d -t 3", "type ls; command -v cat; pm list packages -f", "cat <(ls)"} {
		o, e, s := runCmd(t, d, l)
		t.Logf("$ %s\n%s---stderr:\n%s---exit %d", l, o, e, s)
	}
}
