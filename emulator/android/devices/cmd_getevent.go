package devices

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/adb-connector/adb-connector/emulator/android/shell"
)

// inputDevice is one /dev/input node as getevent sees it.
type inputDevice struct {
	path, name, location string
	bus, vendor, product int
	version              int      // input_id.version
	keys                 []evCode // EV_KEY codes
	abs                  []absAxis
	props                []evCode // INPUT_PROP_* bits
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
// (getevent's scan_dir uses readdir, newest node first): the touch screen
// on I2C, whose X/Y ranges are the panel's pixels, and the power and
// volume keys.
func (d *Devices) inputDevices() []inputDevice {
	return []inputDevice{
		{path: "/dev/input/event2", name: "virtual_touchscreen", bus: 0x18,
			keys: []evCode{{0x14a, "BTN_TOUCH"}},
			abs: []absAxis{{evCode{0x2f, "ABS_MT_SLOT"}, 9}, {evCode{0x30, "ABS_MT_TOUCH_MAJOR"}, 255},
				{evCode{0x35, "ABS_MT_POSITION_X"}, d.p.Screen.Width - 1}, {evCode{0x36, "ABS_MT_POSITION_Y"}, d.p.Screen.Height - 1},
				{evCode{0x39, "ABS_MT_TRACKING_ID"}, 65535}, {evCode{0x3a, "ABS_MT_PRESSURE"}, 255}},
			props: []evCode{{0x01, "INPUT_PROP_DIRECT"}}},
		{path: "/dev/input/event0", name: "gpio-keys", location: "gpio-keys/input0", bus: 0x19, vendor: 1, product: 1, version: 0x100,
			keys: []evCode{{114, "KEY_VOLUMEDOWN"}, {115, "KEY_VOLUMEUP"}, {116, "KEY_POWER"}}},
	}
}

// getevent.c print_flags bits.
const (
	geDeviceErrors = 1 << iota
	geDevice
	geDeviceName
	geDeviceInfo
	geVersion
	gePossibleEvents
	geInputProps
	geHIDDescriptor
	geAllInfo = 1<<8 - 1
	geLabels  = 1 << 16
)

// Getevent is system/core/toolbox/getevent.c: its getopt loop
// ("tns:Sv::dpilqc:rh") and open_device's listing ("add device N: PATH",
// bus/vendor/product/version with -i, the name, location/id, the driver
// version, the possible events and input props). -p and -i list and exit;
// otherwise getevent streams events until killed, and the model has none
// to report, so it waits for the stream to close.
func Getevent(c *shell.Ctx) int {
	flags, flagsSet, dontBlock := 0, false, -1
	args := c.Args[1:]
	var operands []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			operands = append(operands, a)
			continue
		}
		if a == "--" {
			operands = append(operands, args[i+1:]...)
			break
		}
		for j := 1; j < len(a); j++ {
			switch a[j] {
			case 'l':
				flags |= geLabels
			case 'p':
				flags |= geDeviceErrors | geDevice | geDeviceName | gePossibleEvents | geInputProps
				flagsSet = true
				if dontBlock == -1 {
					dontBlock = 1
				}
			case 'i':
				flags |= geAllInfo
				flagsSet = true
				if dontBlock == -1 {
					dontBlock = 1
				}
			case 'v':
				if j+1 < len(a) {
					n, _ := strconv.ParseInt(a[j+1:], 0, 32)
					flags |= int(n)
				} else {
					flags |= geDevice | geDeviceName | geDeviceInfo | geVersion
				}
				flagsSet = true
				j = len(a)
			case 'q':
				flagsSet = true
			case 'd':
				flags |= geHIDDescriptor
			case 't', 'n', 'r':
			case 'S':
				if dontBlock == -1 {
					dontBlock = 1
				}
			case 's', 'c':
				if j == len(a)-1 {
					i++
				}
				if a[j] == 'c' {
					dontBlock = 0
				} else if dontBlock == -1 {
					dontBlock = 1
				}
				j = len(a)
			case 'h':
				geteventUsage(c)
				return 1
			default:
				c.Errorf("getevent: invalid option -%c\n", a[j])
				geteventUsage(c)
				return 1
			}
		}
	}
	if len(operands) > 1 {
		geteventUsage(c)
		return 1
	}
	devices := dev(c).inputDevices()
	if len(operands) == 1 {
		if !flagsSet {
			flags |= geDeviceErrors
		}
		i := slices.IndexFunc(devices, func(dev inputDevice) bool { return dev.path == operands[0] })
		if i < 0 {
			if flags&geDeviceErrors != 0 {
				c.Errorf("could not open %s, No such file or directory\n", operands[0])
			}
			return 1
		}
		devices = devices[i : i+1]
	} else if !flagsSet {
		flags |= geDeviceErrors | geDevice | geDeviceName
	}
	for n, dev := range devices {
		openDevice(c, n+1, dev, flags)
	}
	if dontBlock == 1 {
		return 0
	}
	<-c.Context.Done()
	return shell.ExitCanceled
}

// openDevice prints what getevent.c open_device prints for one node.
func openDevice(c *shell.Ctx, n int, dev inputDevice, flags int) {
	if flags&geDevice != 0 {
		c.Printf("add device %d: %s\n", n, dev.path)
	}
	if flags&geDeviceInfo != 0 {
		c.Printf("  bus:      %04x\n  vendor    %04x\n  product   %04x\n  version   %04x\n", dev.bus, dev.vendor, dev.product, dev.version)
	}
	if flags&geDeviceName != 0 {
		c.Printf("  name:     \"%s\"\n", dev.name)
	}
	if flags&geDeviceInfo != 0 {
		c.Printf("  location: \"%s\"\n  id:       \"\"\n", dev.location)
	}
	if flags&geVersion != 0 {
		c.Printf("  version:  1.0.1\n") // EV_VERSION 0x010001
	}
	if flags&gePossibleEvents != 0 {
		printPossibleEvents(c, dev, flags&geLabels != 0)
	}
	if flags&geInputProps != 0 {
		printInputProps(c, dev)
	}
	// HID descriptors come from /sys/kernel/debug/hid, closed to the shell.
}

func geteventUsage(c *shell.Ctx) {
	c.Errorf("Usage: getevent [-t] [-n] [-s switchmask] [-S] [-v [mask]] [-d] [-p] [-i] [-l] [-q] [-c count] [-r] [device]\n" +
		"    -t: show time stamps\n    -n: don't print newlines\n    -s: print switch states for given bits\n    -S: print all switch states\n" +
		"    -v: verbosity mask (errs=1, dev=2, name=4, info=8, vers=16, pos. events=32, props=64)\n    -d: show HID descriptor, if available\n" +
		"    -p: show possible events (errs, dev, name, pos. events)\n    -i: show all device info and possible events\n" +
		"    -l: label event types and names in plain text\n    -q: quiet (clear verbosity mask)\n" +
		"    -c: print given number of events then exit\n    -r: print rate events are received\n")
}

// printPossibleEvents is getevent.c print_possible_events: per event type
// "    KEY (0001):" then codes, four labels (eight hex codes) per line; ABS
// codes one per line with their input_absinfo.
func printPossibleEvents(c *shell.Ctx, dev inputDevice, labels bool) {
	c.Printf("  events:\n")
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
			c.Printf("    KEY (0001):")
		case i%perLine == 0:
			c.Printf("\n               ")
		}
		c.Printf("%s", code(k))
	}
	if len(dev.keys) > 0 {
		c.Printf("\n")
	}
	for i, a := range dev.abs {
		if i == 0 {
			c.Printf("    ABS (0003):")
		} else {
			c.Printf("\n               ")
		}
		c.Printf("%s : value 0, min 0, max %d, fuzz 0, flat 0, resolution 0", code(a.evCode), a.max)
	}
	if len(dev.abs) > 0 {
		c.Printf("\n")
	}
}

// printInputProps is getevent.c print_input_props.
func printInputProps(c *shell.Ctx, dev inputDevice) {
	c.Printf("  input props:\n")
	for _, p := range dev.props {
		c.Printf("    %s\n", p.label)
	}
	if len(dev.props) == 0 {
		c.Printf("    <none>\n")
	}
}
