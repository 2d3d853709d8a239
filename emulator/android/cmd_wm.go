package android

import (
	"fmt"
	"image"
	"strconv"
	"strings"

	"github.com/adb-connector/adb-connector/emulator/android/shell"
)

// cmdWm: `wm size [WxH|reset]`, `wm density [N|reset]`. Output as on
// Android 7+: "Physical size: WxH" plus "Override size: WxH" when set.
func cmdWm(c *shell.Ctx) int {
	d := dev(c)
	if len(c.Args) < 2 {
		c.Errorf("usage: wm [size|density] ...\n")
		return 1
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	switch c.Args[1] {
	case "size":
		if len(c.Args) == 2 {
			c.Printf("Physical size: %dx%d\n", d.screen.Width, d.screen.Height)
			if d.st.wmSize != (image.Point{}) {
				c.Printf("Override size: %dx%d\n", d.st.wmSize.X, d.st.wmSize.Y)
			}
			return 0
		}
		if c.Args[2] == "reset" {
			d.st.wmSize = image.Point{}
			d.changed()
			return 0
		}
		w, h, ok := parseWxH(c.Args[2])
		if !ok {
			c.Errorf("Error: bad size %s\n", c.Args[2])
			return 255
		}
		d.st.wmSize = image.Pt(w, h)
		d.changed()
	case "density":
		if len(c.Args) == 2 {
			c.Printf("Physical density: %d\n", d.screen.Density)
			if d.st.wmDens != 0 {
				c.Printf("Override density: %d\n", d.st.wmDens)
			}
			return 0
		}
		if c.Args[2] == "reset" {
			d.st.wmDens = 0
			return 0
		}
		n, err := strconv.Atoi(c.Args[2])
		if err != nil || n < 72 || n > 1000 {
			c.Errorf("Error: bad number %s\n", c.Args[2])
			return 255
		}
		d.st.wmDens = n
	default:
		c.Errorf("Error: unknown command '%s'\n", c.Args[1])
		return 255
	}
	return 0
}

// applyPinnedDisplay makes the display what a scenario's pinned `wm size`
// and `wm density` outputs say, so screenshots and dump bounds agree with
// them: the physical values become the screen, the override values the
// boot-time overrides. The phone reads its pins itself ("Physical size:
// WxH", "Override density: N" lines, WindowManagerShellCommand); a pin
// without a physical value is only replayed.
func (d *Device) applyPinnedDisplay() {
	if p, ok := d.sc.PinFor("wm size"); ok {
		if phys, ok := pinnedValue(p.Data, "Physical size"); ok {
			if w, h, ok := parseWxH(phys); ok {
				d.screen.Width, d.screen.Height = w, h
				if over, ok := pinnedValue(p.Data, "Override size"); ok {
					if w, h, ok := parseWxH(over); ok {
						d.bootWmSize = image.Pt(w, h)
					}
				}
			}
		}
	}
	if p, ok := d.sc.PinFor("wm density"); ok {
		if phys, ok := pinnedValue(p.Data, "Physical density"); ok {
			if n, err := strconv.Atoi(phys); err == nil && n > 0 {
				d.screen.Density, d.bootWmDens = n, 0
				if over, ok := pinnedValue(p.Data, "Override density"); ok {
					if n, err := strconv.Atoi(over); err == nil && n > 0 {
						d.bootWmDens = n
					}
				}
			}
		}
	}
}

// pinnedValue is the trimmed value of the "key: value" line of out.
func pinnedValue(out []byte, key string) (string, bool) {
	for line := range strings.Lines(string(out)) {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && k == key {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

func parseWxH(s string) (w, h int, ok bool) {
	a, b, found := strings.Cut(strings.ToLower(s), "x")
	if !found {
		return 0, 0, false
	}
	w, err1 := strconv.Atoi(a)
	h, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || w < 16 || h < 16 || w > 8192 || h > 8192 {
		return 0, 0, false
	}
	return w, h, true
}

// objID is a stable fake identity hash (the hex in "Window{a1b2c3d u0 ...}").
func objID(parts ...any) string {
	h := uint32(2166136261)
	for _, b := range []byte(fmt.Sprint(parts...)) {
		h = (h ^ uint32(b)) * 16777619
	}
	return fmt.Sprintf("%x", h&0xfffffff)
}
