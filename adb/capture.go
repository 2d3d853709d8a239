package adb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"time"

	"github.com/adb-connector/adb-connector/adb/helper"
)

// A screenshot leaves the phone one of three ways. `screencap -p` has the
// phone encode a PNG: 0.45-2.1 s of its CPU for a 1080x2400 screen, then
// a few hundred KB on the link. Raw `screencap` skips the encode and sends
// the pixels (10 MB for that screen): quick over USB, slow over Wi-Fi.
// `screencap | gzip -1` deflates those pixels on the phone at zlib's
// fastest level (capture_gzip.go): a UI screen shrinks to a few hundred
// KB for a fraction of a PNG encode's CPU, where the phone has gzip
// (Android 9+). Each device picks by measurement (capture_policy.go).

// CaptureMode is how a screenshot is taken.
type CaptureMode int

const (
	// CaptureAuto picks a mode per device from measurements (the
	// default).
	CaptureAuto CaptureMode = iota
	// CaptureRaw is raw `screencap`: pixels, converted on the host.
	CaptureRaw
	// CapturePNG is `screencap -p`: a PNG encoded by the phone.
	CapturePNG
	// CaptureRawGzip is `screencap | gzip -1`: pixels deflated by the
	// phone's toybox gzip (Android 9+), inflated and converted on the
	// host. Unavailable on a phone without gzip.
	CaptureRawGzip
	// CaptureHelper is the phone helper's SHOT: the screen scaled to the
	// size asked for and encoded as JPEG or PNG on the phone
	// (UiAutomation.takeScreenshot), so only that image crosses the link.
	// For UseEncoded only (the caller takes the image as it is); chosen
	// by measurement like the others.
	CaptureHelper

	numCaptureModes // bound of the arrays indexed by mode
)

// captureModes are the modes CaptureAuto chooses among, in the order
// they are tried when nothing is measured yet: PNG, which every phone
// supports and which costs the least on a slow link, first; then
// raw-gzip, seldom dearer than raw where the phone has gzip.
var captureModes = [...]CaptureMode{CapturePNG, CaptureRawGzip, CaptureRaw, CaptureHelper}

// String returns "auto", "raw", "png", "raw-gzip" or "helper" (the value
// of the metrics' mode label).
func (m CaptureMode) String() string {
	switch m {
	case CaptureRaw:
		return "raw"
	case CapturePNG:
		return "png"
	case CaptureRawGzip:
		return "raw-gzip"
	case CaptureHelper:
		return "helper"
	}
	return "auto"
}

// command is the exec-out command line of mode m.
func (m CaptureMode) command() string {
	switch m {
	case CapturePNG:
		return "screencap -p"
	case CaptureRawGzip:
		return "screencap | gzip -1"
	}
	return "screencap"
}

// needs is the tool beyond screencap that mode m runs on the phone ("":
// none), whose presence is checked once per connection.
func (m CaptureMode) needs() string {
	if m == CaptureRawGzip {
		return "gzip"
	}
	return ""
}

// Screenshot is one screen capture from Device.Screenshot: PNG, Image or
// both are set; or, for CaptureHelper, PNG or JPEG at the size asked for.
type Screenshot struct {
	// Mode is how this capture was taken: CaptureRaw, CapturePNG,
	// CaptureRawGzip or CaptureHelper.
	Mode CaptureMode
	// JPEG is the helper's JPEG (CaptureHelper with ShotRequest.Format
	// "jpeg"); else nil.
	JPEG []byte
	// ScreenWidth and ScreenHeight are the screen's size when the image
	// was scaled on the phone (CaptureHelper); else zero (the image is the
	// screen's size).
	ScreenWidth, ScreenHeight int
	// Secure: the helper saw a window that forbids capture (FLAG_SECURE),
	// shown black (CaptureHelper only).
	Secure bool
	// PNG is the frame as PNG: the phone's (CapturePNG), or for UsePNG a
	// raw frame encoded on the host; else nil.
	PNG []byte
	// Image is the frame: a raw capture's pixels (*image.RGBA, also for
	// CaptureRawGzip), or the
	// phone's PNG when the capture decoded it to time that; else nil.
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

// SetCaptureMode pins the device's capture mode (CaptureRaw, CapturePNG,
// CaptureRawGzip) or, with CaptureAuto, returns it to measurement. A
// pinned mode still falls back to the next best for a capture that fails
// in it, and CaptureRawGzip on a phone without gzip is measurement as for
// CaptureAuto. Safe for concurrent use.
func (d *Device) SetCaptureMode(m CaptureMode) {
	d.capMu.Lock()
	defer d.capMu.Unlock()
	d.cap.pinned = m
}

// CaptureStats returns the device's capture choices and measurements.
// Safe for concurrent use.
func (d *Device) CaptureStats() CaptureStats {
	d.capMu.Lock()
	defer d.capMu.Unlock()
	return d.cap.snapshot()
}

// Screenshot captures the screen in the device's capture mode for use
// (see CaptureUse, CaptureMode), falling back at once to the next best
// mode when the first fails as a mode (the error is then that of the
// fallback, joined with the first). Before a mode that needs a tool
// (gzip) is first used on a connection, the tool's presence is checked. For UsePNG the result's PNG is set: the phone's,
// or the raw frame encoded here. Release the result when its Image is no
// longer needed. Default timeout: DefaultScreencapTimeout, for both
// attempts. Counted as a read. Safe for concurrent use.
func (d *Device) Screenshot(ctx context.Context, use CaptureUse) (*Screenshot, error) {
	return d.ScreenshotFor(ctx, ShotRequest{Use: use})
}

// ShotRequest says what a caller makes of a capture: Use, and for
// UseEncoded the image it will make (longest side at most MaxSide, 0 for
// the screen's size; Format "png" or "jpeg"; Quality 1-100 for JPEG),
// which CaptureHelper produces on the phone.
type ShotRequest struct {
	Use     CaptureUse
	MaxSide int
	Format  string
	Quality int
}

// ScreenshotFor is Screenshot for req: with UseEncoded, the phone helper's
// SHOT is one of the modes measured and chosen among (a CaptureHelper
// result holds the image made as req says: PNG or JPEG, Width and Height
// its size, ScreenWidth and ScreenHeight the screen's); otherwise as
// Screenshot (a result for UseEncoded from another mode is one for
// UsePixels). Safe for concurrent use.
func (d *Device) ScreenshotFor(ctx context.Context, req ShotRequest) (*Screenshot, error) {
	ctx, cancel := withDefaultTimeout(ctx, DefaultScreencapTimeout)
	defer cancel()
	use := req.Use
	mode, probe, limit := d.planCapture(ctx, use)
	shot, err := d.captureMeasured(ctx, req, mode, probe, limit)
	if err == nil || !(modeFailure(err) || errors.Is(err, errProbeSlow)) {
		return shot, err
	}
	d.capMu.Lock()
	next := d.cap.best(use, mode)
	d.capMu.Unlock()
	shot, err2 := d.captureMeasured(ctx, req, next, false, 0)
	if err2 != nil {
		if errors.Is(err, errProbeSlow) {
			return nil, err2
		}
		return nil, errors.Join(err2, err)
	}
	return shot, nil
}

// planCapture is the policy's plan for the next capture, once the tool of
// the planned mode is known to be on the phone: when it has not been
// checked on this connection, it is (`command -v`), the answer recorded,
// and the capture planned again. A check that cannot run (a busy or
// offline phone) leaves the question open: this capture takes the chosen
// mode, with no probe.
func (d *Device) planCapture(ctx context.Context, use CaptureUse) (CaptureMode, bool, time.Duration) {
	for {
		d.capMu.Lock()
		mode, probe, limit := d.cap.plan(use, time.Now())
		unknown := d.cap.unchecked(mode)
		if unknown {
			d.cap.probing = false
		}
		d.capMu.Unlock()
		if !unknown {
			return mode, probe, limit
		}
		missing, err := d.gzipMissing(ctx)
		d.capMu.Lock()
		if err != nil {
			mode = d.cap.best(use, mode)
			d.capMu.Unlock()
			return mode, false, 0
		}
		d.cap.checked(mode, !missing)
		d.capMu.Unlock()
	}
}

// captureMeasured takes one capture in mode for use (its fetch bounded by
// limit when it is a probe) and records its costs or its failure.
func (d *Device) captureMeasured(ctx context.Context, req ShotRequest, mode CaptureMode, probe bool, limit time.Duration) (*Screenshot, error) {
	use := req.Use
	d.capMu.Lock()
	// A PNG for pixels is decoded here (and the decode timed) on a probe
	// or until that cost is known; later ones are decoded by the caller.
	decode := use != UsePNG && mode == CapturePNG && (probe || d.cap.decode == 0)
	d.capMu.Unlock()
	shot, tid, fetch, err := d.capture(ctx, req, mode, limit)
	var dec, enc time.Duration
	if err == nil {
		dec, enc, err = d.hostWork(shot, use, decode)
	}
	d.capMu.Lock()
	defer d.capMu.Unlock()
	switch {
	case err == nil:
		d.cap.record(mode, probe, tid, fetch, false, int64(len(shot.PNG))+shot.frame.n, time.Now())
		d.cap.host(dec, enc)
		return shot, nil
	case errors.Is(err, errProbeSlow):
		d.cap.record(mode, probe, 0, limit, true, 0, time.Now())
	case errors.Is(err, errNoGzip):
		if probe {
			d.cap.probing = false
		}
		d.cap.checked(mode, false)
	case modeFailure(err):
		d.cap.fail(mode, probe)
	case probe:
		d.cap.probing = false
	}
	return nil, err
}

// hostWork does and times what the host adds to a capture: the decode of
// a PNG (when decode), the PNG encode of a raw frame for UsePNG.
func (d *Device) hostWork(shot *Screenshot, use CaptureUse, decode bool) (dec, enc time.Duration, err error) {
	op := "screencap " + shot.Mode.String()
	t := time.Now()
	switch {
	case decode && shot.PNG != nil:
		if int64(shot.Width)*int64(shot.Height)*4 > maxRawFrame {
			return 0, 0, fmt.Errorf("%s %dx%d: %w", op, shot.Width, shot.Height, ErrOutputTooLarge)
		}
		if shot.Image, err = png.Decode(bytes.NewReader(shot.PNG)); err != nil {
			return 0, 0, fmt.Errorf("%s: %w: %v", op, ErrProtocol, err)
		}
		return time.Since(t), 0, nil
	case use == UsePNG && shot.PNG == nil:
		var buf bytes.Buffer
		buf.Grow(shot.Width * shot.Height)
		// BestSpeed: several times faster than the default level on a
		// screen, for a file 10-30% larger.
		if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, shot.Image); err != nil {
			shot.Release()
			return 0, 0, fmt.Errorf("%s: encode png: %w", op, err)
		}
		shot.PNG = buf.Bytes()
		return 0, time.Since(t), nil
	}
	return 0, 0, nil
}

// capture takes one screenshot in mode: raw (inflated for CaptureRawGzip)
// into a pooled frame buffer,
// PNG as the phone's bytes. fetch runs from the read slot being granted
// to the frame in memory; tid is the transport's id (0 if unknown). A
// limit (> 0) bounds the capture from the read slot on: past it, the error
// wraps errProbeSlow.
func (d *Device) capture(ctx context.Context, req ShotRequest, mode CaptureMode, limit time.Duration) (_ *Screenshot, tid int64, fetch time.Duration, err error) {
	op := "screencap " + mode.String()
	release, err := d.lim.acquire(ctx, opRead)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%s: %w", op, err)
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
	var shot *Screenshot
	if mode == CaptureHelper {
		shot, tid, err = d.helperShot(cctx, req)
	} else {
		d.stockCall(helper.OpShot)
		shot, tid, err = d.captureStream(cctx, op, mode)
	}
	if err != nil {
		return nil, 0, 0, err
	}
	return shot, tid, time.Since(start), nil
}

// captureStream opens exec:screencap in mode and reads the frame.
func (d *Device) captureStream(ctx context.Context, op string, mode CaptureMode) (*Screenshot, int64, error) {
	hc, err := d.open(ctx, "exec:"+mode.command())
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", op, err)
	}
	defer hc.Close()
	shot := &Screenshot{Mode: mode}
	if mode != CapturePNG {
		if mode == CaptureRawGzip {
			shot.frame, err = readRawGzip(hc.br, true)
		} else {
			shot.frame, err = readRawScreencap(hc.br, true)
		}
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
