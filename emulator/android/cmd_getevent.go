package android

import (
	"fmt"
	"strings"
)

// inputDevice is one /dev/input node as getevent sees it.
type inputDevice struct {
	path, name string
	keys       []evCode // EV_KEY codes
	abs        []absAxis
	props      []evCode // INPUT_PROP_* bits
}

type evCode struct {
	code  int
	label string
}

type absAxis struct {
	evCode
	max int
}

// inputDevices are the phone's input nodes in /dev/input directory order
// (getevent's scan_dir uses readdir, newest node first): the touch screen,
// whose X/Y ranges are the panel's pixels, and the power/volume keys.
func (d *Device) inputDevices() []inputDevice {
	return []inputDevice{
		{path: "/dev/input/event2", name: "virtual_touchscreen",
			keys: []evCode{{0x14a, "BTN_TOUCH"}},
			abs: []absAxis{{evCode{0x2f, "ABS_MT_SLOT"}, 9}, {evCode{0x30, "ABS_MT_TOUCH_MAJOR"}, 255},
				{evCode{0x35, "ABS_MT_POSITION_X"}, d.screen.Width - 1}, {evCode{0x36, "ABS_MT_POSITION_Y"}, d.screen.Height - 1},
				{evCode{0x39, "ABS_MT_TRACKING_ID"}, 65535}, {evCode{0x3a, "ABS_MT_PRESSURE"}, 255}},
			props: []evCode{{0x01, "INPUT_PROP_DIRECT"}}},
		{path: "/dev/input/event0", name: "gpio-keys",
			keys: []evCode{{114, "KEY_VOLUMEDOWN"}, {115, "KEY_VOLUMEUP"}, {116, "KEY_POWER"}}},
	}
}

// cmdGetevent is system/core/toolbox/getevent.c for the device listings:
// `getevent -p` / `-lp` (possible events, input props), `-i`, and the
// plain "add device" list. Without -p/-i getevent then streams events
// forever; the model has none to report and waits for the stream to
// close.
func cmdGetevent(c *cmdCtx) int {
	var labels, possible, dontBlock bool
	args := c.args[1:]
	var device string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			if device != "" {
				geteventUsage(c)
				return 1
			}
			device = a
			continue
		}
		for j := 1; j < len(a); j++ {
			switch a[j] {
			case 'l':
				labels = true
			case 'p', 'i':
				possible, dontBlock = true, true
			case 't', 'n', 'S', 'r', 'q', 'd':
			case 'v':
				j = len(a) // -v takes an optional mask glued to it
			case 's', 'c':
				if j == len(a)-1 {
					i++
				}
				j = len(a)
			default:
				c.errorf("getevent: invalid option -- %c\n", a[j])
				geteventUsage(c)
				return 1
			}
		}
	}
	n := 0
	for _, dev := range c.d.inputDevices() {
		if device != "" && dev.path != device {
			continue
		}
		n++
		c.printf("add device %d: %s\n  name:     \"%s\"\n", n, dev.path, dev.name)
		if possible {
			printPossibleEvents(c, dev, labels)
			printInputProps(c, dev)
		}
	}
	if device != "" && n == 0 {
		c.errorf("could not open %s, No such file or directory\n", device)
		return 1
	}
	if dontBlock {
		return 0
	}
	<-c.ctx.Done()
	return exitCanceled
}

func geteventUsage(c *cmdCtx) {
	c.errorf("Usage: getevent [-t] [-n] [-s switchmask] [-S] [-v [mask]] [-d] [-p] [-i] [-l] [-q] [-c count] [-r] [device]\n" +
		"    -t: show time stamps\n    -n: don't print newlines\n    -s: print switch states for given bits\n    -S: print all switch states\n" +
		"    -v: verbosity mask (errs=1, dev=2, name=4, info=8, vers=16, pos. events=32, props=64)\n    -d: show HID descriptor, if available\n" +
		"    -p: show possible events (errs, dev, name, pos. events)\n    -i: show all device info and possible events\n" +
		"    -l: label event types and names in plain text\n    -q: quiet (clear verbosity mask)\n" +
		"    -c: print given number of events then exit\n    -r: print rate events are received\n")
}

// printPossibleEvents is getevent.c print_possible_events: per event type
// "    KEY (0001):" then codes, four labels (eight hex codes) per line; ABS
// codes one per line with their input_absinfo.
func printPossibleEvents(c *cmdCtx, dev inputDevice, labels bool) {
	c.printf("  events:\n")
	code := func(e evCode) string {
		if labels {
			return fmt.Sprintf(" %.20s %*s", e.label, 20-len(e.label), "")
		}
		return fmt.Sprintf(" %04x ", e.code)
	}
	perLine := 8
	if labels {
		perLine = 4
	}
	for i, k := range dev.keys {
		switch {
		case i == 0:
			c.printf("    KEY (0001):")
		case i%perLine == 0:
			c.printf("\n               ")
		}
		c.printf("%s", code(k))
	}
	if len(dev.keys) > 0 {
		c.printf("\n")
	}
	for i, a := range dev.abs {
		if i == 0 {
			c.printf("    ABS (0003):")
		} else {
			c.printf("\n               ")
		}
		c.printf("%s : value 0, min 0, max %d, fuzz 0, flat 0, resolution 0", code(a.evCode), a.max)
	}
	if len(dev.abs) > 0 {
		c.printf("\n")
	}
}

// printInputProps is getevent.c print_input_props.
func printInputProps(c *cmdCtx, dev inputDevice) {
	c.printf("  input props:\n")
	for _, p := range dev.props {
		c.printf("    %s\n", p.label)
	}
	if len(dev.props) == 0 {
		c.printf("    <none>\n")
	}
}
