package adb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/adb-connector/adb-connector/adb/helper"
)

// The resident helper (package helper has the protocol): a program of ours
// pushed to /data/local/tmp under a name carrying its content hash and run
// with app_process as the adb shell user, as scrcpy-server, uiautomator2's
// u2.jar and mobilecli's agent are. One per device, on one raw shell v2
// stream (`shell,v2,raw:`), whose stdin and stdout packets carry the frames
// byte for byte and whose stderr packets keep the helper's diagnostics off
// the framed stdout (`exec:` would merge them into it: AOSP adbd
// shell_service.cpp gives a stream without the shell protocol one socket
// for both). It is started on first use, stopped once unused for
// Config.StreamIdle (so the phone's single UiAutomation slot is free for
// other tools), after a failure retried with backoff, and stopped and
// deleted by RemoveTempFiles and Client.Close. Every operation has the
// stock path (uiautomator, input, screencap) as its fallback
// (helper_ops.go).

// HelperMinSDK is the oldest Android the helper runs on: 10 (API 29). Its
// UiAutomation connect with FLAG_DONT_SUPPRESS_ACCESSIBILITY_SERVICES and
// the hidden APIs it reaches by reflection are those of API 29 and later;
// older phones use the stock path only.
const HelperMinSDK = 29

// Helper deadlines.
const (
	// helperStartTimeout bounds a start: the push when needed, the
	// app_process start (a Java VM: 0.3-1.5 s on the phones of
	// docs/phone-timings.md) and the UiAutomation connect, until HELLO.
	helperStartTimeout = 8 * time.Second
	// helperQuitTimeout bounds the wait for QUIT's answer when stopping.
	helperQuitTimeout = time.Second
	// helperBackoffMin and helperBackoffMax bound the wait after a
	// failure before the helper is started again (doubling per failure in
	// a row); the stock path serves meanwhile.
	helperBackoffMin = time.Second
	helperBackoffMax = 5 * time.Minute
	// helperStdinChunk is the largest stdin packet written: adbd's shell
	// protocol buffer holds smaller packets than a frame may be.
	helperStdinChunk = 32 << 10
)

// Reasons the helper is not running (HelperStatus.Why, and the failure
// metrics' reason label, bounded values).
const (
	HelperWhyOff         = "off"             // SetHelper(false): the operator's policy
	HelperWhyIdle        = "not started"     // not needed since the last stop
	HelperWhySDK         = "unsupported sdk" // older than HelperMinSDK
	HelperWhyStart       = "start failed"    // no HELLO before the start deadline
	HelperWhyCrashed     = "crashed"         // its stream ended
	HelperWhyHung        = "hung"            // no answer before a request's deadline
	HelperWhyGarbage     = "protocol error"  // a frame that is not the protocol's
	HelperWhyPush        = "push failed"
	HelperWhyClosed      = "closed"
	HelperWhyUnavailable = "unavailable" // placeholder jar: nothing to run
)

// errHelperUnavailable: the helper did not run the request (off, not
// startable now, or without the feature); the stock path does it.
var errHelperUnavailable = errors.New("adb: phone helper unavailable")

// helperLost is a request the helper took and never answered well: it
// crashed, hung or sent garbage. sent says the request was written, so the
// phone may have acted on it.
type helperLost struct {
	why  string
	sent bool
	err  error
}

func (e *helperLost) Error() string { return "phone helper " + e.why + ": " + e.err.Error() }
func (e *helperLost) Unwrap() error { return e.err }

// HelperStatus is what is known of a device's helper, for doctor and the
// console. Safe to copy.
type HelperStatus struct {
	// Running: a helper answers on this device now.
	Running bool
	// Version, SDK and Features are from the last HELLO (zero before).
	Version  string
	SDK      int
	Features helper.Feature
	// Reason is HELLO's: why a feature is missing ("uiautomation busy").
	Reason string
	// Why says why it is not running (HelperWhy...; "" when running),
	// Detail the last failure's message (no typed text: the helper's
	// stderr never holds it).
	Why, Detail string
	// Failures counts failures in a row; RetryAt is when it may start
	// again (zero: at once).
	Failures int
	RetryAt  time.Time
}

// helperState is a Device's helper. mu is held by a request (one at a time
// per protocol), a start and a stop.
type helperState struct {
	mu       sync.Mutex
	closed   bool
	off      bool
	run      *helperRun
	status   HelperStatus
	sdkBad   bool  // the phone is older than HelperMinSDK (until it reconnects)
	jarTid   int64 // transport on which the jar was found or pushed (0: unknown)
	jarFresh bool  // the jar on the phone was pushed by us on jarTid
}

// helperRun is one running helper.
type helperRun struct {
	hc     *hostConn
	cancel context.CancelFunc
	frames chan helper.Frame
	done   chan struct{} // closed when the reader ends; err then says why
	err    error
	hello  helper.Hello
	nextID uint32
	timer  *idleTimer

	emu    sync.Mutex
	stderr bytes.Buffer // the last of the helper's stderr, bounded
}

func (r *helperRun) alive() bool {
	select {
	case <-r.done:
		return false
	default:
		return true
	}
}

// stderrText is the end of the helper's stderr, one line.
func (r *helperRun) stderrText() string {
	r.emu.Lock()
	defer r.emu.Unlock()
	s := strings.TrimSpace(r.stderr.String())
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// read decodes frames from the stream's stdout until it ends.
func (r *helperRun) read() {
	defer close(r.done)
	sr := &helperStdout{run: r}
	for {
		f, err := helper.ReadFrame(sr)
		if err != nil {
			if sr.exit != nil {
				err = sr.exit
			}
			r.err = err
			return
		}
		select {
		case r.frames <- f:
		case <-r.hc.ctx.Done():
			r.err = r.hc.ctx.Err()
			return
		}
	}
}

// helperStdout reads the stdout of the helper's shell v2 stream, keeping
// the end of stderr aside; the exit packet ends it (exit then holds the
// status).
type helperStdout struct {
	run  *helperRun
	buf  []byte
	exit error
}

func (s *helperStdout) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		if s.exit != nil {
			return 0, io.EOF
		}
		id, payload, err := readShellPacket(s.run.hc.br)
		if err != nil {
			return 0, err
		}
		switch id {
		case shellStdout:
			s.buf = payload
		case shellStderr:
			s.run.emu.Lock()
			if s.run.stderr.Len() > 4096 {
				s.run.stderr.Reset()
			}
			s.run.stderr.Write(payload)
			s.run.emu.Unlock()
		case shellExit:
			code := 0
			if len(payload) > 0 {
				code = int(payload[0])
			}
			s.exit = &ExitError{Code: code, Stderr: []byte(s.run.stderrText())}
		}
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

// SetHelper turns the phone helper on (the default) or off for this
// device: off stops a running one at once, and every operation takes the
// stock path. Safe for concurrent use.
func (d *Device) SetHelper(on bool) {
	h := &d.helper
	h.mu.Lock()
	defer d.helperUnlock()
	if h.off == !on {
		return
	}
	h.off = !on
	if h.off {
		ctx, cancel := context.WithTimeout(context.Background(), d.c.helperCfg.start)
		defer cancel()
		d.removeHelperLocked(ctx)
		h.status.Why = HelperWhyOff
	} else if h.status.Why == HelperWhyOff {
		h.status.Why = HelperWhyIdle
	}
}

// HelperStatus says whether the helper runs on this device, its version,
// and why not, as of the end of its last operation (a request in flight
// is not waited for). It does not start it. Safe for concurrent use.
func (d *Device) HelperStatus() HelperStatus {
	if st := d.helperSnap.Load(); st != nil {
		return *st
	}
	return HelperStatus{Why: HelperWhyIdle}
}

// helperUnlock publishes the helper's status for HelperStatus and
// releases h.mu.
func (d *Device) helperUnlock() {
	h := &d.helper
	st := h.status
	st.Running = h.run != nil && h.run.alive()
	switch {
	case h.off:
		st.Running, st.Why = false, HelperWhyOff
	case st.Running:
		st.Why = ""
	case st.Why == "":
		st.Why = HelperWhyIdle
	}
	d.helperSnap.Store(&st)
	h.mu.Unlock()
}

// StopHelper stops the device's helper if it runs (QUIT, then the stream
// closes), freeing the UiAutomation slot; the next operation starts it
// again. Safe for concurrent use.
func (d *Device) StopHelper(ctx context.Context) {
	h := &d.helper
	h.mu.Lock()
	defer d.helperUnlock()
	d.stopHelperLocked(ctx)
}

// RemoveHelper stops the device's helper and deletes its jar from the
// phone when this Client put it there or found it (the reset on release;
// RemoveTempFiles deletes it too). The next use pushes it again. Default
// timeout: DefaultShellTimeout. Safe for concurrent use.
func (d *Device) RemoveHelper(ctx context.Context) {
	ctx, cancel := withDefaultTimeout(ctx, DefaultShellTimeout)
	defer cancel()
	h := &d.helper
	h.mu.Lock()
	defer d.helperUnlock()
	d.removeHelperLocked(ctx)
}

// removeHelperLocked stops the helper and deletes a jar it knows on the
// phone. h.mu held.
func (d *Device) removeHelperLocked(ctx context.Context) {
	h := &d.helper
	d.stopHelperLocked(ctx)
	if h.jarTid == 0 {
		return
	}
	h.jarTid, h.jarFresh = 0, false
	if _, err := d.runShellV2(ctx, "rm -f "+d.c.helperCfg.path); err != nil {
		d.c.log.Debug("phone helper jar not removed", "device", d.key, "err", err)
	}
}

// forgetHelperJar notes that the jar may be gone from the phone (temp
// files removed): the next start checks again. It stops the helper,
// whose file is being deleted.
func (d *Device) forgetHelperJar(ctx context.Context) {
	h := &d.helper
	h.mu.Lock()
	defer d.helperUnlock()
	d.stopHelperLocked(ctx)
	h.jarTid, h.jarFresh = 0, false
}

// closeHelper stops the helper for good and deletes its jar (Client.Close,
// while the Client's streams still work). ctx bounds it.
func (d *Device) closeHelper(ctx context.Context) {
	h := &d.helper
	h.mu.Lock()
	defer d.helperUnlock()
	if h.closed {
		return
	}
	h.closed = true
	d.removeHelperLocked(ctx)
	h.status.Why = HelperWhyClosed
}

// resetHelper stops the helper and forgets what was learnt of the phone
// (the device went away: it may come back another phone or build).
func (d *Device) resetHelper() {
	h := &d.helper
	h.mu.Lock()
	defer d.helperUnlock()
	d.stopHelperLocked(context.Background())
	h.sdkBad, h.jarTid, h.jarFresh = false, 0, false
	h.status = HelperStatus{}
}

// stopHelperLocked asks a running helper to quit (bounded by
// helperQuitTimeout) and closes its stream. h.mu held.
func (d *Device) stopHelperLocked(ctx context.Context) {
	h := &d.helper
	r := h.run
	if r == nil {
		return
	}
	h.run = nil
	r.timer.stop()
	if r.alive() {
		// QUIT, then its exit: the UiAutomation slot is free once the
		// process is gone (a stock uiautomator may follow at once).
		qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), helperQuitTimeout)
		if _, err := d.exchange(qctx, r, helper.Quit()); err == nil {
			select {
			case <-r.done:
			case <-qctx.Done():
			}
		}
		cancel()
	}
	r.cancel()
	_ = r.hc.Close()
	<-r.done
	h.status.Why = HelperWhyIdle
}

// dropHelperLocked closes a running helper's stream at once, without
// QUIT. h.mu held.
func (d *Device) dropHelperLocked() {
	h := &d.helper
	if r := h.run; r != nil {
		h.run = nil
		r.timer.stop()
		r.cancel()
		_ = r.hc.Close()
		<-r.done
	}
}

// failHelperLocked ends a helper that failed and schedules the next start
// after a backoff. h.mu held.
func (d *Device) failHelperLocked(why string, err error) {
	h := &d.helper
	d.dropHelperLocked()
	h.status.Failures++
	wait := helperBackoffMin << min(h.status.Failures-1, 16)
	wait = min(wait, helperBackoffMax)
	h.status.RetryAt = time.Now().Add(wait)
	h.status.Why, h.status.Detail = why, err.Error()
	d.c.helperCounts.failure(why)
	d.c.log.Info("phone helper failed; using the stock path", "device", d.key, "why", why, "err", err, "retry_in", wait)
}

// helperReady returns the running helper with feature, starting it when
// needed; errHelperUnavailable when it is off, waiting out a backoff,
// cannot run on this phone, or lacks feature. ctx bounds the start
// (helperStartTimeout at most). h.mu held.
func (d *Device) helperReady(ctx context.Context, feature helper.Feature) (*helperRun, error) {
	h := &d.helper
	if h.closed || h.off || h.sdkBad || d.c.cfg.NoHelper {
		return nil, errHelperUnavailable
	}
	if r := h.run; r != nil && !r.alive() {
		// It ended while idle: a crash (an idle stop clears h.run).
		err := r.err
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		d.failHelperLocked(HelperWhyCrashed, fmt.Errorf("exited while idle: %w", err))
	}
	if h.run == nil {
		if time.Now().Before(h.status.RetryAt) {
			return nil, errHelperUnavailable
		}
		if err := d.startHelper(ctx); err != nil {
			return nil, err
		}
	}
	if h.run.hello.Features&feature != feature {
		return nil, fmt.Errorf("%w: no %s (%s)", errHelperUnavailable, feature, h.run.hello.Reason)
	}
	return h.run, nil
}

// startHelper checks the phone's SDK, puts the jar on the phone when it is
// not there, starts the helper and waits for HELLO. A failure that says
// nothing about the device (a context end, an offline phone) is returned
// as it is; any other makes the helper unavailable for the backoff. h.mu
// held.
func (d *Device) startHelper(ctx context.Context) error {
	h := &d.helper
	if d.c.helperCfg.placeholder() {
		h.sdkBad, h.status.Why = true, HelperWhyUnavailable
		return errHelperUnavailable
	}
	pctx := ctx
	ctx, cancel := context.WithTimeout(ctx, d.c.helperCfg.start)
	defer cancel()
	props, err := d.Properties(ctx, false)
	if err != nil {
		if transient(err) {
			return fmt.Errorf("helper: %w", err)
		}
		d.failHelperLocked(HelperWhyStart, err)
		return fmt.Errorf("%w: %w", errHelperUnavailable, err)
	}
	sdk, _ := strconv.Atoi(strings.TrimSpace(props["ro.build.version.sdk"]))
	if sdk < HelperMinSDK {
		h.sdkBad = true
		h.status.Why = HelperWhySDK
		h.status.SDK = sdk
		h.status.Detail = fmt.Sprintf("Android SDK %d; the helper runs on SDK %d (Android 10) and later", sdk, HelperMinSDK)
		d.c.log.Info("phone helper not supported on this Android version; using the stock path", "device", d.key, "sdk", sdk)
		return errHelperUnavailable
	}
	if err := d.ensureHelperJar(ctx); err != nil {
		if transient(err) {
			return fmt.Errorf("helper: %w", err)
		}
		d.failHelperLocked(HelperWhyPush, err)
		return fmt.Errorf("%w: %w", errHelperUnavailable, err)
	}
	d.c.helperCounts.start()
	r, err := d.launchHelper(ctx)
	if err != nil {
		switch {
		case pctx.Err() != nil:
			// The caller's deadline, not the helper's: nothing learnt.
			return fmt.Errorf("helper: %w", ctxError(pctx, "start", pctx.Err()))
		case ctx.Err() != nil:
			err = fmt.Errorf("no HELLO within %s: %w", d.c.helperCfg.start, err)
		case transient(err):
			return fmt.Errorf("helper: %w", err)
		}
		if !h.jarFresh {
			// A file of the right name and size that does not run: push
			// it again next time.
			h.jarTid = 0
		}
		d.failHelperLocked(HelperWhyStart, err)
		return fmt.Errorf("%w: %w", errHelperUnavailable, err)
	}
	h.run = r
	h.status = HelperStatus{Version: r.hello.Version, SDK: int(r.hello.SDK), Features: r.hello.Features, Reason: r.hello.Reason}
	d.c.log.Info("phone helper started", "device", d.key, "version", r.hello.Version, "features", r.hello.Features.String(), "reason", r.hello.Reason)
	return nil
}

// ensureHelperJar makes sure the phone has the jar at helper.PhonePath: a
// sync STAT of the path (one round trip, no process started) and, when
// it is absent or of another size, a push. The name carries the content's
// hash, so a file of that name and size is ours; HELLO's version, which
// ends in the hash, confirms it, and a file that does not start is pushed
// again at the next start. Checked once per transport.
func (d *Device) ensureHelperJar(ctx context.Context) error {
	h := &d.helper
	tid := d.currentTransport()
	if h.jarTid != 0 && h.jarTid == tid {
		return nil
	}
	jar, path := d.c.helperCfg.jar, d.c.helperCfg.path
	fi, err := d.Stat(ctx, path)
	switch {
	case err == nil && fi.Size == int64(len(jar)):
		h.jarTid, h.jarFresh = tid, false
		return nil
	case err != nil && !errors.Is(err, ErrNotExist):
		return err
	}
	if err := d.Push(ctx, bytes.NewReader(jar), path, 0o644); err != nil {
		return err
	}
	h.jarTid, h.jarFresh = tid, true
	d.c.log.Debug("phone helper pushed", "device", d.key, "path", path, "bytes", len(jar))
	return nil
}

// currentTransport is the transport id of the device's last stream
// (touch or helper), 0 if unknown; a new one means it reconnected.
func (d *Device) currentTransport() int64 {
	if r := d.helper.run; r != nil {
		return r.hc.tid
	}
	return d.helperTid.Load()
}

// launchHelper opens the helper's stream and reads HELLO.
func (d *Device) launchHelper(ctx context.Context) (*helperRun, error) {
	if d.c.isClosed() {
		return nil, ErrClosed
	}
	// exec: the helper replaces the shell, so closing the stream (or
	// stdin's end) ends it.
	cmd := "CLASSPATH=" + d.c.helperCfg.path + " exec app_process / " + helper.MainClass
	sctx, cancel := context.WithCancel(d.c.ctx)
	stop := context.AfterFunc(ctx, cancel) // ctx ends the start only
	hc, err := d.c.openService(sctx, d.endpoint, d.serial, "shell,v2,raw:"+cmd)
	if err != nil {
		stop()
		cancel()
		return nil, &DeviceError{Key: d.key, Op: "start helper", Err: err}
	}
	if hc.tid != 0 {
		d.helperTid.Store(hc.tid)
	}
	r := &helperRun{hc: hc, cancel: cancel, frames: make(chan helper.Frame, 1), done: make(chan struct{}), nextID: 1}
	go r.read()
	fail := func(err error) (*helperRun, error) {
		stop()
		cancel()
		_ = hc.Close()
		<-r.done
		if msg := r.stderrText(); msg != "" {
			err = fmt.Errorf("%w (stderr: %s)", err, msg)
		}
		return nil, err
	}
	select {
	case f := <-r.frames:
		hello, err := helper.ParseHello(f)
		if err != nil {
			return fail(err)
		}
		if want := d.c.helperCfg.hash16; !strings.HasSuffix(hello.Version, "+"+want) {
			return fail(fmt.Errorf("%w: helper version %q is not of this jar (+%s)", helper.ErrFrame, hello.Version, want))
		}
		r.hello = hello
	case <-r.done:
		err := r.err
		if err == nil || errors.Is(err, io.EOF) {
			err = fmt.Errorf("helper exited before HELLO: %w", io.ErrUnexpectedEOF)
		}
		return fail(err)
	case <-ctx.Done():
		return fail(ctxError(ctx, "helper hello", ctx.Err()))
	}
	if !stop() {
		return fail(ctxError(ctx, "helper hello", ctx.Err()))
	}
	h := &d.helper
	r.timer = newIdleTimer(d.c.streamIdle(), func() bool {
		if !h.mu.TryLock() {
			return false
		}
		defer d.helperUnlock()
		if h.run == r {
			d.stopHelperLocked(context.Background())
		}
		return true
	})
	r.timer.arm()
	return r, nil
}

// exchange writes one request and waits for its answer: the frame (OK or
// ERROR with the request's id), or a *helperLost. ctx bounds the wait.
func (d *Device) exchange(ctx context.Context, r *helperRun, req helper.Request) (helper.Frame, error) {
	id := r.nextID
	r.nextID++
	frame := helper.AppendFrame(nil, helper.KindRequest, id, req.Body)
	for len(frame) > 0 {
		n := min(len(frame), helperStdinChunk)
		if err := writeStdin(r.hc, string(frame[:n])); err != nil {
			// A partial frame is no request: the helper acts on whole
			// frames only. A first chunk lost is nothing sent.
			return helper.Frame{}, &helperLost{why: HelperWhyCrashed, sent: false, err: err}
		}
		frame = frame[n:]
	}
	select {
	case f := <-r.frames:
		if f.ID != id || f.Kind != helper.KindOK && f.Kind != helper.KindError {
			return helper.Frame{}, &helperLost{why: HelperWhyGarbage, sent: true,
				err: fmt.Errorf("%w: answer kind 0x%02x id %d to request %d", helper.ErrFrame, f.Kind, f.ID, id)}
		}
		return f, nil
	case <-r.done:
		err := r.err
		why := HelperWhyCrashed
		if errors.Is(err, helper.ErrFrame) {
			why = HelperWhyGarbage
		} else if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return helper.Frame{}, &helperLost{why: why, sent: true, err: err}
	case <-ctx.Done():
		return helper.Frame{}, &helperLost{why: HelperWhyHung, sent: true, err: ctxError(ctx, "helper "+req.Op.String(), ctx.Err())}
	}
}

// ProbeHelper starts the helper on the device as an operation would
// (pushing its jar when the phone lacks it), reads its HELLO, and stops it
// again: whether it runs here, its version and features, or why not. The
// jar is left on the phone for the server's own helper (this Client's
// Close does not remove it). For `doctor`. Default timeout: the helper's
// start deadline.
func (d *Device) ProbeHelper(ctx context.Context) HelperStatus {
	ctx, cancel := withDefaultTimeout(ctx, d.c.helperCfg.start)
	defer cancel()
	h := &d.helper
	h.mu.Lock()
	_, err := d.helperReady(ctx, 0)
	st := h.status
	st.Running = err == nil && h.run != nil
	d.stopHelperLocked(ctx)
	h.jarTid, h.jarFresh = 0, false
	switch {
	case st.Running:
		st.Why = ""
	case h.off:
		st.Why = HelperWhyOff
	case err != nil && !errors.Is(err, errHelperUnavailable):
		st.Why, st.Detail = HelperWhyStart, err.Error()
	}
	d.helperUnlock()
	return st
}
