package devices

import (
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android/shell"
	"github.com/adb-connector/adb-connector/emulator/android/vfs"
)

// The touchscreen's event device. On a phone the adb shell user is in
// group input (AOSP adbd drops to uid 2000 with it, see shellGroups) and
// /dev/input/event* are crw-rw---- root input. Where SELinux lets it
// (Android 9 and earlier, adb root: Config.InputWritable) a shell may write input
// events to the panel's node: the kernel injects them as if the panel had
// reported them (Linux drivers/input/evdev.c evdev_write), and Android's
// InputReader turns them into touches. Here a write to the node is decoded
// and fed to a multi-touch protocol B state machine (Linux
// Documentation/input/multi-touch-protocol.rst); each finished contact
// becomes the UI action `input tap` / `input swipe` cause, at once, so a
// command run after the write sees its effect.

// longPressTimeout is how long a still contact must be held to be a long
// press: `input swipe X Y X Y D` is one from 500 ms on here, and a
// contact on the panel from the same time.
const longPressTimeout = 500 * time.Millisecond

// Linux include/uapi/linux/input-event-codes.h codes the panel decodes.
const (
	evSyn = 0x00
	evKey = 0x01
	evAbs = 0x03

	synReport   = 0x00
	synDropped  = 0x03
	btnTouch    = 0x14a
	absMTSlot   = 0x2f
	absMTPosX   = 0x35
	absMTPosY   = 0x36
	absMTTrack  = 0x39
	absMTPress  = 0x3a
	panelSlots  = 10
	maxTracking = 65535
)

// errPermissionDenied prints as bionic's strerror(EACCES) and is
// fs.ErrPermission.
type errnoText struct {
	errno syscall.Errno
	text  string
}

func (e errnoText) Error() string        { return e.text }
func (e errnoText) Is(target error) bool { return e.errno.Is(target) || target == e.errno }

var errPermissionDenied error = errnoText{syscall.EACCES, "Permission denied"}

// OpenInputNode opens an input node, /dev/uinput or /dev/uhid for the
// shell. A write open of an input node where SELinux refuses it
// (Config.InputWritable, from the SELinux policy by SDK) fails the way mksh reports a failed
// redirect ("/system/bin/sh: can't create /dev/input/event2: Permission
// denied", mksh exec.c iosetup); toybox prints its own "NODE: Permission
// denied" from the same EACCES. /dev/uinput and /dev/uhid take writes and
// ignore them (the model creates no virtual device from them).
// Reads see no events (the model has no finger of its own).
// A write waits the device's latency (model.FaultState.Latency) first, as a slow phone
// takes its time; ctx (the writing command's) ends the wait.
func (d *Devices) OpenInputNode(ctx context.Context, p string, flag int) (io.ReadWriteCloser, error) {
	if flag&(os.O_WRONLY|os.O_RDWR) == 0 || vfs.UinputNodes[p] != 0 {
		return vfs.DevNull{}, nil
	}
	if !d.cfg.InputWritable {
		return nil, &fs.PathError{Op: shell.ShellName + ": can't create", Path: p, Err: errPermissionDenied}
	}
	if p != vfs.TouchNode {
		return vfs.DevNull{}, nil // key nodes: accepted and ignored
	}
	return &evdevWriter{ctx: ctx, d: d, abi64: d.abi64()}, nil
}

// abi64 says whether the device's processes are 64-bit: struct
// input_event is then 24 bytes (a 16-byte struct timeval), else 16
// (Linux include/uapi/linux/input.h; evdev_write takes the writer's
// layout, drivers/input/input-compat.c).
func (d *Devices) abi64() bool { return strings.Contains(d.p.Props["ro.product.cpu.abi"], "64") }

// evdevWriter is an open write handle of the panel's node. Like the
// kernel it takes whole events only; a partial one waits for its rest.
type evdevWriter struct {
	ctx   context.Context
	d     *Devices
	abi64 bool
	mu    sync.Mutex
	buf   []byte
}

func (w *evdevWriter) Read([]byte) (int, error) { return 0, io.EOF }
func (w *evdevWriter) Close() error             { return nil }

func (w *evdevWriter) Write(p []byte) (int, error) {
	size := 16
	if w.abi64 {
		size = 24
	}
	w.d.p.Lock()
	lat := w.d.p.Faults.Latency
	w.d.p.Unlock()
	if !shell.SleepCtx(w.ctx, lat) {
		return 0, w.ctx.Err()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	n := len(w.buf) / size * size
	if n == 0 {
		return len(p), nil
	}
	evs := make([]inputEvent, 0, n/size)
	for off := 0; off < n; off += size {
		e := w.buf[off+size-8 : off+size]
		evs = append(evs, inputEvent{typ: binary.LittleEndian.Uint16(e), code: binary.LittleEndian.Uint16(e[2:]), value: int32(binary.LittleEndian.Uint32(e[4:]))})
	}
	w.buf = append(w.buf[:0], w.buf[n:]...)
	w.d.feedTouch(evs)
	return len(p), nil
}

// inputEvent is struct input_event without its time (the kernel stamps
// injected events itself).
type inputEvent struct {
	typ, code uint16
	value     int32
}

// mtSlot is one protocol B slot: its latest values and, while the contact
// touches, where and when it went down.
type mtSlot struct {
	tracking int32 // -1: no contact
	x, y     int32
	pressure int32
	down     bool // touching at the last SYN_REPORT
	start    time.Time
	from     image.Point // panel point at touch down
	last     image.Point
	moved    int // farthest from `from`, in panel units
}

// panelState is the panel's protocol B state, guarded by the model's lock.
type panelState struct {
	slot     int
	slots    [panelSlots]mtSlot
	btnTouch bool
	dropping bool // after SYN_DROPPED, until the next SYN_REPORT
}

func (p *panelState) reset() {
	*p = panelState{}
	for i := range p.slots {
		p.slots[i].tracking = -1
	}
}

// Touch is a gesture the panel decoded from written events: what
// InputReader would have made of one finished contact. It is logged in
// the command log (Command.Touch).
type Touch struct {
	// Kind is "tap", "long_press" or "swipe".
	Kind string
	// From and To are display points (rotation applied); equal but for
	// a swipe.
	From, To image.Point
	// Held is how long the contact touched.
	Held time.Duration
	// Node is the device node written.
	Node string
}

// feedTouch applies decoded events in order, as the kernel hands them to
// InputReader: values accumulate, SYN_REPORT commits a frame.
func (d *Devices) feedTouch(evs []inputEvent) {
	var done []Touch
	d.p.Lock()
	p := &d.panel
	for _, e := range evs {
		switch {
		case e.typ == evSyn && e.code == synDropped:
			p.dropping = true
		case e.typ == evSyn && e.code == synReport:
			if p.dropping {
				p.dropping = false
				continue
			}
			done = append(done, d.syncPanelLocked()...)
		case p.dropping:
		case e.typ == evKey && e.code == btnTouch:
			p.btnTouch = e.value != 0
		case e.typ == evAbs && e.code == absMTSlot:
			if e.value >= 0 && e.value < panelSlots {
				p.slot = int(e.value)
			}
		case e.typ == evAbs:
			s := &p.slots[p.slot]
			switch e.code {
			case absMTTrack:
				if e.value < -1 || e.value > maxTracking {
					continue
				}
				s.tracking = e.value
			case absMTPosX:
				s.x = e.value
			case absMTPosY:
				s.y = e.value
			case absMTPress:
				s.pressure = e.value
			}
		}
	}
	for _, t := range done {
		d.touchActionLocked(t)
	}
	d.p.Unlock()
	for _, t := range done {
		d.p.Log.Debug("touch", "kind", t.Kind, "held", t.Held)
		d.log(&t, "")
	}
}

// syncPanelLocked commits one frame. A contact touches while it has a
// tracking id, BTN_TOUCH is down and its pressure is positive: InputReader
// takes a contact on a panel reporting BTN_TOUCH or ABS_MT_PRESSURE without
// them for a hovering one (AOSP frameworks/native services/inputflinger
// MultiTouchInputMapper::syncTouch, TouchButtonAccumulator::isHovering).
// It returns the contacts that ended.
func (d *Devices) syncPanelLocked() []Touch {
	p := &d.panel
	now := d.p.Now()
	var ended []Touch
	for i := range p.slots {
		s := &p.slots[i]
		pt := image.Pt(int(s.x), int(s.y))
		touching := s.tracking >= 0 && p.btnTouch && s.pressure > 0
		switch {
		case touching && !s.down:
			s.down, s.start, s.from, s.last, s.moved = true, now, pt, pt, 0
		case touching:
			s.last = pt
			s.moved = max(s.moved, abs(pt.X-s.from.X), abs(pt.Y-s.from.Y))
		case s.down:
			s.down = false
			ended = append(ended, d.classifyLocked(s, now.Sub(s.start)))
		}
	}
	return ended
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// classifyLocked names a finished contact as InputReader's consumers
// would: still (within the touch slop, ViewConfiguration's 8 dp) and
// held from longPressTimeout a long press, still and shorter a tap, else
// a swipe from where it went down to where it lifted.
func (d *Devices) classifyLocked(s *mtSlot, held time.Duration) Touch {
	from, to := d.panelToDisplay(s.from), d.panelToDisplay(s.last)
	slop := 8 * max(d.p.Screen.Density, 160) / 160
	t := Touch{From: from, To: to, Held: held, Node: vfs.TouchNode}
	t.classify(max(abs(to.X-from.X), abs(to.Y-from.Y), d.panelDistance(s.moved)), slop)
	return t
}

// classify names a finished single contact that moved this far: a swipe
// beyond the slop, else a long press from longPressTimeout, else a tap
// (both where it went down).
func (t *Touch) classify(moved, slop int) {
	switch {
	case moved > slop:
		t.Kind = "swipe"
	case t.Held >= longPressTimeout:
		t.Kind, t.To = "long_press", t.From
	default:
		t.Kind, t.To = "tap", t.From
	}
}

// touchActionLocked does what `input tap` / `input swipe` do.
func (d *Devices) touchActionLocked(t Touch) {
	switch t.Kind {
	case "tap":
		d.p.TapLocked(t.From)
	case "long_press":
		d.longPressLocked(t.From)
	case "swipe":
		d.p.SwipeLocked(t.From, t.To)
	}
}

// panelToDisplay maps a panel point (the panel's natural, portrait axes:
// 0..Width-1, 0..Height-1 of the physical screen) to the display as
// InputReader does: scale to the display in its natural orientation,
// then turn with the display's rotation (AOSP TouchInputMapper
// cookPointerData: on ROTATION_90 x is the panel's y and y runs against
// the panel's x; ROTATION_180 mirrors both; ROTATION_270 is the converse
// of 90).
func (d *Devices) panelToDisplay(p image.Point) image.Point {
	ds := d.p.DisplaySize()
	natW, natH := ds.X, ds.Y
	if d.p.State.Rotation%2 == 1 {
		natW, natH = natH, natW
	}
	xr, yr := d.p.Screen.Width, d.p.Screen.Height // axis ranges (min 0)
	px := min(max(p.X, 0), xr-1)
	py := min(max(p.Y, 0), yr-1)
	sx := func(v int) int { return v * natW / xr }
	sy := func(v int) int { return v * natH / yr }
	switch d.p.State.Rotation {
	case 1:
		return image.Pt(sy(py), sx(xr-1-px))
	case 2:
		return image.Pt(sx(xr-1-px), sy(yr-1-py))
	case 3:
		return image.Pt(sy(yr-1-py), sx(px))
	}
	return image.Pt(sx(px), sy(py))
}

// panelDistance converts a distance along the panel to display pixels
// (the larger scale of the two axes).
func (d *Devices) panelDistance(n int) int {
	ds := d.p.DisplaySize()
	return n * max(ds.X, ds.Y) / max(d.p.Screen.Width, d.p.Screen.Height, 1)
}

func (t Touch) String() string {
	if t.Kind == "swipe" {
		return fmt.Sprintf("swipe %d,%d -> %d,%d in %s", t.From.X, t.From.Y, t.To.X, t.To.Y, t.Held.Round(time.Millisecond))
	}
	return fmt.Sprintf("%s %d,%d held %s", t.Kind, t.From.X, t.From.Y, t.Held.Round(time.Millisecond))
}
