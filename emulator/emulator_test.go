package emulator_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/emulator"
)

// adbRun runs adb against env for device d and returns stdout, stderr and
// the exit status.
func adbRun(t *testing.T, env *adbtest.Env, d *emulator.Device, args ...string) (string, string, int) {
	t.Helper()
	cmd := env.AdbCmd(context.Background(), append([]string{"-s", d.Serial()}, args...)...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return so.String(), se.String(), ee.ExitCode()
	case err != nil:
		t.Fatalf("adb %q: %v", args, err)
	}
	return so.String(), se.String(), 0
}

// TestThroughADB drives one virtual device through Debian's adb CLI.
func TestThroughADB(t *testing.T) {
	env := adbtest.Start(t, adbtest.Options{})
	d := env.Devices[0]

	t.Run("devices -l", func(t *testing.T) {
		out, err := env.Adb("devices", "-l")
		if err != nil {
			t.Fatal(err)
		}
		line := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, d.Serial()) {
				line = l
			}
		}
		id := d.Android().Identity()
		for _, w := range []string{"device ", "product:" + id.Product, "model:" + strings.ReplaceAll(id.Model, " ", "_"), "device:" + id.Device} {
			if !strings.Contains(line, w) {
				t.Errorf("devices -l line %q lacks %q", line, w)
			}
		}
	})
	t.Run("getprop", func(t *testing.T) {
		out, _, code := adbRun(t, env, d, "shell", "getprop", "ro.product.model")
		if code != 0 || strings.TrimSpace(out) != d.Android().Identity().Model {
			t.Errorf("getprop ro.product.model = %q (%d)", out, code)
		}
		all, _, _ := adbRun(t, env, d, "shell", "getprop")
		if !strings.Contains(all, "[ro.serialno]: [VIRT00000001]") {
			t.Errorf("getprop lacks serialno:\n%.500s", all)
		}
	})
	t.Run("exit 3", func(t *testing.T) {
		if _, _, code := adbRun(t, env, d, "shell", "exit 3"); code != 3 {
			t.Errorf("exit status %d, want 3", code)
		}
	})
	t.Run("not found", func(t *testing.T) {
		_, se, code := adbRun(t, env, d, "shell", "nosuchcmd")
		if code != 127 || !strings.Contains(se, "nosuchcmd") {
			t.Errorf("status %d stderr %q", code, se)
		}
	})
	t.Run("screencap", func(t *testing.T) {
		out, _, code := adbRun(t, env, d, "exec-out", "screencap", "-p")
		if code != 0 {
			t.Fatalf("status %d", code)
		}
		img, err := png.Decode(strings.NewReader(out))
		if err != nil {
			t.Fatalf("not a PNG (%d bytes): %v", len(out), err)
		}
		got := image.NewRGBA(img.Bounds())
		draw.Draw(got, got.Rect, img, img.Bounds().Min, draw.Src)
		want := d.Android().Screenshot()
		if got.Rect != want.Rect || !bytes.Equal(got.Pix, want.Pix) {
			t.Errorf("screencap %v differs from rendering %v", got.Rect, want.Rect)
		}
	})
	t.Run("push pull 10MB", func(t *testing.T) {
		dir := t.TempDir()
		data := make([]byte, 10<<20)
		for i := range data {
			data[i] = byte(i*7 + i>>9)
		}
		src, dst := filepath.Join(dir, "in.bin"), filepath.Join(dir, "out.bin")
		if err := os.WriteFile(src, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, se, code := adbRun(t, env, d, "push", src, "/data/local/tmp/big.bin"); code != 0 {
			t.Fatalf("push: %s %s", out, se)
		}
		if out, se, code := adbRun(t, env, d, "pull", "/data/local/tmp/big.bin", dst); code != 0 {
			t.Fatalf("pull: %s %s", out, se)
		}
		got, err := os.ReadFile(dst)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("pulled %d bytes, not identical (err %v)", len(got), err)
		}
		if out, _, _ := adbRun(t, env, d, "shell", "ls", "/data/local/tmp"); !strings.Contains(out, "big.bin") {
			t.Errorf("ls after push: %q", out)
		}
	})
	t.Run("tap launcher icon", func(t *testing.T) {
		x, y := findNode(t, env, d, "Settings")
		if _, se, code := adbRun(t, env, d, "shell", "input", "tap", fmt.Sprint(x), fmt.Sprint(y)); code != 0 {
			t.Fatalf("input tap: %d %s", code, se)
		}
		out, _, _ := adbRun(t, env, d, "shell", "dumpsys", "activity", "activities")
		if !strings.Contains(out, "com.android.settings") {
			t.Errorf("dumpsys activity after tap lacks com.android.settings:\n%.800s", out)
		}
		var ran bool
		for _, c := range d.Android().Commands() {
			if strings.HasPrefix(c.Line, "input tap") {
				ran = true
			}
		}
		if !ran {
			t.Error("command log lacks input tap")
		}
	})
}

// findNode dumps the UI with uiautomator, pulls the XML and returns the
// centre of the first node whose text or content-desc is label.
func findNode(t *testing.T, env *adbtest.Env, d *emulator.Device, label string) (int, int) {
	t.Helper()
	if out, se, code := adbRun(t, env, d, "shell", "uiautomator", "dump"); code != 0 {
		t.Fatalf("uiautomator dump: %s %s", out, se)
	}
	dst := filepath.Join(t.TempDir(), "dump.xml")
	if out, se, code := adbRun(t, env, d, "pull", "/sdcard/window_dump.xml", dst); code != 0 {
		t.Fatalf("pull dump: %s %s", out, se)
	}
	raw, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(raw))
	for {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("no node %q in dump: %v", label, err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "node" {
			continue
		}
		var text, desc, bounds string
		for _, a := range se.Attr {
			switch a.Name.Local {
			case "text":
				text = a.Value
			case "content-desc":
				desc = a.Value
			case "bounds":
				bounds = a.Value
			}
		}
		if text != label && desc != label {
			continue
		}
		var x1, y1, x2, y2 int
		if _, err := fmt.Sscanf(bounds, "[%d,%d][%d,%d]", &x1, &y1, &x2, &y2); err != nil {
			t.Fatalf("bounds %q: %v", bounds, err)
		}
		return (x1 + x2) / 2, (y1 + y2) / 2
	}
}

func TestUnauthorizedAndDropLink(t *testing.T) {
	env := adbtest.Start(t, adbtest.Options{Devices: 2})
	a, b := env.Devices[0], env.Devices[1]
	a.SetUnauthorized(true)
	env.WaitState(a, "unauthorized")
	out, _ := env.Adb("devices")
	if !strings.Contains(out, a.Serial()+"\tunauthorized") || !strings.Contains(out, b.Serial()+"\tdevice") {
		t.Errorf("adb devices:\n%s", out)
	}
	if _, se, code := adbRun(t, env, a, "shell", "true"); code == 0 || !strings.Contains(se, "unauthorized") {
		t.Errorf("shell on unauthorized: %d %q", code, se)
	}
	a.SetUnauthorized(false)
	env.WaitState(a, "device")

	n := b.Server().Accepted()
	b.DropLink()
	env.WaitState(b, "offline")
	env.WaitState(b, "device") // adb 29 reconnects by itself
	if b.Server().Accepted() <= n {
		t.Error("no reconnect after DropLink")
	}
}

func TestCloseIdempotent(t *testing.T) {
	d, err := emulator.Start(context.Background(), emulator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	d.Close()
	if err := d.Vanish(time.Millisecond); err == nil {
		t.Error("Vanish after Close: no error")
	}
}

// TestScenarios starts each shipped scenario and checks the foreground app
// seen through adb.
func TestScenarios(t *testing.T) {
	for _, tc := range []struct{ scenario, want string }{
		{"launcher", "launcher"},
		{"login", "com.example.login"},
		{"list", "com.example.list"},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			env := adbtest.Start(t, adbtest.Options{Scenario: tc.scenario})
			out, _, code := adbRun(t, env, env.Devices[0], "shell", "dumpsys", "window")
			if code != 0 || !strings.Contains(out, "mCurrentFocus") || !strings.Contains(out, tc.want) {
				t.Errorf("dumpsys window (%d) lacks %q:\n%.600s", code, tc.want, out)
			}
		})
	}
}
