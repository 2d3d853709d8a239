package adb

import (
	"context"
	"encoding/binary"
	"image"
	"io"
	"time"

	"github.com/adb-connector/adb-connector/adb/parse"
)

// Gestures as input events for a multi-touch protocol B panel (Linux
// Documentation/input/multi-touch-protocol.rst): a contact is a slot with
// a tracking id, its positions, and SYN_REPORT after each frame; lifting
// sets the tracking id to -1. One slot is used; the kernel stamps the
// events' times itself (drivers/input/evdev.c evdev_write), so the host
// paces long presses and swipes in real time.

const (
	evSyn     = 0x00
	synReport = 0x00
)

// swipeStep is the interval between the moves of a swipe: a panel reports
// at 60-120 Hz, and InputReader needs a few moves to see a fling's speed.
const swipeStep = 10 * time.Millisecond

// doubleTapGap separates the taps of a double tap: more than AOSP
// ViewConfiguration's DOUBLE_TAP_MIN_TIME (40 ms), well within its
// DOUBLE_TAP_TIMEOUT (300 ms).
const doubleTapGap = 100 * time.Millisecond

// stroke is one contact: down at from, moving to to over dur, then up.
// dur 0 lifts at once (a tap, as `input tap` sends down and up together).
type stroke struct {
	from, to image.Point // display pixels
	dur      time.Duration
}

// gesture is strokes one after the other, gap apart.
type gesture struct {
	strokes []stroke
	gap     time.Duration
}

// need is how long the gesture holds the screen: its strokes' durations
// (the gaps between taps are no more than `input` takes to start again).
func (g gesture) need() time.Duration {
	var n time.Duration
	for _, s := range g.strokes {
		n += s.dur
	}
	return n
}

// panelMap maps display pixels to the panel's axes.
type panelMap struct {
	ts       parse.Touchscreen
	natW     int // the display's natural (rotation 0) size
	natH     int
	rotation int
	w, h     int // the display's size in its current orientation
}

// newPanelMap builds the mapping for a screen; ok is false when the
// screen does not say its rotation or size, or when the panel's axes are
// not the display's natural ones (a portrait display with a landscape
// panel, which an input device configuration file would turn with
// touch.orientation, AOSP "Input Device Configuration Files"): those
// phones keep `input`.
func newPanelMap(ts parse.Touchscreen, si ScreenInfo) (panelMap, bool) {
	if !si.RotationKnown || si.Width <= 0 || si.Height <= 0 {
		return panelMap{}, false
	}
	xr, yr := ts.X.Max-ts.X.Min, ts.Y.Max-ts.Y.Min
	if si.Width != si.Height && xr != yr && (si.Width > si.Height) != (xr > yr) {
		return panelMap{}, false
	}
	w, h := si.Oriented()
	return panelMap{ts: ts, natW: si.Width, natH: si.Height, rotation: si.Rotation, w: w, h: h}, true
}

// onScreen reports whether p is on the display.
func (m panelMap) onScreen(p image.Point) bool {
	return p.X >= 0 && p.Y >= 0 && p.X < m.w && p.Y < m.h
}

// panel maps display point p (on screen) to panel coordinates: the
// converse of InputReader's mapping (AOSP TouchInputMapper
// cookPointerData: the panel's axes are the display's natural ones; on
// ROTATION_90 display x runs along the panel's y and display y against
// its x, ROTATION_180 mirrors both, ROTATION_270 is the converse of 90).
// Each pixel maps to the middle of its span of panel units.
func (m panelMap) panel(p image.Point) image.Point {
	fwd := func(a parse.AbsInfo, u, n int) int {
		return a.Min + (2*u+1)*(a.Max-a.Min+1)/(2*n)
	}
	rev := func(a parse.AbsInfo, u, n int) int {
		return a.Max - (2*u+1)*(a.Max-a.Min+1)/(2*n)
	}
	x, y := m.ts.X, m.ts.Y
	switch m.rotation {
	case 1:
		return image.Pt(rev(x, p.Y, m.natW), fwd(y, p.X, m.natH))
	case 2:
		return image.Pt(rev(x, p.X, m.natW), rev(y, p.Y, m.natH))
	case 3:
		return image.Pt(fwd(x, p.Y, m.natW), rev(y, p.X, m.natH))
	}
	return image.Pt(fwd(x, p.X, m.natW), fwd(y, p.Y, m.natH))
}

// frames encodes events as struct input_event (Linux
// include/uapi/linux/input.h): a zeroed struct timeval (two longs: 16
// bytes for a 64-bit writer, 8 for a 32-bit one), then type, code and
// value, little-endian (every Android ABI is).
type frames struct {
	abi64 bool
	ts    parse.Touchscreen
	b     []byte
}

func (f *frames) ev(typ, code int, value int32) {
	tv := 8
	if f.abi64 {
		tv = 16
	}
	f.b = append(f.b, make([]byte, tv)...)
	f.b = binary.LittleEndian.AppendUint16(f.b, uint16(typ))
	f.b = binary.LittleEndian.AppendUint16(f.b, uint16(code))
	f.b = binary.LittleEndian.AppendUint32(f.b, uint32(value))
}

// down starts contact id at p: a positive pressure and touch size where
// the panel reports them and BTN_TOUCH, else InputReader takes the
// contact for a hovering one.
func (f *frames) down(id int, p image.Point) {
	f.ev(parse.EvAbs, parse.AbsMTSlot, 0)
	f.ev(parse.EvAbs, parse.AbsMTTrackingID, int32(id))
	f.ev(parse.EvAbs, parse.AbsMTPositionX, int32(p.X))
	f.ev(parse.EvAbs, parse.AbsMTPositionY, int32(p.Y))
	if a := f.ts.Pressure; a != nil {
		f.ev(parse.EvAbs, parse.AbsMTPressure, int32(max(a.Min+(a.Max-a.Min)/2, 1)))
	}
	if a := f.ts.TouchMajor; a != nil {
		f.ev(parse.EvAbs, parse.AbsMTTouchMajor, int32(max(a.Min+(a.Max-a.Min)/10, 1)))
	}
	if f.ts.BtnTouch {
		f.ev(parse.EvKey, parse.BtnTouch, 1)
	}
	f.ev(evSyn, synReport, 0)
}

func (f *frames) move(p image.Point) {
	f.ev(parse.EvAbs, parse.AbsMTSlot, 0)
	f.ev(parse.EvAbs, parse.AbsMTPositionX, int32(p.X))
	f.ev(parse.EvAbs, parse.AbsMTPositionY, int32(p.Y))
	f.ev(evSyn, synReport, 0)
}

func (f *frames) up() {
	f.ev(parse.EvAbs, parse.AbsMTSlot, 0)
	f.ev(parse.EvAbs, parse.AbsMTTrackingID, -1)
	if f.ts.BtnTouch {
		f.ev(parse.EvKey, parse.BtnTouch, 0)
	}
	f.ev(evSyn, synReport, 0)
}

// take returns the encoded bytes and starts afresh.
func (f *frames) take() []byte {
	b := f.b
	f.b = nil
	return b
}

// lerp is the point a fraction num/den of the way from a to b.
func lerp(a, b image.Point, num, den time.Duration) image.Point {
	if den <= 0 || num >= den {
		return b
	}
	return image.Pt(a.X+int(int64(b.X-a.X)*int64(num)/int64(den)), a.Y+int(int64(b.Y-a.Y)*int64(num)/int64(den)))
}

// sleepUntil waits until t or ctx's end; false when ctx ended.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// writeGesture writes g's strokes, pacing moves and holds in real time.
// started says whether any byte of it was written. If ctx ends while a
// contact is down, the contact is lifted before returning.
func (d *Device) writeGesture(ctx context.Context, s *touchStream, m panelMap, g gesture) (started bool, err error) {
	t := &d.touch
	f := frames{abi64: t.abi64, ts: t.ts}
	write := func(b []byte) error {
		if dl, ok := ctx.Deadline(); ok {
			_ = s.hc.nc.SetWriteDeadline(dl)
		}
		pkt := make([]byte, 5, 5+len(b))
		pkt[0] = shellStdin
		pkt[1], pkt[2], pkt[3], pkt[4] = byte(len(b)), byte(len(b)>>8), byte(len(b)>>16), byte(len(b)>>24)
		n, err := s.hc.nc.Write(append(pkt, b...))
		if n > 0 {
			started = true
			s.sent += int64(len(b))
		}
		if err != nil {
			return err
		}
		return s.receipt(ctx)
	}
	lift := func(cause error) error {
		f.up()
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = s.hc.nc.SetWriteDeadline(time.Now().Add(time.Second))
		ctx = lctx
		_ = write(f.take())
		return cause
	}
	for i, st := range g.strokes {
		if i > 0 && !sleepUntil(ctx, time.Now().Add(g.gap)) {
			return started, ctx.Err()
		}
		if !s.alive() {
			return started, io.ErrUnexpectedEOF
		}
		t.nextID = t.nextID%max(t.ts.TrackingMax, 1) + 1
		from, to := m.panel(st.from), m.panel(st.to)
		f.down(t.nextID, from)
		if st.dur <= 0 {
			if from != to {
				f.move(to)
			}
			f.up()
			if err := write(f.take()); err != nil {
				return started, err
			}
			continue
		}
		if err := write(f.take()); err != nil {
			return started, lift(err) // the contact may be down
		}
		start := time.Now()
		moving := from != to
		for step := time.Duration(1); ; step++ {
			at := min(step*swipeStep, st.dur)
			if !moving {
				at = st.dur
			}
			if !sleepUntil(ctx, start.Add(at)) {
				return started, lift(ctx.Err())
			}
			if moving {
				f.move(lerp(from, to, at, st.dur))
			}
			if at == st.dur {
				break
			}
			if err := write(f.take()); err != nil {
				return started, lift(err)
			}
		}
		f.up()
		if err := write(f.take()); err != nil {
			return started, err
		}
	}
	return started, nil
}
