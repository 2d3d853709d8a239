package devices

import (
	"image"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android/shell"
)

// keycodes maps KeyEvent names (without "KEYCODE_") to codes.
var keycodes = map[string]int{
	"SOFT_LEFT": 1, "SOFT_RIGHT": 2, "HOME": 3, "BACK": 4, "CALL": 5, "ENDCALL": 6,
	"STAR": 17, "POUND": 18, "DPAD_UP": 19, "DPAD_DOWN": 20, "DPAD_LEFT": 21, "DPAD_RIGHT": 22, "DPAD_CENTER": 23,
	"VOLUME_UP": 24, "VOLUME_DOWN": 25, "POWER": 26, "CAMERA": 27, "CLEAR": 28,
	"COMMA": 55, "PERIOD": 56, "ALT_LEFT": 57, "ALT_RIGHT": 58, "SHIFT_LEFT": 59, "SHIFT_RIGHT": 60, "TAB": 61, "SPACE": 62,
	"SYM": 63, "EXPLORER": 64, "ENVELOPE": 65, "ENTER": 66, "DEL": 67, "GRAVE": 68, "MINUS": 69, "EQUALS": 70,
	"LEFT_BRACKET": 71, "RIGHT_BRACKET": 72, "BACKSLASH": 73, "SEMICOLON": 74, "APOSTROPHE": 75, "SLASH": 76, "AT": 77,
	"MENU": 82, "NOTIFICATION": 83, "SEARCH": 84, "MEDIA_PLAY_PAUSE": 85, "MEDIA_STOP": 86, "MEDIA_NEXT": 87, "MEDIA_PREVIOUS": 88,
	"MUTE": 91, "PAGE_UP": 92, "PAGE_DOWN": 93, "ESCAPE": 111, "FORWARD_DEL": 112, "MOVE_HOME": 122, "MOVE_END": 123, "CTRL_LEFT": 113, "CTRL_RIGHT": 114, "META_LEFT": 117,
	"NUMPAD_ENTER": 160, "VOLUME_MUTE": 164, "APP_SWITCH": 187, "SLEEP": 223, "WAKEUP": 224, "ASSIST": 219,
	"BRIGHTNESS_DOWN": 220, "BRIGHTNESS_UP": 221, "ALL_APPS": 284,
}

func init() {
	for i := range 10 {
		keycodes[strconv.Itoa(i)] = 7 + i
	}
	for i := range 26 {
		keycodes[string(rune('A'+i))] = 29 + i
	}
}

// keyCode parses "66", "KEYCODE_ENTER" or "ENTER" (Android 10+ accepts the
// bare name too).
func keyCode(s string) (int, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		return n, n >= 0 && n < 400
	}
	n, ok := keycodes[strings.TrimPrefix(strings.ToUpper(s), "KEYCODE_")]
	return n, ok
}

var inputSources = map[string]bool{"keyboard": true, "mouse": true, "joystick": true, "touchnavigation": true, "touchpad": true,
	"trackball": true, "stylus": true, "dpad": true, "gesture": true, "touchscreen": true, "gamepad": true}

const inputUsage = `Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]

The commands and default sources are:
      text <string> (Default: touchscreen)
      keyevent [--longpress|--doubletap] <key code number or name> ... (Default: keyboard)
      keycombination [-t duration(ms)] <key code 1> <key code 2> ... (Default: keyboard)
      tap <x> <y> (Default: touchscreen)
      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      press (Default: trackball)
      roll <dx> <dy> (Default: trackball)
`

// Input is `input` (Android 10+ syntax).
func Input(c *shell.Ctx) int {
	args := c.Args[1:]
	if len(args) > 0 && inputSources[args[0]] {
		args = args[1:]
	}
	if len(args) > 1 && args[0] == "-d" {
		args = args[2:]
	}
	if len(args) == 0 {
		c.Errorf("%s", inputUsage)
		return 1
	}
	bad := func() int {
		c.Errorf("Error: Invalid arguments for command: %s\n%s", args[0], inputUsage)
		return 1
	}
	d := dev(c)
	switch args[0] {
	case "tap":
		p, ok := points(args[1:], 2)
		if !ok || len(args) != 3 {
			return bad()
		}
		d.p.Lock()
		d.p.TapLocked(image.Pt(p[0], p[1]))
		d.p.Unlock()
	case "swipe", "draganddrop":
		p, ok := points(args[1:], 4)
		if !ok || len(args) > 6 {
			return bad()
		}
		dur := 300
		if len(args) == 6 {
			n, err := strconv.Atoi(args[5])
			if err != nil || n < 0 {
				return bad()
			}
			dur = n
		}
		// The gesture takes its duration on a phone; context-aware.
		if !shell.SleepCtx(c.Context, min(time.Duration(dur)*time.Millisecond, 10*time.Second)) {
			return shell.ExitCanceled
		}
		from, to := image.Pt(p[0], p[1]), image.Pt(p[2], p[3])
		d.p.Lock()
		if args[0] == "swipe" && from == to && dur >= 500 {
			d.longPressLocked(from)
		} else if args[0] == "swipe" {
			d.p.SwipeLocked(from, to)
		}
		d.p.Unlock()
	case "text":
		if len(args) < 2 {
			return bad()
		}
		// input text joins its arguments with spaces and maps "%s" to space.
		text := strings.ReplaceAll(strings.Join(args[1:], " "), "%s", " ")
		d.p.Lock()
		d.p.TypeLocked(text)
		d.p.Unlock()
	case "keyevent":
		keys := args[1:]
		for len(keys) > 0 && strings.HasPrefix(keys[0], "--") {
			keys = keys[1:]
		}
		if len(keys) == 0 {
			return bad()
		}
		codes, ok := keyCodes(c, keys)
		if !ok {
			return 1
		}
		d.p.Lock()
		for _, code := range codes {
			d.p.KeyLocked(code)
		}
		d.p.Unlock()
	case "keycombination": // Android 13+: keys pressed together
		keys := slices.DeleteFunc(slices.Clone(args[1:]), func(k string) bool { return strings.HasPrefix(k, "-") })
		codes, ok := keyCodes(c, keys)
		if !ok {
			return 1
		}
		if len(codes) < 2 {
			return bad()
		}
		d.p.Lock()
		if (slices.Contains(codes, 113) || slices.Contains(codes, 114)) && slices.Contains(codes, 29) { // CTRL + A
			d.p.State.SelAll = d.p.State.Focus != ""
		} else {
			d.p.KeyLocked(codes[len(codes)-1])
		}
		d.p.Unlock()
	case "press", "roll", "motionevent":
	default:
		c.Errorf("Error: Unknown command: %s\n%s", args[0], inputUsage)
		return 1
	}
	return 0
}

// keyCodes resolves key names or numbers; on an unknown one it prints
// input's error and returns false.
func keyCodes(c *shell.Ctx, keys []string) ([]int, bool) {
	codes := make([]int, 0, len(keys))
	for _, k := range keys {
		code, ok := keyCode(k)
		if !ok {
			c.Errorf("Error: Unknown keycode: %s\n", k)
			return nil, false
		}
		codes = append(codes, code)
	}
	return codes, true
}

// points parses n integer coordinates (Android accepts floats; they are
// truncated).
func points(args []string, n int) ([]int, bool) {
	if len(args) < n {
		return nil, false
	}
	out := make([]int, n)
	for i := range n {
		f, err := strconv.ParseFloat(args[i], 64)
		if err != nil || f < -1e6 || f > 1e6 {
			return nil, false
		}
		out[i] = int(f)
	}
	return out, true
}

// longPressLocked: a long press acts like a tap on fields and toggles;
// other elements only log it (no context menus are modelled).
func (d *Devices) longPressLocked(p image.Point) {
	d.p.Logf('I', "ViewRootImpl", "long press at %d,%d", p.X, p.Y)
}
