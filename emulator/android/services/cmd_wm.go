package services

import (
	"image"
	"strconv"

	"github.com/adb-connector/adb-connector/emulator/android/model"
	"github.com/adb-connector/adb-connector/emulator/android/shell"
)

// Wm: `wm size [WxH|reset]`, `wm density [N|reset]`. Output as on
// Android 7+: "Physical size: WxH" plus "Override size: WxH" when set.
func Wm(c *shell.Ctx) int {
	d := phone(c)
	if len(c.Args) < 2 {
		c.Errorf("usage: wm [size|density] ...\n")
		return 1
	}
	d.Lock()
	defer d.Unlock()
	switch c.Args[1] {
	case "size":
		if len(c.Args) == 2 {
			c.Printf("Physical size: %dx%d\n", d.Screen.Width, d.Screen.Height)
			if d.State.WmSize != (image.Point{}) {
				c.Printf("Override size: %dx%d\n", d.State.WmSize.X, d.State.WmSize.Y)
			}
			return 0
		}
		if c.Args[2] == "reset" {
			d.State.WmSize = image.Point{}
			d.Changed()
			return 0
		}
		w, h, ok := model.ParseWxH(c.Args[2])
		if !ok {
			c.Errorf("Error: bad size %s\n", c.Args[2])
			return 255
		}
		d.State.WmSize = image.Pt(w, h)
		d.Changed()
	case "density":
		if len(c.Args) == 2 {
			c.Printf("Physical density: %d\n", d.Screen.Density)
			if d.State.WmDens != 0 {
				c.Printf("Override density: %d\n", d.State.WmDens)
			}
			return 0
		}
		if c.Args[2] == "reset" {
			d.State.WmDens = 0
			return 0
		}
		n, err := strconv.Atoi(c.Args[2])
		if err != nil || n < 72 || n > 1000 {
			c.Errorf("Error: bad number %s\n", c.Args[2])
			return 255
		}
		d.State.WmDens = n
	default:
		c.Errorf("Error: unknown command '%s'\n", c.Args[1])
		return 255
	}
	return 0
}
