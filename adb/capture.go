package adb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"time"
)

// A screenshot leaves the phone one of two ways. `screencap -p` has the
// phone encode a PNG: 0.45-2.1 s of its CPU for a 1080x2400 screen, then
// a few hundred KB on the link. Raw `screencap` skips the encode and sends
// the pixels (10 MB for that screen): quick over USB, slow over Wi-Fi. So
// each device picks by measurement: a capture's cost is the time from
// opening the stream to the frame in memory (for PNG, decoded, as the
// host decodes it to resize), and the mode with the lower cost wins.
//
// The first capture on a device uses PNG, which every phone supports; the
// next probes raw, and probes thereafter go to the mode not in use every
// probeEvery captures or probeAge. A probe is bounded: once it takes
// longer than twice the mode in use, it is stopped and its cost noted as
// at least that (a raw probe over Wi-Fi costs one PNG capture, not the
// whole 10 MB). A capture that fails in its mode with a failure of the mode
// (output that is not a screencap: ErrProtocol, ErrOutputTooLarge) is
// taken again at once in the other mode, and the failed mode is probed
// again at the next capture; a second failure in a row leaves it to the
// periodic probes. A new transport (the device reconnected, maybe on
// another cable or port) drops what was measured on the old one.

// CaptureMode is how a screenshot is taken.
type CaptureMode int

const (
	// CaptureAuto picks raw or PNG per device from measurements (the
	// default).
	CaptureAuto CaptureMode = iota
	// CaptureRaw is raw `screencap`: pixels, converted on the host.
	CaptureRaw
	// CapturePNG is `screencap -p`: a PNG encoded by the phone.
	CapturePNG
)

// String returns "auto", "raw" or "png".
func (m CaptureMode) String() string {
	switch m {
	case CaptureRaw:
		return "raw"
	case CapturePNG:
		return "png"
	}
	return "auto"
}

// other is the mode that is not m.
func (m CaptureMode) other() CaptureMode {
	if m == CaptureRaw {
		return CapturePNG
	}
	return CaptureRaw
}

// Capture policy constants (see above).
const (
	probeEvery = 50
	probeAge   = 10 * time.Minute
	// probeSlack is added to a probe's limit: on a fast link both modes
	// take milliseconds, and scheduling noise should not stop a probe.
	probeSlack = 20 * time.Millisecond
)

// errProbeSlow ends a probe that has already cost more than its limit.
var errProbeSlow = errors.New("adb: capture probe slower than the mode in use")

// Screenshot is one screen capture from Device.Screenshot. Exactly one of
// PNG and Image is set, or both when the PNG was also decoded.
type Screenshot struct {
	// Mode is how this capture was taken: CaptureRaw or CapturePNG.
	Mode CaptureMode
	// PNG is the phone's PNG (CapturePNG), nil for a raw capture.
	PNG []byte
	// Image is the frame: a raw capture's pixels (*image.RGBA), or the PNG
	// when the capture decoded it to measure that cost; else nil.
	Image image.Image
	// Width and Height are the frame's size in pixels.
	Width, Height int

	frame rawFrame
}

// Release hands the frame's pixel buffer back for the next capture; Image
// must not be used after. Optional (the buffer is otherwise left to the
// GC) and idempotent; not safe for concurrent use with reads of Image.
func (s *Screenshot) Release() {
	s.frame.release()
	s.Image = nil
}

// ModeStats is what is known of one capture mode on a device.
type ModeStats struct {
	// Cost is the smoothed time of one capture, from opening the stream to
	// the frame in memory; zero when not measured (or dropped after a
	// failure or reconnect).
	Cost time.Duration
	// AtLeast says Cost is a lower bound: the probe was stopped there.
	AtLeast bool
	// Bytes is the size of the last capture's stream.
	Bytes int64
	// Failures counts failures of the mode in a row.
	Failures int
}

// CaptureStats is a device's capture choice and what it rests on, for
// metrics and diagnostics.
type CaptureStats struct {
	// Mode is the mode captures use now; CaptureAuto before the first.
	Mode CaptureMode
	// Pinned is the mode set with SetCaptureMode (CaptureAuto: none).
	Pinned CaptureMode
	// Raw and PNG are the measurements of each mode.
	Raw, PNG ModeStats
	// Captures counts captures since the last probe.
	Captures int
	// Probed is when the last probe ran (zero: none yet).
	Probed time.Time
}

// captureState is a Device's capture policy state, guarded by capMu.
type captureState struct {
	pinned   CaptureMode
	mode     CaptureMode
	raw, png ModeStats
	// pngDecode is the host's decode of the last PNG decoded to measure
	// it: a PNG capture's cost is its transfer plus this.
	pngDecode time.Duration
	tid       int64 // transport the measurements were made on (0: none)
	since     int
	probed    time.Time
	probing   bool
}

func (s *captureState) stats(m CaptureMode) *ModeStats {
	if m == CaptureRaw {
		return &s.raw
	}
	return &s.png
}

// SetCaptureMode pins the device's capture mode (CaptureRaw, CapturePNG)
// or, with CaptureAuto, returns it to measurement. A pinned mode still
// falls back to the other for a capture that fails in it. Safe for
// concurrent use.
func (d *Device) SetCaptureMode(m CaptureMode) {
	d.capMu.Lock()
	defer d.capMu.Unlock()
	d.cap.pinned = m
}

// CaptureStats returns the device's capture mode and measurements. Safe
// for concurrent use.
func (d *Device) CaptureStats() CaptureStats {
	d.capMu.Lock()
	defer d.capMu.Unlock()
	s := d.cap
	mode := s.mode
	if s.pinned != CaptureAuto {
		mode = s.pinned
	}
	return CaptureStats{Mode: mode, Pinned: s.pinned, Raw: s.raw, PNG: s.png, Captures: s.since, Probed: s.probed}
}

// plan decides how the next capture is taken: mode, and whether it is a
// probe (then limit bounds it, 0 for none).
func (s *captureState) plan(now time.Time) (mode CaptureMode, probe bool, limit time.Duration) {
	if s.pinned != CaptureAuto {
		return s.pinned, false, 0
	}
	if s.mode == CaptureAuto {
		return CapturePNG, false, 0
	}
	cur, other := s.stats(s.mode), s.stats(s.mode.other())
	due := s.since >= probeEvery || now.Sub(s.probed) >= probeAge
	if s.probing || !(due || other.Cost == 0 && other.Failures < 2) {
		return s.mode, false, 0
	}
	s.probing = true
	limit = 0
	if cur.Cost > 0 {
		limit = 2*cur.Cost + probeSlack
	}
	return s.mode.other(), true, limit
}

// record notes a capture in mode m that cost cost (a lower bound when
// atLeast) over n bytes on transport tid, and picks the cheaper mode. A
// PNG capture's cost is completed with the decode: decode when this one
// was decoded, else the last one measured.
func (s *captureState) record(m CaptureMode, probe bool, tid int64, cost, decode time.Duration, atLeast bool, n int64, now time.Time) {
	if probe {
		s.probing, s.probed, s.since = false, now, 0
	} else {
		s.since++
	}
	if tid != 0 && s.tid != 0 && tid != s.tid {
		// Reconnected: what was measured is of another link.
		s.raw, s.png = ModeStats{}, ModeStats{}
	}
	if tid != 0 {
		s.tid = tid
	}
	if m == CapturePNG && !atLeast {
		if decode > 0 {
			s.pngDecode = decode
		}
		cost += s.pngDecode
	}
	st := s.stats(m)
	if st.Cost == 0 || st.AtLeast || atLeast {
		st.Cost = cost
	} else {
		st.Cost += (cost - st.Cost) / 4 // smoothed: one slow capture does not flip the mode
	}
	st.AtLeast, st.Bytes, st.Failures = atLeast, n, 0
	s.choose(m)
}

// fail notes a failure of mode m (of the mode: not a context end or a
// device that went away).
func (s *captureState) fail(m CaptureMode, probe bool) {
	if probe {
		s.probing = false
	}
	st := s.stats(m)
	st.Cost, st.AtLeast = 0, false
	st.Failures++
	if s.mode == m || s.mode == CaptureAuto {
		s.mode = m.other()
	}
}

// choose sets the mode to the cheaper measured one; last is the mode just
// measured, kept when the other is unmeasured.
func (s *captureState) choose(last CaptureMode) {
	r, p := s.raw.Cost, s.png.Cost
	switch {
	case r > 0 && p > 0 && r < p:
		s.mode = CaptureRaw
	case r > 0 && p > 0:
		s.mode = CapturePNG
	default:
		s.mode = last
	}
}

// modeFailure reports whether err is a failure of the capture mode, which
// the other mode may not have: output that is not a screencap of that
// kind. A context end, a busy, offline or unauthorized device fail the
// call as they are.
func modeFailure(err error) bool {
	return errors.Is(err, ErrProtocol) || errors.Is(err, ErrOutputTooLarge)
}

// Screenshot captures the screen in the device's capture mode (see
// CaptureMode), falling back at once to the other mode when the first
// fails as a mode (the error is then that of the fallback, joined with the
// first). Release the result when its Image is no longer needed. Default
// timeout: DefaultScreencapTimeout, for both attempts. Counted as a read.
// Safe for concurrent use.
func (d *Device) Screenshot(ctx context.Context) (*Screenshot, error) {
	ctx, cancel := withDefaultTimeout(ctx, DefaultScreencapTimeout)
	defer cancel()
	d.capMu.Lock()
	mode, probe, limit := d.cap.plan(time.Now())
	d.capMu.Unlock()

	shot, err := d.captureMeasured(ctx, mode, probe, limit)
	if err == nil || !(modeFailure(err) || errors.Is(err, errProbeSlow)) {
		return shot, err
	}
	shot, err2 := d.captureMeasured(ctx, mode.other(), false, 0)
	if err2 != nil {
		if errors.Is(err, errProbeSlow) {
			return nil, err2
		}
		return nil, errors.Join(err2, err)
	}
	return shot, nil
}

// captureMeasured takes one capture in mode (bounded by limit when it is
// a probe) and records its cost or failure.
func (d *Device) captureMeasured(ctx context.Context, mode CaptureMode, probe bool, limit time.Duration) (*Screenshot, error) {
	d.capMu.Lock()
	// A PNG is decoded (and the decode timed) on a probe or until that
	// cost is known: the host decodes it to resize, and raw's cost
	// includes its conversion.
	decode := mode == CapturePNG && (probe || d.cap.pngDecode == 0)
	d.capMu.Unlock()
	shot, tid, cost, dec, err := d.capture(ctx, mode, decode, limit)
	d.capMu.Lock()
	defer d.capMu.Unlock()
	switch {
	case err == nil:
		d.cap.record(mode, probe, tid, cost, dec, false, int64(len(shot.PNG))+shot.frame.n, time.Now())
		return shot, nil
	case errors.Is(err, errProbeSlow):
		d.cap.record(mode, probe, 0, limit, 0, true, 0, time.Now())
	case modeFailure(err):
		d.cap.fail(mode, probe)
	case probe:
		d.cap.probing = false
	}
	return nil, err
}

// capture takes one screenshot in mode: raw into a pooled frame buffer,
// PNG decoded too when decode. cost runs from the read slot being granted
// to the frame in memory, dec is the PNG decode's part of it; tid is the
// transport's id (0 if unknown). A limit (> 0) bounds the capture from
// the read slot on: past it, the error wraps errProbeSlow.
func (d *Device) capture(ctx context.Context, mode CaptureMode, decode bool, limit time.Duration) (_ *Screenshot, tid int64, cost, dec time.Duration, err error) {
	op := "screencap " + mode.String()
	release, err := d.lim.acquire(ctx, opRead)
	if err != nil {
		return nil, 0, 0, 0, fmt.Errorf("%s: %w", op, err)
	}
	defer release()
	start := time.Now()
	cctx := ctx
	if limit > 0 {
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeoutCause(ctx, limit, errProbeSlow)
		defer cancel()
		defer func() {
			// The read may fail on the deadline a moment before cctx
			// records its cause: the time says it all.
			if err != nil && ctx.Err() == nil && (errors.Is(context.Cause(cctx), errProbeSlow) || time.Since(start) >= limit) {
				err = fmt.Errorf("%s: %w", op, errProbeSlow)
			}
		}()
	}
	shot, tid, err := d.captureStream(cctx, op, mode)
	if err != nil {
		return nil, 0, 0, 0, err
	}
	if decode && shot.PNG != nil {
		t := time.Now()
		if int64(shot.Width)*int64(shot.Height)*4 > maxRawFrame {
			return nil, 0, 0, 0, fmt.Errorf("%s %dx%d: %w", op, shot.Width, shot.Height, ErrOutputTooLarge)
		}
		if shot.Image, err = png.Decode(bytes.NewReader(shot.PNG)); err != nil {
			return nil, 0, 0, 0, fmt.Errorf("%s: %w: %v", op, ErrProtocol, err)
		}
		dec = time.Since(t)
	}
	return shot, tid, time.Since(start), dec, nil
}

// captureStream opens exec:screencap in mode and reads the frame.
func (d *Device) captureStream(ctx context.Context, op string, mode CaptureMode) (*Screenshot, int64, error) {
	cmd := "screencap -p"
	if mode == CaptureRaw {
		cmd = "screencap"
	}
	hc, err := d.open(ctx, "exec:"+cmd)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", op, err)
	}
	defer hc.Close()
	shot := &Screenshot{Mode: mode}
	if mode == CaptureRaw {
		shot.frame, err = readRawScreencap(hc.br, true)
		if err = d.rawEnd(ctx, hc, op, shot.frame.complete, err); err != nil {
			shot.Release()
			return nil, 0, err
		}
		img := shot.frame.img
		shot.Image, shot.Width, shot.Height = img, img.Rect.Dx(), img.Rect.Dy()
		return shot, hc.tid, nil
	}
	b, err := d.readExec(ctx, hc, completePNG)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", op, err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w: not a PNG (%v; %q)", op, ErrProtocol, err, clip(b))
	}
	shot.PNG, shot.Width, shot.Height = b, cfg.Width, cfg.Height
	return shot, hc.tid, nil
}

// rawEnd classifies how a raw stream ended: a read error as streamError
// does; malformed or possibly cut output is checked against the device
// list first, so a device that dropped mid-frame is ErrDeviceOffline, not
// a failure of the mode.
func (d *Device) rawEnd(ctx context.Context, hc *hostConn, op string, complete bool, err error) error {
	switch {
	case err == nil && complete:
		return nil
	case err != nil && !errors.Is(err, ErrProtocol) && !errors.Is(err, ErrOutputTooLarge):
		return d.streamError(ctx, hc, op, err)
	}
	if ctx.Err() != nil {
		return ctxError(ctx, op, ctx.Err())
	}
	if oerr := d.checkOnline(ctx, hc.tid); oerr != nil {
		return fmt.Errorf("%s: %w", op, oerr)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}
