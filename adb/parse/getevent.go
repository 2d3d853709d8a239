package parse

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The listing of `getevent -p` (-lp with labels, -ilp with the ids too),
// as AOSP system/core/toolbox/getevent.c open_device prints it:
//
//	add device 3: /dev/input/event2
//	  name:     "synaptics_tcm_touch"
//	  events:
//	    KEY (0001): BTN_TOOL_FINGER       BTN_TOUCH
//	    ABS (0003): ABS_MT_SLOT           : value 0, min 0, max 9, fuzz 0, flat 0, resolution 0
//	                ABS_MT_POSITION_X     : value 0, min 0, max 1619, fuzz 0, flat 0, resolution 0
//	  input props:
//	    INPUT_PROP_DIRECT
//
// Codes are labels with -l and four hex digits without it (or with -l for a
// code getevent has no label for). Input props are always labels.

// Linux include/uapi/linux/input-event-codes.h codes the touch path needs.
const (
	EvKey = 0x01
	EvAbs = 0x03

	BtnTouch      = 0x14a
	BtnToolFinger = 0x145

	AbsMTSlot       = 0x2f
	AbsMTTouchMajor = 0x30
	AbsMTPositionX  = 0x35
	AbsMTPositionY  = 0x36
	AbsMTTrackingID = 0x39
	AbsMTPressure   = 0x3a

	InputPropDirect = 0x01
)

// absLabels are getevent's ABS labels (input-event-codes.h ABS_*), by code.
var absLabels = map[string]int{
	"ABS_X": 0x00, "ABS_Y": 0x01, "ABS_Z": 0x02, "ABS_RX": 0x03, "ABS_RY": 0x04, "ABS_RZ": 0x05,
	"ABS_THROTTLE": 0x06, "ABS_RUDDER": 0x07, "ABS_WHEEL": 0x08, "ABS_GAS": 0x09, "ABS_BRAKE": 0x0a,
	"ABS_HAT0X": 0x10, "ABS_HAT0Y": 0x11, "ABS_HAT1X": 0x12, "ABS_HAT1Y": 0x13, "ABS_HAT2X": 0x14,
	"ABS_HAT2Y": 0x15, "ABS_HAT3X": 0x16, "ABS_HAT3Y": 0x17, "ABS_PRESSURE": 0x18, "ABS_DISTANCE": 0x19,
	"ABS_TILT_X": 0x1a, "ABS_TILT_Y": 0x1b, "ABS_TOOL_WIDTH": 0x1c, "ABS_VOLUME": 0x20, "ABS_MISC": 0x28,
	"ABS_MT_SLOT": 0x2f, "ABS_MT_TOUCH_MAJOR": 0x30, "ABS_MT_TOUCH_MINOR": 0x31, "ABS_MT_WIDTH_MAJOR": 0x32,
	"ABS_MT_WIDTH_MINOR": 0x33, "ABS_MT_ORIENTATION": 0x34, "ABS_MT_POSITION_X": 0x35, "ABS_MT_POSITION_Y": 0x36,
	"ABS_MT_TOOL_TYPE": 0x37, "ABS_MT_BLOB_ID": 0x38, "ABS_MT_TRACKING_ID": 0x39, "ABS_MT_PRESSURE": 0x3a,
	"ABS_MT_DISTANCE": 0x3b, "ABS_MT_TOOL_X": 0x3c, "ABS_MT_TOOL_Y": 0x3d,
}

// keyLabels are the EV_KEY labels a touchscreen shows; other keys are kept
// only when printed as hex.
var keyLabels = map[string]int{"BTN_TOUCH": BtnTouch, "BTN_TOOL_FINGER": BtnToolFinger, "BTN_TOOL_PEN": 0x140}

// propLabels are input-event-codes.h INPUT_PROP_*.
var propLabels = map[string]int{
	"INPUT_PROP_POINTER": 0, "INPUT_PROP_DIRECT": 1, "INPUT_PROP_BUTTONPAD": 2, "INPUT_PROP_SEMI_MT": 3,
	"INPUT_PROP_TOPBUTTONPAD": 4, "INPUT_PROP_POINTING_STICK": 5, "INPUT_PROP_ACCELEROMETER": 6,
}

// AbsInfo is one absolute axis (struct input_absinfo).
type AbsInfo struct {
	Code       int `json:"code"`
	Value      int `json:"value"`
	Min        int `json:"min"`
	Max        int `json:"max"`
	Fuzz       int `json:"fuzz"`
	Flat       int `json:"flat"`
	Resolution int `json:"resolution"`
}

// InputDevice is one /dev/input node of the listing.
type InputDevice struct {
	Path string `json:"path"`
	Name string `json:"name"`
	// Keys are the EV_KEY codes known by hex or by a label in keyLabels.
	Keys []int `json:"keys,omitempty"`
	// Abs are the absolute axes with a known code, in listing order.
	Abs []AbsInfo `json:"abs,omitempty"`
	// Props are the INPUT_PROP_* bits.
	Props []int `json:"props,omitempty"`
}

// Axis returns the absolute axis code, if the device has it.
func (d InputDevice) Axis(code int) (AbsInfo, bool) {
	i := slices.IndexFunc(d.Abs, func(a AbsInfo) bool { return a.Code == code })
	if i < 0 {
		return AbsInfo{}, false
	}
	return d.Abs[i], true
}

var (
	addDeviceRe = regexp.MustCompile(`^add device \d+: (/dev/input/\S+)\s*$`)
	nameRe      = regexp.MustCompile(`^\s+name:\s+"(.*)"\s*$`)
	typeRe      = regexp.MustCompile(`^\s+([A-Z]+)\s*\(([0-9a-f]{4})\):(.*)$`)
	absItemRe   = regexp.MustCompile(`^\s*(\S+)\s+: value (-?\d+), min (-?\d+), max (-?\d+), fuzz (-?\d+), flat (-?\d+), resolution (-?\d+)\s*$`)
	hexCodeRe   = regexp.MustCompile(`^[0-9a-f]{4}$`)
	eventNodeRe = regexp.MustCompile(`^/dev/input/event[0-9]{1,4}$`)
)

// maxInputDevices bounds the listing (a phone has a few dozen nodes).
const maxInputDevices = 256

// Getevent reads the device listing of `getevent -lp` (also -p and -ilp).
// Lines it does not know (getevent's "could not get driver version ..."
// notes, the -i ids) are skipped. Output without a device is an error
// wrapping ErrNotFound (no node the shell may open).
func Getevent(out string) ([]InputDevice, error) {
	var devs []InputDevice
	var cur *InputDevice
	section := "" // "events" or "props"
	evType := -1  // the event type whose codes continue on the next lines
	for line := range strings.Lines(out) {
		line = strings.TrimRight(line, "\r\n")
		if m := addDeviceRe.FindStringSubmatch(line); m != nil {
			if len(devs) == maxInputDevices {
				return nil, formatErr("getevent -lp", "too many devices")
			}
			devs = append(devs, InputDevice{Path: m[1]})
			cur, section, evType = &devs[len(devs)-1], "", -1
			continue
		}
		if cur == nil {
			continue
		}
		trim := strings.TrimSpace(line)
		switch {
		case trim == "":
			continue
		case trim == "events:":
			section, evType = "events", -1
			continue
		case trim == "input props:":
			section, evType = "props", -1
			continue
		}
		if m := nameRe.FindStringSubmatch(line); m != nil && section == "" {
			cur.Name = m[1]
			continue
		}
		switch section {
		case "events":
			rest := line
			if m := typeRe.FindStringSubmatch(line); m != nil {
				t, _ := strconv.ParseInt(m[2], 16, 32)
				evType, rest = int(t), m[3]
			} else if !strings.HasPrefix(line, "  ") {
				evType = -1
				continue
			}
			if err := cur.addCodes(evType, rest); err != nil {
				return nil, err
			}
		case "props":
			if c, ok := propLabels[trim]; ok {
				cur.Props = append(cur.Props, c)
			} else if hexCodeRe.MatchString(trim) {
				c, _ := strconv.ParseInt(trim, 16, 32)
				cur.Props = append(cur.Props, int(c))
			}
		}
	}
	if len(devs) == 0 {
		return nil, fmt.Errorf("getevent -lp: no input device listed: %w", ErrNotFound)
	}
	return devs, nil
}

// addCodes records the codes of one events line (after the "TYPE (xxxx):"
// head, or a continuation line).
func (d *InputDevice) addCodes(evType int, rest string) error {
	switch evType {
	case EvKey:
		for _, tok := range strings.Fields(rest) {
			// print_possible_events writes '*' right after a code whose key
			// state is down at the time of the listing (" %.20s%c", the
			// state char in place of the first pad space).
			tok = strings.TrimSuffix(tok, "*")
			if c, ok := keyLabels[tok]; ok {
				d.Keys = append(d.Keys, c)
			} else if hexCodeRe.MatchString(tok) {
				c, _ := strconv.ParseInt(tok, 16, 32)
				d.Keys = append(d.Keys, int(c))
			}
		}
	case EvAbs:
		m := absItemRe.FindStringSubmatch(rest)
		if m == nil {
			return formatErr("getevent -lp", "bad ABS line "+clip(strings.TrimSpace(rest)))
		}
		code, ok := absLabels[m[1]]
		if !ok {
			if !hexCodeRe.MatchString(m[1]) {
				return nil // a label this table lacks: not an axis the touch path uses
			}
			c, _ := strconv.ParseInt(m[1], 16, 32)
			code = int(c)
		}
		var v [6]int
		for i := range v {
			n, err := strconv.Atoi(m[i+2])
			if err != nil {
				return formatErr("getevent -lp", "bad ABS number "+clip(m[i+2]))
			}
			v[i] = n
		}
		d.Abs = append(d.Abs, AbsInfo{Code: code, Value: v[0], Min: v[1], Max: v[2], Fuzz: v[3], Flat: v[4], Resolution: v[5]})
	}
	return nil
}

// Touchscreen is the panel the touch path writes to: a direct-input
// (INPUT_PROP_DIRECT) multi-touch protocol B device (Linux
// Documentation/input/multi-touch-protocol.rst: slots and tracking ids).
type Touchscreen struct {
	Path string `json:"path"`
	Name string `json:"name"`
	// X and Y are ABS_MT_POSITION_X/Y, in the panel's natural orientation.
	X AbsInfo `json:"x"`
	Y AbsInfo `json:"y"`
	// Slots is ABS_MT_SLOT's max + 1; TrackingMax is ABS_MT_TRACKING_ID's
	// max (tracking ids wrap there).
	Slots       int `json:"slots"`
	TrackingMax int `json:"tracking_max"`
	// Pressure and TouchMajor are set when the panel reports them: Android's
	// InputReader takes a contact with pressure 0 for a hovering one, so
	// a touch must send a positive pressure on such a panel.
	Pressure   *AbsInfo `json:"pressure,omitempty"`
	TouchMajor *AbsInfo `json:"touch_major,omitempty"`
	// BtnTouch says the panel has BTN_TOUCH (InputReader then reads its
	// state: up means hovering).
	BtnTouch bool `json:"btn_touch,omitempty"`
}

// FindTouchscreen picks the one protocol B touchscreen of a listing. Some
// phones list two nodes that qualify (a vendor's wrapper beside the real
// panel, openstf/minitouch issue "Do not work on NUBIA z9mini"); only one
// of them moves the screen and nothing tells which, so two or more is an
// error like none: both wrap ErrNotFound.
func FindTouchscreen(devs []InputDevice) (Touchscreen, error) {
	var found []Touchscreen
	for _, d := range devs {
		if ts, ok := touchscreen(d); ok {
			found = append(found, ts)
		}
	}
	switch len(found) {
	case 0:
		return Touchscreen{}, fmt.Errorf("no direct multi-touch (protocol B) touchscreen: %w", ErrNotFound)
	case 1:
		return found[0], nil
	}
	paths := make([]string, len(found))
	for i, ts := range found {
		paths[i] = ts.Path
	}
	return Touchscreen{}, fmt.Errorf("%d touchscreens (%s), cannot tell which one is the screen: %w", len(found), strings.Join(paths, ", "), ErrNotFound)
}

func touchscreen(d InputDevice) (Touchscreen, bool) {
	if !slices.Contains(d.Props, InputPropDirect) || !eventNodeRe.MatchString(d.Path) {
		return Touchscreen{}, false
	}
	x, okx := d.Axis(AbsMTPositionX)
	y, oky := d.Axis(AbsMTPositionY)
	slot, oks := d.Axis(AbsMTSlot)
	tid, okt := d.Axis(AbsMTTrackingID)
	if !okx || !oky || !oks || !okt || x.Max <= x.Min || y.Max <= y.Min || slot.Max < 0 || slot.Max > 63 || tid.Max < 1 {
		return Touchscreen{}, false
	}
	ts := Touchscreen{Path: d.Path, Name: d.Name, X: x, Y: y, Slots: slot.Max + 1, TrackingMax: tid.Max,
		BtnTouch: slices.Contains(d.Keys, BtnTouch)}
	if p, ok := d.Axis(AbsMTPressure); ok && p.Max > 0 {
		ts.Pressure = &p
	}
	if t, ok := d.Axis(AbsMTTouchMajor); ok && t.Max > 0 {
		ts.TouchMajor = &t
	}
	return ts, true
}
