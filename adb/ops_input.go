package adb

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/adb/helper"
)

// DefaultInputTimeout bounds input operations (tap, swipe, text, key) when
// the context has no deadline; a swipe's own duration is added.
const DefaultInputTimeout = 10 * time.Second

// DefaultLongPress is the hold time of LongPress when none is given.
const DefaultLongPress = 800 * time.Millisecond

// ErrUnsupportedText: the text is not printable ASCII and the ADB Keyboard
// IME (com.android.adbkeyboard) is not installed on the device.
var ErrUnsupportedText = errors.New("adb: non-ASCII text needs the ADB Keyboard IME (com.android.adbkeyboard) on the device")

// adbKeyboardIME is the input method id of ADB Keyboard.
const adbKeyboardIME = "com.android.adbkeyboard/.AdbIME"

// input runs an input command line, serialized with the device's other
// inputs.
func (d *Device) input(ctx context.Context, extra time.Duration, cmd string) error {
	ctx, cancel := withDefaultTimeout(ctx, DefaultInputTimeout+extra)
	defer cancel()
	if _, err := d.shellScriptFor(ctx, opInput, extra, cmd); err != nil {
		return err
	}
	return nil
}

func checkPoint(x, y int) error {
	if x < 0 || y < 0 || x > 1<<15 || y > 1<<15 {
		return fmt.Errorf("adb: point (%d,%d) out of range", x, y)
	}
	return nil
}

// Tap taps at (x, y) in screen pixels: as input events on the
// touchscreen's node where the device allows it, else with `input tap`
// (see Config.NoTouchEvents). Serialized with other inputs. Default
// timeout: DefaultInputTimeout.
func (d *Device) Tap(ctx context.Context, x, y int) error {
	if err := checkPoint(x, y); err != nil {
		return err
	}
	p := image.Pt(x, y)
	if err := d.gesture(ctx, gesture{strokes: []stroke{{from: p, to: p}}}, fmt.Sprintf("input tap %d %d", x, y)); err != nil {
		return fmt.Errorf("tap: %w", err)
	}
	return nil
}

// DoubleTap taps twice at (x, y), 100 ms apart on the touchscreen. Through
// `input` (one shell round trip) each tap starts its own runtime, so on a
// slow phone the taps may land further apart than the double-tap timeout
// (300 ms in AOSP ViewConfiguration). Serialized with other inputs.
// Default timeout: DefaultInputTimeout.
func (d *Device) DoubleTap(ctx context.Context, x, y int) error {
	if err := checkPoint(x, y); err != nil {
		return err
	}
	p := image.Pt(x, y)
	tap := fmt.Sprintf("input tap %d %d", x, y)
	g := gesture{strokes: []stroke{{from: p, to: p}, {from: p, to: p}}, gap: doubleTapGap}
	if err := d.gesture(ctx, g, tap+"; "+tap); err != nil {
		return fmt.Errorf("double tap: %w", err)
	}
	return nil
}

// Swipe swipes from (x1, y1) to (x2, y2) over dur (minimum 1 ms): on the
// touchscreen, a move every 10 ms in real time. Serialized with other
// inputs. Default timeout: DefaultInputTimeout + dur.
func (d *Device) Swipe(ctx context.Context, x1, y1, x2, y2 int, dur time.Duration) error {
	if err := checkPoint(x1, y1); err != nil {
		return err
	}
	if err := checkPoint(x2, y2); err != nil {
		return err
	}
	dur = max(dur, time.Millisecond)
	ms := dur.Milliseconds()
	g := gesture{strokes: []stroke{{from: image.Pt(x1, y1), to: image.Pt(x2, y2), dur: dur}}}
	if err := d.gesture(ctx, g, fmt.Sprintf("input swipe %d %d %d %d %d", x1, y1, x2, y2, ms)); err != nil {
		return fmt.Errorf("swipe: %w", err)
	}
	return nil
}

// LongPress holds (x, y) for dur (DefaultLongPress when 0), as a swipe that
// does not move. Serialized with other inputs.
func (d *Device) LongPress(ctx context.Context, x, y int, dur time.Duration) error {
	if dur <= 0 {
		dur = DefaultLongPress
	}
	if err := d.Swipe(ctx, x, y, x, y, dur); err != nil {
		return fmt.Errorf("long press: %w", err)
	}
	return nil
}

// textChunks prepares text for `input text`, which maps "%s" to a space and
// splits on spaces: spaces become "%s", and a literal "%s" is split across
// two calls so it is not turned into a space.
func textChunks(text string) ([]string, error) {
	for _, r := range text {
		if r < 0x20 || r > 0x7e {
			return nil, fmt.Errorf("%w (got %q)", ErrUnsupportedText, r)
		}
	}
	var chunks []string
	for {
		i := strings.Index(text, "%s")
		if i < 0 {
			break
		}
		chunks = append(chunks, text[:i+1])
		text = text[i+1:]
	}
	chunks = append(chunks, text)
	out := chunks[:0]
	for _, c := range chunks {
		if c != "" {
			out = append(out, strings.ReplaceAll(c, " ", "%s"))
		}
	}
	return out, nil
}

// Text types text into the focused field: through the phone helper when it
// runs (any script, nothing installed: helper_ops.go); else printable ASCII goes through
// `input text` (each argument quoted for the device shell); anything else
// goes through the ADB Keyboard IME when installed (selected with `ime set`,
// text sent base64-encoded with ADB_INPUT_B64, then the user's IME set
// back), else
// ErrUnsupportedText. Serialized with other inputs. Default timeout:
// DefaultInputTimeout.
func (d *Device) Text(ctx context.Context, text string) error {
	if served, err := d.textHelper(ctx, text); served {
		if err != nil {
			return fmt.Errorf("text: %w", err)
		}
		return nil
	}
	d.stockCall(helper.OpText)
	chunks, err := textChunks(text)
	if errors.Is(err, ErrUnsupportedText) {
		return d.textIME(ctx, text)
	}
	if err != nil {
		return err
	}
	if len(chunks) == 0 {
		return nil
	}
	cmds := make([]string, len(chunks))
	for i, c := range chunks {
		q, err := QuoteArgs("input", "text", c)
		if err != nil {
			return err
		}
		cmds[i] = q
	}
	if err := d.input(ctx, 0, strings.Join(cmds, " && ")); err != nil {
		return fmt.Errorf("text: %w", err)
	}
	return nil
}

// KeyEvent sends key events by name ("KEYCODE_HOME", "HOME") or number
// ("3"), in order. Serialized with other inputs. Default timeout:
// DefaultInputTimeout.
func (d *Device) KeyEvent(ctx context.Context, keys ...string) error {
	return d.keyEvent(ctx, false, keys)
}

// LongKeyEvent long-presses each key in turn (`input keyevent --longpress`,
// Android 5+). Serialized with other inputs. Default timeout:
// DefaultInputTimeout.
func (d *Device) LongKeyEvent(ctx context.Context, keys ...string) error {
	return d.keyEvent(ctx, true, keys)
}

// KeyCombination presses keys together (`input keycombination`, Android
// 13+; older phones fail it with an *ExitError). Serialized with other
// inputs. Default timeout: DefaultInputTimeout.
func (d *Device) KeyCombination(ctx context.Context, keys ...string) error {
	return d.keys(ctx, "keycombination", []string{"input", "keycombination"}, keys)
}

func (d *Device) keyEvent(ctx context.Context, long bool, keys []string) error {
	head := []string{"input", "keyevent"}
	if long {
		head = append(head, "--longpress")
	}
	return d.keys(ctx, "keyevent", head, keys)
}

// keys runs head followed by keys as one input command.
func (d *Device) keys(ctx context.Context, op string, head, keys []string) error {
	argv, err := keyArgv(head, keys)
	if err != nil {
		return err
	}
	if op == "keyevent" {
		if keys, err = d.keysHelper(ctx, slices.Contains(head, "--longpress"), keys); err != nil || len(keys) == 0 {
			if err != nil {
				err = fmt.Errorf("%s: %w", op, err)
			}
			return err
		}
		argv, _ = keyArgv(head, keys)
	}
	d.stockCall(helper.OpKey)
	cmd, err := QuoteArgs(argv...)
	if err != nil {
		return err
	}
	if err := d.input(ctx, 0, cmd); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// keyArgv appends keys to head as input takes them: key code numbers, or
// names with their KEYCODE_ prefix.
func keyArgv(head, keys []string) ([]string, error) {
	if len(keys) == 0 {
		return nil, errors.New("adb: no key")
	}
	argv := head
	for _, k := range keys {
		k = strings.ToUpper(strings.TrimSpace(k))
		if _, err := strconv.Atoi(k); err != nil {
			if !validKeyName(k) {
				return nil, fmt.Errorf("adb: bad key %q", k)
			}
			if !strings.HasPrefix(k, "KEYCODE_") {
				k = "KEYCODE_" + k
			}
		}
		argv = append(argv, k)
	}
	return argv, nil
}

func validKeyName(k string) bool {
	if k == "" || len(k) > 64 {
		return false
	}
	for _, r := range k {
		if (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '_' {
			return false
		}
	}
	return true
}

// textIME types text with the ADB Keyboard IME.
func (d *Device) textIME(ctx context.Context, text string) error {
	ctx, cancel := withDefaultTimeout(ctx, DefaultInputTimeout)
	defer cancel()
	// -a: installed ones too, not only enabled ones (an installed ADB
	// Keyboard is enabled below).
	parts, err := d.runParts(ctx, "ime list -a -s", "settings get secure default_input_method")
	if err != nil {
		return fmt.Errorf("text: %w", err)
	}
	if !slices.Contains(strings.Fields(parts[0]), adbKeyboardIME) {
		return ErrUnsupportedText
	}
	prev := strings.TrimSpace(parts[1])
	var script []string
	if prev != adbKeyboardIME {
		script = append(script, "ime enable "+adbKeyboardIME+" >/dev/null", "ime set "+adbKeyboardIME+" >/dev/null")
	}
	bc, err := QuoteArgs("am", "broadcast", "-a", "ADB_INPUT_B64", "--es", "msg", base64.StdEncoding.EncodeToString([]byte(text)))
	if err != nil {
		return err
	}
	script = append(script, bc+" >/dev/null")
	// The user's keyboard comes back once the broadcast has been delivered
	// (am broadcast waits for the receiver).
	if prev != adbKeyboardIME && prev != "" && prev != "null" {
		back, err := QuoteArgs("ime", "set", prev)
		if err != nil {
			return err
		}
		script = append(script, back+" >/dev/null")
	}
	if _, err := d.shellScript(ctx, opInput, strings.Join(script, " && ")); err != nil {
		return fmt.Errorf("text: %w", err)
	}
	return nil
}
