package devices

import (
	"bytes"
	"encoding/binary"
	"strings"

	"github.com/adb-connector/adb-connector/emulator/android/shell"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

// Screencap: `screencap [-p] [-d ID] [FILE]`. Raw output is a header of
// little-endian uint32 width, height, format (1 = RGBA_8888) — plus, from
// Android 9 (SDK 28), a fourth uint32 dataspace (1 here, sRGB as Android 9
// reports it) — then the pixels. -p, or a FILE ending in .png, writes PNG.
func Screencap(c *shell.Ctx) int {
	var asPNG bool
	var file string
	args := c.Args[1:]
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-p":
			asPNG = true
		case a == "-h":
			c.Errorf("usage: screencap [-hp] [-d display-id] [FILENAME]\n")
			return 0
		case a == "-d" && i+1 < len(args):
			i++
		case strings.HasPrefix(a, "-"):
			c.Errorf("usage: screencap [-hp] [-d display-id] [FILENAME]\n")
			return 1
		default:
			file = a
		}
	}
	if strings.HasSuffix(file, ".png") {
		asPNG = true
	}
	d := dev(c)
	d.p.Lock()
	var out, pix []byte // raw: out is the header, pix the cached frame's pixels (never modified)
	img := d.p.ScreenshotLocked()
	if asPNG {
		out = d.p.ScreenshotPNGLocked()
	} else {
		out = binary.LittleEndian.AppendUint32(out, uint32(img.Rect.Dx()))
		out = binary.LittleEndian.AppendUint32(out, uint32(img.Rect.Dy()))
		out = binary.LittleEndian.AppendUint32(out, 1)
		if d.p.SDK >= 28 {
			out = binary.LittleEndian.AppendUint32(out, 1)
		}
		pix = img.Pix
	}
	d.p.Unlock()
	// The phone's grab of the frame, and its PNG encode for -p.
	if !c.Charge(d.p.Prof.CaptureCost(img.Rect.Dx(), img.Rect.Dy(), asPNG)) {
		return shell.ExitCanceled
	}
	if file == "" {
		// Header and pixels in two writes: no copy of the frame.
		c.Stdout.Write(out)
		if len(pix) > 0 {
			c.Stdout.Write(pix)
		}
		return 0
	}
	if err := c.WriteFile(file, append(out, pix...)); err != nil {
		c.Errorf("Error opening file: %s (%s)\n", file, shell.ErrText(err))
		return 1
	}
	return 0
}

// Uiautomator: `uiautomator dump [--compressed] [FILE]` writes the
// hierarchy (default /sdcard/window_dump.xml) and prints the real message,
// typo included. FILE /dev/tty (or /dev/stdout) writes the XML to stdout
// first, a common trick. Messages and statuses follow DumpCommand.run (AOSP
// frameworks/base/cmds/uiautomator/cmds/uiautomator/src/com/android/
// commands/uiautomator/DumpCommand.java): errors go to stderr and the
// command still exits 0.
func Uiautomator(c *shell.Ctx) int {
	if len(c.Args) < 2 || c.Args[1] != "dump" {
		c.Errorf("Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\nhelp: displays help message\n\nruntest: executes UI automation tests\n\ndump: creates an XML dump of current UI hierarchy\n\nevents: prints out accessibility events until terminated\n")
		return 1
	}
	file := "/sdcard/window_dump.xml"
	for _, a := range c.Args[2:] {
		if !strings.HasPrefix(a, "-") {
			file = a
		}
	}
	d := dev(c)
	d.p.Lock()
	wait, fail := d.p.TakeDumpFault()
	if s := d.p.TopScreenLocked(); !fail && s != nil && s.NeverIdle {
		// An animating screen sends accessibility events without end:
		// waitForIdle(1000, 10000) runs out its 10 s.
		wait, fail = d.p.Faults.DumpWait, true
	}
	d.p.Unlock()
	if fail {
		// UiAutomation.waitForIdle(1000, 10000) timed out.
		if !shell.SleepCtx(c.Context, wait) {
			return shell.ExitCanceled
		}
		c.Errorf("ERROR: could not get idle state.\n")
		return 0
	}
	// waitForIdle returns once no accessibility event came for its idle
	// timeout, counted from its own start: a dump always waits at least
	// that long (the timing profile's DumpIdle).
	if !c.Charge(d.p.Prof.DumpIdle) {
		return shell.ExitCanceled
	}
	d.p.Lock()
	b, ok := d.dumpLocked()
	d.p.Unlock()
	if !ok {
		// getRootInActiveWindow() returned null: the screen is off.
		c.Errorf("ERROR: null root node returned by UiTestAutomationBridge.\n")
		return 0
	}
	if file == "/dev/tty" || file == "/dev/stdout" {
		c.Stdout.Write(b)
	} else if err := c.WriteFile(file, b); err != nil {
		c.Errorf("java.io.FileNotFoundException: %s: open failed: ENOENT (No such file or directory)\n", file)
		return 1
	}
	c.Printf("UI hierchary dumped to: %s\n", file)
	return 0
}

// dumpLocked returns what `uiautomator dump` writes: the active window's
// hierarchy (the ANR dialog while one shows), or a real dump's own bytes
// while its screen is unchanged. ok is false when the screen is off.
func (d *Devices) dumpLocked() (b []byte, ok bool) {
	root := d.p.Tree()
	if root == nil {
		return nil, false
	}
	if s := d.p.DumpScreen(); s != nil && d.p.State.ANR == "" && d.pristine(s.ID) {
		return s.Raw, true
	}
	if d.p.State.ANR != "" && !d.p.State.Locked {
		root = d.p.MapToDisplay(d.p.ANRDialog())
	}
	var buf bytes.Buffer
	ui.WriteDump(&buf, root, d.p.State.Rotation, d.p.SDK >= 30)
	return buf.Bytes(), true
}

// pristine reports whether nothing typed, focused or toggled on screen id
// differs from the scenario.
func (d *Devices) pristine(id string) bool {
	p := id + "/"
	if strings.HasPrefix(d.p.State.Focus, p) {
		return false
	}
	for k := range d.p.State.Fields {
		if strings.HasPrefix(k, p) {
			return false
		}
	}
	for k := range d.p.State.Checked {
		if strings.HasPrefix(k, p) {
			return false
		}
	}
	return true
}
