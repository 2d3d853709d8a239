package adb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/adb-connector/adb-connector/adb/parse"
)

// The touch path. `input tap` costs a stream, adbd's shell start and a
// `cmd input` call for every gesture (tens of ms from Android 12), or a
// Java VM start before Android 12 (100-250 ms on a recent phone,
// docs/phone-timings.md); writing the gesture's input events to the
// touchscreen's /dev/input node costs a hundred bytes on an open stream.
// The adb shell user is in group input and the nodes are crw-rw---- root
// input, but from Android 10 SELinux forbids the shell to write them (AOSP
// system/sepolicy "shell: remove /dev/input write access", enforced by
// CTS): the events work on Android 9 and earlier and with adb root or a
// rooted phone; on stock Android 10+ the first open fails with
// "Permission denied" and gestures go through `input`. Where it works, a
// device keeps one shell stream running `tee /dev/input/eventN` and
// writes each gesture to its stdin (shell protocol v2 stdin packets). tee, rather
// than `cat >`, copies what it wrote to the node back to stdout (toybox
// toys/posix/tee.c writes the files first): that copy is the host's
// receipt, so a gesture returns once the phone has its events (as `input`
// returns once it injected them), and only one write is ever in the pipe.
// That matters: cat and tee read 4096 bytes at a time, and evdev takes
// whole events only (drivers/input/evdev.c evdev_write), so two writes
// read together could be split inside an event. The panel
// is found once per device from `getevent -lp` (parse.FindTouchscreen).
// When there is none (or several), when the node is not writable, or when
// the stream cannot be opened again, gestures go through `input` as
// before; the decision is kept until the device goes away or reconnects.

// errTouchOff marks why the touch path is off for a device.
var errTouchOff = errors.New("touch events off")

// touchState is one device's touch path. mu is held while a gesture is
// written, while the stream opens, and by close/reset.
type touchState struct {
	mu      sync.Mutex
	closed  bool  // the Client closed: no stream opens again
	decided bool  // discovery ran since the device appeared
	off     error // why gestures go through input (nil: events)
	ts      parse.Touchscreen
	abi64   bool
	tid     int64 // transport of the latest stream
	s       *touchStream
	nextID  int
}

// touchStream is an open `tee NODE`. echo carries the byte counts of its
// stdout (the receipts); done closes when its reader has seen the stream
// end, err then says why.
type touchStream struct {
	hc     *hostConn
	cancel context.CancelFunc
	echo   chan int
	sent   int64 // bytes written, and receipted so far
	echoed int64
	done   chan struct{}
	err    error
	timer  *idleTimer // closes the stream when unused (Config.StreamIdle)
}

// receipt waits until every byte written has come back (a receipt a
// canceled wait missed is counted by the next one).
func (s *touchStream) receipt(ctx context.Context) error {
	for s.echoed < s.sent {
		select {
		case k := <-s.echo:
			s.echoed += int64(k)
		case <-s.done:
			select {
			case k := <-s.echo:
				s.echoed += int64(k)
				continue
			default:
			}
			if s.err != nil {
				return s.err
			}
			return io.ErrUnexpectedEOF
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (s *touchStream) alive() bool {
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// close ends the stream and waits for its reader.
func (s *touchStream) close() {
	s.timer.stop()
	s.cancel()
	s.hc.Close()
	<-s.done
}

// resetTouch forgets the touch decision and closes the stream: the device
// went away or left state "device"; it is checked again when it is back.
func (d *Device) resetTouch() {
	t := &d.touch
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.s != nil {
		t.s.close()
		t.s = nil
	}
	t.decided, t.off = false, nil
}

// closeTouch closes the stream for good (Client.Close).
func (d *Device) closeTouch() {
	t := &d.touch
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	if t.s != nil {
		t.s.close()
		t.s = nil
	}
}

// gesture plays g on the touchscreen, or runs the input command line when
// the touch path is off, under the device's input slot. The slot is
// refused when less than the gesture's duration is left before ctx's
// deadline. Default timeout: DefaultInputTimeout plus the gesture.
func (d *Device) gesture(ctx context.Context, g gesture, input string) error {
	need := g.need()
	ctx, cancel := withDefaultTimeout(ctx, DefaultInputTimeout+need)
	defer cancel()
	release, err := d.lim.acquireFor(ctx, opInput, need)
	if err != nil {
		return fmt.Errorf("shell: %w", err)
	}
	defer release()
	// Either path acts on the phone (ActionSeq); the geometry read before
	// it still holds for it.
	seq := d.actions.Add(1) - 1
	// The touch stream where the phone lets the shell write its panel (a
	// hundred bytes on an open stream, the cheapest); else the phone
	// helper's injection (Android 10+, where SELinux refuses the panel);
	// else `input`. Each passes on only what it did not start.
	if !d.c.cfg.NoTouchEvents {
		played, err := d.playTouch(ctx, g, seq)
		if played || err != nil {
			d.stockCall(gestureOp(g))
			return err
		}
	}
	if served, err := d.helperGesture(ctx, g); served {
		return err
	}
	d.stockCall(gestureOp(g))
	_, err = d.runChecked(ctx, input)
	return err
}

// playTouch writes g to the touchscreen. played is false (and err nil)
// when the gesture should go through input instead: no usable panel, a
// node the shell may not write, a stream that failed twice, or a point
// off the screen the panel cannot express.
func (d *Device) playTouch(ctx context.Context, g gesture, seq uint64) (played bool, err error) {
	t := &d.touch
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false, ErrClosed
	}
	if !t.decided {
		if err := d.discoverTouch(ctx); err != nil {
			return false, err
		}
	}
	if t.off != nil {
		return false, nil
	}
	m, ok, err := d.touchGeometry(ctx, seq)
	if err != nil && transient(err) {
		return false, err
	}
	if err != nil || !ok {
		return false, nil // a screen the phone does not describe: input
	}
	for _, s := range g.strokes {
		if !m.onScreen(s.from) || !m.onScreen(s.to) {
			return false, nil
		}
	}
	for attempt := 0; ; attempt++ {
		if t.s == nil || !t.s.alive() {
			if t.s != nil {
				d.c.log.Debug("touch stream ended, opening it again", "device", d.key, "err", t.s.err)
				t.s.close()
				t.s = nil
			}
			if err := d.openTouch(ctx); err != nil {
				if ctx.Err() != nil {
					return false, ctxError(ctx, "touch", ctx.Err())
				}
				if transient(err) {
					return false, fmt.Errorf("touch: %w", err) // input would fail alike
				}
				t.off = fmt.Errorf("%w: %w", errTouchOff, err)
				d.c.log.Info("touch events unavailable, using input", "device", d.key, "err", err)
				return false, nil
			}
		}
		started, err := d.writeGesture(ctx, t.s, m, g)
		if err == nil {
			t.s.timer.arm()
			return true, nil
		}
		if started || attempt > 0 || ctx.Err() != nil {
			// Part of it reached the phone: do not play it twice.
			return true, d.streamError(ctx, t.s.hc, "touch", err)
		}
		t.s.close() // nothing of it was written: once more on a new stream
		t.s = nil
	}
}

// transient reports whether err is about reaching the device (the same
// operation through input would fail too), not about the device's
// answer: such an error fails the gesture and decides nothing.
func transient(err error) bool {
	for _, s := range []error{ErrDeviceOffline, ErrUnauthorized, ErrDeviceNotFound, ErrServerUnavailable, ErrClosed, ErrTimeout, ErrBusy,
		context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// discoverTouch reads `getevent -lp` and the ABI, and decides. t.mu held.
func (d *Device) discoverTouch(ctx context.Context) error {
	t := &d.touch
	props, err := d.Properties(ctx, false)
	if err != nil && transient(err) {
		return fmt.Errorf("touch: %w", err)
	}
	res, err := d.shellScript(ctx, opRead, "getevent -lp")
	var ts parse.Touchscreen
	switch {
	case err != nil && transient(err):
		return fmt.Errorf("touch: %w", err)
	case err != nil:
		err = fmt.Errorf("getevent: %w", err)
	default:
		var devs []parse.InputDevice
		if devs, err = parse.Getevent(string(res.Stdout)); err == nil {
			ts, err = parse.FindTouchscreen(devs)
		}
	}
	t.decided, t.ts, t.off = true, ts, nil
	// Writes take the writer's struct input_event layout: cat is 64-bit on
	// a 64-bit ABI.
	t.abi64 = strings.Contains(props["ro.product.cpu.abi"], "64")
	if err != nil {
		t.off = fmt.Errorf("%w: %w", errTouchOff, err)
		d.c.log.Info("no touchscreen for touch events, using input", "device", d.key, "err", err)
	}
	return nil
}

// touchGeometry returns the display-to-panel mapping, from the geometry
// last read while it is fresh (geometryFresh, with ActionSeq seq), else
// from the last size and a fresh rotation (`dumpsys input`), else from a
// fresh ScreenInfo. ok is false
// when the phone does not say its rotation. t.mu held.
func (d *Device) touchGeometry(ctx context.Context, seq uint64) (panelMap, bool, error) {
	d.mu.Lock()
	si, at, atSeq := d.geo, d.geoAt, d.geoSeq
	d.mu.Unlock()
	if !geometryFresh(at, time.Now(), atSeq, seq) {
		rotated := false
		if !at.IsZero() {
			if parts, err := d.runParts(ctx, "dumpsys input"); err == nil {
				if r, err := parse.InputRotation(parts[0]); err == nil {
					si.Rotation, si.RotationKnown, rotated = r, true, true
					d.noteScreen(si, seq)
				}
			}
		}
		if !rotated {
			var err error
			if si, err = d.ScreenInfo(ctx); err != nil {
				return panelMap{}, false, fmt.Errorf("touch: %w", err)
			}
		}
	}
	m, ok := newPanelMap(d.touch.ts, si)
	return m, ok, nil
}

// openTouch opens `: >NODE && echo ok && tee NODE` with stdin: the
// first part opens the node for writing (mode, group and SELinux alike),
// so a node the shell may not write fails at once ("can't create NODE:
// Permission denied"); tee alone would only warn and run on. The stream lives until the Client closes or the device
// goes away; ctx bounds only the opening. t.mu held.
func (d *Device) openTouch(ctx context.Context) error {
	t := &d.touch
	node, err := QuoteArgs(t.ts.Path)
	if err != nil {
		return err
	}
	if d.c.isClosed() {
		return ErrClosed
	}
	sctx, cancel := context.WithCancel(d.c.ctx)
	stop := context.AfterFunc(ctx, cancel) // ctx ends the opening only
	hc, err := d.c.openService(sctx, d.endpoint, d.serial, "shell,v2,raw:: >"+node+" && echo ok && tee "+node)
	if err != nil {
		stop()
		cancel()
		return &DeviceError{Key: d.key, Op: "open touch stream", Err: err}
	}
	var stderr bytes.Buffer
	for ready := false; !ready; {
		id, payload, err := readShellPacket(hc.br)
		if err != nil {
			stop()
			cancel()
			hc.Close()
			return d.streamError(ctx, hc, "touch stream", err)
		}
		switch id {
		case shellStdout:
			ready = bytes.Equal(payload, []byte("ok\n"))
		case shellStderr:
			stderr.Write(payload)
		case shellExit:
			stop()
			cancel()
			hc.Close()
			code := 0
			if len(payload) > 0 {
				code = int(payload[0])
			}
			return &ExitError{Code: code, Stderr: stderr.Bytes()}
		}
	}
	if !stop() {
		cancel()
		hc.Close()
		return ctxError(ctx, "touch stream", ctx.Err())
	}
	if t.tid != 0 && hc.tid != 0 && hc.tid != t.tid {
		// The device reconnected since the panel was read: read it again
		// next time (this stream is still the node's).
		t.decided = false
	}
	t.tid = hc.tid
	s := &touchStream{hc: hc, cancel: cancel, echo: make(chan int, 64), done: make(chan struct{})}
	// Unused for the idle time, the stream closes; the next gesture opens
	// it again. A gesture holds t.mu: the stream is in use.
	s.timer = newIdleTimer(d.c.streamIdle(), func() bool {
		if !t.mu.TryLock() {
			return false
		}
		defer t.mu.Unlock()
		if t.s == s {
			s.close()
			t.s = nil
		}
		return true
	})
	s.timer.arm()
	go s.read()
	t.s = s
	return nil
}

// read consumes the stream's packets until it ends: stdout is receipts,
// stderr an error before the exit.
func (s *touchStream) read() {
	defer close(s.done)
	var stderr bytes.Buffer
	for {
		id, payload, err := readShellPacket(s.hc.br)
		if err != nil {
			s.err = err
			return
		}
		switch id {
		case shellStdout:
			select {
			case s.echo <- len(payload):
			case <-s.hc.ctx.Done():
				s.err = s.hc.ctx.Err()
				return
			}
		case shellStderr:
			if stderr.Len() < 4096 {
				stderr.Write(payload)
			}
		case shellExit:
			code := 0
			if len(payload) > 0 {
				code = int(payload[0])
			}
			s.err = &ExitError{Code: code, Stderr: stderr.Bytes()}
			return
		}
	}
}
