package adb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"strconv"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/adb/helper"
	"github.com/adb-connector/adb-connector/adb/parse"
)

// Operations on the phone helper, each with today's path as its fallback.
//
// What falls back, and when. A request the helper never took (it is off,
// cannot start on this phone, is waiting out a backoff, lacks the feature
// because another process holds the UiAutomation slot, or a write of the
// request's first bytes failed) runs on the stock path: nothing of it ran
// on the phone. So does a request it refused before acting (an ERROR of
// code bad_request, unsupported, busy, not_found or refused). A request it
// took and then did not answer well (it crashed, hung past the request's
// deadline, or sent garbage) is different: a read (tree, screenshot,
// clipboard) is asked again of the stock path, as reading twice changes
// nothing; an action (tap, swipe, key, text) may have been applied before
// the answer was lost, so it is an error and is not repeated: playing a
// tap twice is worse than reporting that its receipt was lost. In every
// failure case the helper is stopped and started again only after a
// backoff, so the next calls take the stock path meanwhile. The caller's
// own deadline or cancellation is never a fallback: it ends the call.

// Per-request deadlines: the helper answers in milliseconds (a warm tree
// 5-40 ms, an injection about 6 ms: docs/phone-timings.md); these leave
// room for a slow phone and bound a hung one, after which the stock path
// still has the rest of the caller's deadline.
const (
	helperTreeIdle    = 100 * time.Millisecond // quiet time since the last accessibility event
	helperTreeCap     = 3 * time.Second        // the helper's own bound on waiting for idle
	helperTreeTimeout = helperTreeCap + 2*time.Second
	helperActTimeout  = 2 * time.Second // plus the gesture's duration
	helperTextTimeout = 5 * time.Second
	helperShotTimeout = 5 * time.Second
)

// helperDo runs req on the helper when it has feature. served is false
// when the stock path must do it instead (see the top of this file);
// otherwise body is the OK answer, checked by parse under the helper's
// lock (a body that does not parse is garbage), or err is the call's
// error. timeout bounds the answer's wait within ctx.
func (d *Device) helperDo(ctx context.Context, feature helper.Feature, req helper.Request, timeout time.Duration, parse func([]byte) error) (served bool, err error) {
	h := &d.helper
	h.mu.Lock()
	defer d.helperUnlock()
	r, err := d.helperReady(ctx, feature)
	if errors.Is(err, errHelperUnavailable) {
		return false, nil
	}
	if err != nil {
		// Not reaching the phone, or the caller's deadline: the stock
		// path would fail alike.
		return true, err
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	f, err := d.exchange(rctx, r, req)
	if err == nil {
		switch f.Kind {
		case helper.KindOK:
			if perr := parse(f.Body); perr != nil {
				err = &helperLost{why: HelperWhyGarbage, sent: true, err: perr}
			}
		case helper.KindError:
			re, perr := helper.ParseError(req.Op, f.Body)
			if perr != nil {
				err = &helperLost{why: HelperWhyGarbage, sent: true, err: perr}
				break
			}
			return d.helperRefused(r, req.Op, re)
		}
	}
	var lost *helperLost
	if errors.As(err, &lost) {
		if ctx.Err() != nil {
			// The caller's end, not the helper's fault: closed at once
			// (its answer would come to the next request), no backoff.
			d.dropHelperLocked()
			return true, lost.err
		}
		d.failHelperLocked(lost.why, lost.err)
		if !lost.sent || req.Op.Reads() {
			return false, nil
		}
		sentinel := ErrProtocol
		if lost.why == HelperWhyHung {
			sentinel = ErrTimeout
		}
		return true, fmt.Errorf("phone helper %s: %w: it took the request and %s, so it may have been applied; not repeated (%v)",
			req.Op, sentinel, lost.why, lost.err)
	}
	r.timer.arm()
	d.c.helperCounts.call(req.Op, PathHelper)
	return true, nil
}

// helperRefused handles an ERROR answer: a refusal before acting, or any
// error of a read, goes to the stock path; other errors of an action are
// the call's. busy means the UiAutomation slot went to another process:
// tree and text are not asked of this helper again. h.mu held.
func (d *Device) helperRefused(r *helperRun, op helper.Op, re *helper.RemoteError) (bool, error) {
	r.timer.arm()
	if op == helper.OpTree && re.Code == helper.CodeNotFound {
		// No root node: the screen is off, as `uiautomator dump` would
		// say after a Java VM start ("null root node returned").
		d.c.helperCounts.call(op, PathHelper)
		return true, fmt.Errorf("%w: %s", ErrScreenOff, re.Message)
	}
	if re.Code == helper.CodeBusy {
		r.hello.Features &^= helper.FeatureTree | helper.FeatureText
		r.hello.Reason = "uiautomation busy"
		d.helper.status.Features, d.helper.status.Reason = r.hello.Features, r.hello.Reason
	}
	if re.NotDone() || op.Reads() {
		d.c.log.Debug("phone helper refused; using the stock path", "device", d.key, "op", op.String(), "code", re.Code)
		if op == helper.OpTree && r.hello.Features&helper.FeatureTree != 0 {
			// Our helper holds the UiAutomation slot, which `uiautomator
			// dump` needs: it is stopped first (started again on the next
			// use).
			d.stopHelperLocked(context.Background())
		}
		return false, nil
	}
	d.c.helperCounts.call(op, PathHelper)
	return true, fmt.Errorf("phone helper %s: %s", op, re.Code)
}

// stockCall counts an operation served by the stock path.
func (d *Device) stockCall(op helper.Op) { d.c.helperCounts.call(op, PathStock) }

// helperTree reads the UI tree from the helper; served false: take the
// stock dump. The caller holds the input slot.
func (d *Device) helperTree(ctx context.Context) (root *parse.UINode, served bool, err error) {
	req := helper.Tree(uint32(helperTreeIdle.Milliseconds()), uint32(helperTreeCap.Milliseconds()))
	served, err = d.helperDo(ctx, helper.FeatureTree, req, d.c.helperCfg.tree, func(b []byte) error {
		tr, err := helper.ParseTree(b)
		if err != nil {
			return err
		}
		root, err = parse.UIDump(tr.XML)
		return err
	})
	return root, served, err
}

// helperGesture plays g through the helper's injection; served false: the
// touch path or input plays it. The caller holds the input slot.
func (d *Device) helperGesture(ctx context.Context, g gesture) (bool, error) {
	req, ok := gestureRequest(g)
	if !ok {
		return false, nil
	}
	return d.helperDo(ctx, helper.FeatureInject, req, d.c.helperCfg.act+g.need(), ignoreBody(req.Op))
}

// gestureRequest is the helper request that plays g: a tap (held for a
// long press, twice for a double tap) or a swipe; ok false for a shape
// the protocol does not carry.
func gestureRequest(g gesture) (helper.Request, bool) {
	s := g.strokes
	still := func(st stroke) bool { return st.from == st.to }
	switch {
	case len(s) == 1 && still(s[0]) && s[0].dur == 0:
		return helper.Tap(int32(s[0].from.X), int32(s[0].from.Y), 0, 1), true
	case len(s) == 2 && still(s[0]) && still(s[1]) && s[0].from == s[1].from && s[0].dur == 0 && s[1].dur == 0:
		return helper.Tap(int32(s[0].from.X), int32(s[0].from.Y), 0, 2), true
	case len(s) == 1 && still(s[0]) && s[0].dur >= 500*time.Millisecond:
		return helper.Tap(int32(s[0].from.X), int32(s[0].from.Y), uint32(s[0].dur.Milliseconds()), 1), true
	case len(s) == 1:
		return helper.Swipe(int32(s[0].from.X), int32(s[0].from.Y), int32(s[0].to.X), int32(s[0].to.Y), uint32(max(s[0].dur.Milliseconds(), 1))), true
	}
	return helper.Request{}, false
}

func ignoreBody(op helper.Op) func([]byte) error {
	return func(b []byte) error { return helper.ParseEmpty(op, b) }
}

// helperKeys presses keys through the helper, in order; done is how many
// it pressed (the rest go to the stock path when err is nil). A key
// without a known code stops it there. The caller holds the input slot.
func (d *Device) helperKeys(ctx context.Context, long bool, keys []string) (done int, err error) {
	if !d.helperRunning() {
		// Not started for keys alone: `input keyevent` costs the same one
		// Java VM start, and a key is often the last act (a reset's HOME).
		return 0, nil
	}
	for _, k := range keys {
		code, ok := keyCode(k)
		if !ok {
			return done, nil
		}
		served, err := d.helperDo(ctx, helper.FeatureInject, helper.Key(code, long), d.c.helperCfg.act+time.Second, ignoreBody(helper.OpKey))
		if !served || err != nil {
			return done, err
		}
		done++
	}
	return done, nil
}

// helperRunning reports whether the device's helper runs now.
func (d *Device) helperRunning() bool {
	h := &d.helper
	h.mu.Lock()
	defer d.helperUnlock()
	return h.run != nil && h.run.alive()
}

// keyCode is an Android key code by number or name (with or without
// KEYCODE_), for the names agents use (AOSP KeyEvent.java).
func keyCode(k string) (uint32, bool) {
	k = strings.ToUpper(strings.TrimSpace(k))
	if n, err := strconv.ParseUint(k, 10, 32); err == nil {
		return uint32(n), true
	}
	c, ok := keyCodes[strings.TrimPrefix(k, "KEYCODE_")]
	return c, ok
}

// keyCodes are AOSP KeyEvent's codes of the keys the tools name.
var keyCodes = map[string]uint32{
	"HOME": 3, "BACK": 4, "CALL": 5, "ENDCALL": 6, "DPAD_UP": 19, "DPAD_DOWN": 20, "DPAD_LEFT": 21, "DPAD_RIGHT": 22,
	"DPAD_CENTER": 23, "VOLUME_UP": 24, "VOLUME_DOWN": 25, "POWER": 26, "CAMERA": 27, "TAB": 61, "SPACE": 62,
	"ENTER": 66, "DEL": 67, "MENU": 82, "SEARCH": 84, "MEDIA_PLAY_PAUSE": 85, "PAGE_UP": 92, "PAGE_DOWN": 93,
	"ESCAPE": 111, "FORWARD_DEL": 112, "MOVE_HOME": 122, "MOVE_END": 123, "VOLUME_MUTE": 164, "APP_SWITCH": 187,
	"SLEEP": 223, "WAKEUP": 224,
}

// helperText types text through the helper (set text on the focused
// field, or the clipboard and a paste); served false: `input text` or the
// IME types it. The caller holds the input slot.
func (d *Device) helperText(ctx context.Context, text string) (bool, error) {
	return d.helperDo(ctx, helper.FeatureText, helper.Text(text, false, -1, -1), d.c.helperCfg.text, func(b []byte) error {
		_, err := helper.ParseText(b)
		return err
	})
}

// gestureOp is the metrics op of a gesture: tap or swipe.
func gestureOp(g gesture) helper.Op {
	if req, ok := gestureRequest(g); ok {
		return req.Op
	}
	return helper.OpSwipe
}

// uiDumpHelper is UIDump on the helper, under the input slot (a tree
// reflects the inputs before it) and not counted as an action.
func (d *Device) uiDumpHelper(ctx context.Context) (*parse.UINode, bool, error) {
	release, err := d.lim.acquire(ctx, opInput)
	if err != nil {
		return nil, true, fmt.Errorf("ui dump: %w", err)
	}
	defer release()
	seq := d.actions.Load()
	root, served, err := d.helperTree(ctx)
	if !served {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, fmt.Errorf("ui dump: %w", err)
	}
	d.noteRotation(root.Rotation, seq)
	return root, true, nil
}

// keysHelper presses what it can of keys on the helper under the input
// slot, and returns the keys left for the stock path.
func (d *Device) keysHelper(ctx context.Context, long bool, keys []string) ([]string, error) {
	ctx, cancel := withDefaultTimeout(ctx, DefaultInputTimeout)
	defer cancel()
	release, err := d.lim.acquire(ctx, opInput)
	if err != nil {
		return nil, err
	}
	defer release()
	d.actions.Add(1)
	done, err := d.helperKeys(ctx, long, keys)
	return keys[done:], err
}

// textHelper is Text on the helper, under the input slot.
func (d *Device) textHelper(ctx context.Context, text string) (bool, error) {
	if text == "" {
		return false, nil
	}
	ctx, cancel := withDefaultTimeout(ctx, DefaultInputTimeout)
	defer cancel()
	release, err := d.lim.acquire(ctx, opInput)
	if err != nil {
		return true, err
	}
	defer release()
	d.actions.Add(1)
	return d.helperText(ctx, text)
}

// helperShot takes a screenshot with the helper's SHOT as req asks (JPEG
// when req.Format is "jpeg", else PNG). A helper that cannot serve it, or
// that failed on it (a read: safe to take again), gives an error wrapping
// errHelperUnavailable: a failure of the mode, so Screenshot takes it at
// once in the next best mode. The caller holds a read slot.
func (d *Device) helperShot(ctx context.Context, req ShotRequest) (*Screenshot, int64, error) {
	const op = "screencap helper"
	format := helper.FormatPNG
	if req.Format == "jpeg" {
		format = helper.FormatJPEG
	}
	quality := req.Quality
	if quality <= 0 || quality > 100 {
		quality = 0 // the helper's default
	}
	var shot *Screenshot
	served, err := d.helperDo(ctx, helper.FeatureScreenshot, helper.Shot(uint32(max(req.MaxSide, 0)), format, uint8(quality)), d.c.helperCfg.shot, func(b []byte) error {
		r, err := helper.ParseShot(b)
		if err != nil {
			return err
		}
		if err := checkImage(r.Image, format, r.Width, r.Height); err != nil {
			return err
		}
		shot = &Screenshot{Mode: CaptureHelper, Width: r.Width, Height: r.Height, ScreenWidth: r.DeviceWidth, ScreenHeight: r.DeviceHeight, Secure: r.Secure}
		if format == helper.FormatJPEG {
			shot.JPEG = r.Image
		} else {
			shot.PNG = r.Image
		}
		return nil
	})
	switch {
	case !served:
		return nil, 0, fmt.Errorf("%s: %w", op, errHelperUnavailable)
	case err != nil:
		return nil, 0, fmt.Errorf("%s: %w", op, err)
	}
	return shot, d.helperTid.Load(), nil
}

// checkImage checks that img is an image of format and the size SHOT said
// (its header: a PNG's IHDR, a JPEG's SOI marker).
func checkImage(img []byte, format uint8, w, h int) error {
	if format == helper.FormatJPEG {
		if len(img) < 4 || img[0] != 0xFF || img[1] != 0xD8 {
			return fmt.Errorf("%w: shot is not a JPEG", helper.ErrFrame)
		}
		return nil
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(img))
	if err != nil {
		return fmt.Errorf("%w: shot is not a PNG: %v", helper.ErrFrame, err)
	}
	if cfg.Width != w || cfg.Height != h {
		return fmt.Errorf("%w: shot PNG is %dx%d, said %dx%d", helper.ErrFrame, cfg.Width, cfg.Height, w, h)
	}
	return nil
}
