package phonefw_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/adb/helper"
	"github.com/adb-connector/adb-connector/emulator/phonefw"
)

// TestHelperThroughAdb runs the helper the way the connector does, end to
// end: the embedded jar pushed with Debian's adb to the virtual phone,
// started with app_process on a shell-v2 stream (`adb shell -T`, binary
// stdin and stdout), its own dex running on the host JVM with the fake
// framework bound to the phone. A tree, a tap that focuses the username
// field, CJK text set into it, a key, then QUIT; the phone's state shows
// each effect, and a stock `uiautomator dump` is refused while the
// helper holds the UiAutomation slot.
func TestHelperThroughAdb(t *testing.T) {
	if err := phonefw.Tools(); err != nil {
		t.Fatal(err)
	}
	env := adbtest.Start(t, adbtest.Options{Scenario: "login", SDK: 34})
	dev := env.Devices[0]
	serial := dev.Serial()
	before, err := env.Adb("-s", serial, "shell", "uiautomator", "dump", "/dev/tty")
	if err != nil {
		t.Fatalf("stock dump: %v %q", err, before)
	}
	before = strings.TrimSuffix(before, "UI hierchary dumped to: /dev/tty\n")
	cmd, in, out, stderr := startHelper(t, env)
	c := phonefw.NewClient(t, in, out)
	if sdk, feats, reason := c.Hello(); sdk != 34 || feats != 31 || reason != "" {
		t.Fatalf("HELLO sdk %d features %d reason %q; stderr %s", sdk, feats, reason, stderr.String())
	}
	body, code, msg := c.Call(2, uint32(0), uint32(1000))
	if code != "" {
		t.Fatalf("TREE: %s %s", code, msg)
	}
	d := phonefw.Fields(body)
	d.U32()
	tree := d.Str()
	// The same screen through the stock path just before: the same XML,
	// but for the NAF marks AOSP's dumper writes (the unlabelled empty
	// fields here) and this virtual phone's stock dump does not yet.
	if strings.ReplaceAll(tree, `<node NAF="true" `, `<node `) != before || !strings.Contains(tree, `<node NAF="true" index="1" text="" resource-id="com.example.login:id/username"`) {
		t.Fatalf("helper TREE differs from the stock dump of the same screen:\n%s\nstock:\n%s", tree, before)
	}
	if o, _ := env.Adb("-s", serial, "shell", "uiautomator", "dump", "/dev/tty"); !strings.Contains(o, "already registered") {
		t.Fatalf("uiautomator dump while the helper holds the slot: %q", o)
	}

	// Tap the username field (bounds [40,200][680,300] on 720x1280).
	if _, code, _ := c.Call(3, int32(360), int32(250), uint32(0), uint8(1)); code != "" {
		t.Fatalf("TAP: %s", code)
	}
	body, code, msg = c.Call(6, "王小明", uint8(1), uint8(0), int32(-1), int32(-1))
	if code != "" {
		t.Fatalf("TEXT: %s %s", code, msg)
	}
	d = phonefw.Fields(body)
	if m, ok, back := d.Str(), d.U8(), d.Str(); m != "set_text" || ok != 1 || back != "王小明" {
		t.Fatalf("TEXT answered %q %d %q", m, ok, back)
	}
	if got := dev.Android().FieldText("com.example.login:id/username"); got != "王小明" {
		t.Fatalf("username field holds %q", got)
	}
	if _, code, _ := c.Call(11); code != "" {
		t.Fatalf("QUIT: %s", code)
	}
	in.Close()
	io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper exit: %v; stderr %s", err, stderr.String())
	}
	if dev.Android().HelperConnected() {
		t.Fatal("the UiAutomation slot is still held")
	}
	stock, err := env.Adb("-s", serial, "shell", "uiautomator", "dump", "/dev/tty")
	if err != nil || !strings.Contains(stock, "<hierarchy") {
		t.Fatalf("stock dump after the helper quit: %v %q", err, stock)
	}

}

// TestHelperThroughAdbFallbacks: with the UiAutomation slot held elsewhere
// the helper starts and says so; with no helper runtime app_process
// aborts before any HELLO (the host then uses its stock paths).
func TestHelperThroughAdbFallbacks(t *testing.T) {
	if err := phonefw.Tools(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts adbtest.Options
	}{
		{"busy", adbtest.Options{Scenario: "login", SDK: 29, UiAutomationHeld: true}},
		{"no_helper", adbtest.Options{Scenario: "login", NoHelper: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := adbtest.Start(t, tc.opts)
			cmd, in, out, stderr := startHelper(t, env)
			if tc.opts.NoHelper {
				b, _ := io.ReadAll(out)
				err := cmd.Wait()
				if len(b) != 0 || err == nil || !strings.Contains(stderr.String(), "Aborted") {
					t.Fatalf("stdout %q, exit %v, stderr %q", b, err, stderr.String())
				}
				return
			}
			c := phonefw.NewClient(t, in, out)
			if sdk, feats, reason := c.Hello(); sdk != 29 || feats != 2|8 || reason != "uiautomation busy" {
				t.Fatalf("HELLO sdk %d features %d reason %q", sdk, feats, reason)
			}
			if _, code, _ := c.Call(2, uint32(0), uint32(0)); code != "busy" {
				t.Fatalf("TREE while busy: %q", code)
			}
			in.Close()
			io.Copy(io.Discard, out)
			if err := cmd.Wait(); err != nil {
				t.Fatalf("exit: %v %s", err, stderr.String())
			}
		})
	}
}

// startHelper pushes the embedded jar to the env's first phone as the
// connector names it and starts it with app_process on a shell-v2 stream
// (`adb shell -T`: binary stdin and stdout, stderr apart).
func startHelper(t *testing.T, env *adbtest.Env) (cmd *exec.Cmd, in io.WriteCloser, out io.ReadCloser, stderr *strings.Builder) {
	t.Helper()
	serial := env.Devices[0].Serial()
	jar := filepath.Join(t.TempDir(), "helper.jar")
	if err := os.WriteFile(jar, helper.Jar, 0o644); err != nil {
		t.Fatal(err)
	}
	remote := "/data/local/tmp/adbc-helper-" + helper.JarSHA256[:16] + ".jar"
	if out, err := env.Adb("-s", serial, "push", jar, remote); err != nil {
		t.Fatalf("adb push: %v %s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cmd = env.AdbCmd(ctx, "-s", serial, "shell", "-T", "CLASSPATH="+remote+" app_process / com.adbconnector.helper.Main")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err = cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr = &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, in, out, stderr
}
