package android

import (
	"bytes"
	"encoding/binary"
	"strings"
)

// cmdScreencap: `screencap [-p] [-d ID] [FILE]`. Raw output is a header of
// little-endian uint32 width, height, format (1 = RGBA_8888) — plus, from
// Android 9 (SDK 28), a fourth uint32 dataspace (1 here, sRGB as Android 9
// reports it) — then the pixels. -p, or a FILE ending in .png, writes PNG.
func cmdScreencap(c *cmdCtx) int {
	var asPNG bool
	var file string
	args := c.args[1:]
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-p":
			asPNG = true
		case a == "-h":
			c.errorf("usage: screencap [-hp] [-d display-id] [FILENAME]\n")
			return 0
		case a == "-d" && i+1 < len(args):
			i++
		case strings.HasPrefix(a, "-"):
			c.errorf("usage: screencap [-hp] [-d display-id] [FILENAME]\n")
			return 1
		default:
			file = a
		}
	}
	if strings.HasSuffix(file, ".png") {
		asPNG = true
	}
	d := c.d
	d.mu.Lock()
	var out, pix []byte // raw: out is the header, pix the cached frame's pixels (never modified)
	if asPNG {
		out = d.screenshotPNGLocked()
	} else {
		img := d.screenshotLocked()
		out = binary.LittleEndian.AppendUint32(out, uint32(img.Rect.Dx()))
		out = binary.LittleEndian.AppendUint32(out, uint32(img.Rect.Dy()))
		out = binary.LittleEndian.AppendUint32(out, 1)
		if d.cfg.SDK >= 28 {
			out = binary.LittleEndian.AppendUint32(out, 1)
		}
		pix = img.Pix
	}
	d.mu.Unlock()
	if file == "" {
		// Header and pixels in two writes: no copy of the frame.
		c.stdout.Write(out)
		if len(pix) > 0 {
			c.stdout.Write(pix)
		}
		return 0
	}
	if err := c.writeFile(file, append(out, pix...)); err != nil {
		c.errorf("Error opening file: %s (%s)\n", file, errText(err))
		return 1
	}
	return 0
}

// cmdUiautomator: `uiautomator dump [--compressed] [FILE]` writes the
// hierarchy (default /sdcard/window_dump.xml) and prints the real message,
// typo included. FILE /dev/tty (or /dev/stdout) writes the XML to stdout
// first, a common trick.
func cmdUiautomator(c *cmdCtx) int {
	if len(c.args) < 2 || c.args[1] != "dump" {
		c.errorf("Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\nhelp: displays help message\n\nruntest: executes UI automation tests\n\ndump: creates an XML dump of current UI hierarchy\n\nevents: prints out accessibility events until terminated\n")
		return 1
	}
	file := "/sdcard/window_dump.xml"
	for _, a := range c.args[2:] {
		if !strings.HasPrefix(a, "-") {
			file = a
		}
	}
	d := c.d
	d.mu.Lock()
	root := d.tree()
	var b bytes.Buffer
	if root != nil {
		writeDump(&b, root, d.st.rotation, d.cfg.SDK >= 30)
	}
	d.mu.Unlock()
	if root == nil {
		// What a phone with the screen off answers.
		c.printf("ERROR: null root node returned by UiTestAutomationBridge.\n")
		return 0
	}
	if file == "/dev/tty" || file == "/dev/stdout" {
		c.stdout.Write(b.Bytes())
	} else if err := c.writeFile(file, b.Bytes()); err != nil {
		c.errorf("java.io.FileNotFoundException: %s: open failed: ENOENT (No such file or directory)\n", file)
		return 1
	}
	c.printf("UI hierchary dumped to: %s\n", file)
	return 0
}
