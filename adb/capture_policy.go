package adb

import (
	"errors"
	"time"
)

// The capture policy: which mode the next capture of a device uses.
//
// Costs are measured per device. A mode's fetch is the time from opening
// the stream to the frame in memory (a raw frame inflated, for raw-gzip,
// and converted to RGBA, a PNG read whole). The host's work depends on the
// use: for pixels (to resize, re-encode), a PNG is decoded; for the PNG as
// it is, a raw frame is encoded (png.BestSpeed). Both are timed when they
// happen and added to the fetch of the mode that needs them, so each use
// picks the mode with the lowest total: on a USB phone with gzip,
// raw-gzip (a flat screen deflates to a few hundred KB for a fraction of
// a PNG encode); without gzip, raw (the phone's PNG encode costs more than
// the transfer and the host's work); on Wi-Fi, raw-gzip or PNG.
//
// The first capture on a device uses PNG, which every phone supports; the
// next ones probe the other modes (raw-gzip only once `command -v gzip`
// found gzip on this connection: a phone before Android 9 has none, and
// the mode stays unavailable until it reconnects). A mode's first fetch is
// often slow (a cold cache, a first connection: seen at 100 ms where later
// ones take 1 ms), so each mode not chosen is probed until it has two
// samples, the lower of which counts; later samples are smoothed. Probes
// thereafter go to the modes not chosen, in turn, every probeEvery
// captures or probeAge. A probe is bounded: once its fetch takes longer
// than twice the chosen mode's total, it is stopped and its fetch noted as
// at least that (a raw probe over Wi-Fi costs about a PNG capture, not the
// whole 10 MB). A capture that fails as a mode (output that is not a
// screencap: ErrProtocol, ErrOutputTooLarge; a corrupt gzip stream or one
// inflating past its header's size) is taken again at once in the next
// best mode, and the failed mode is probed again at the next capture; a
// second failure in a row leaves it to the periodic probes. A new
// transport (the device reconnected, maybe on another cable or port) or a
// tracked reconnect (Client.forget) drops what was measured and checked.
//
// A fourth mode serves callers that make an image to measure (UseEncoded:
// a size and a format): the phone helper's SHOT (CaptureHelper), which
// scales and encodes on the phone, so a 1024 px JPEG crosses the link
// instead of a full frame. Its fetch is the whole request, the phone's
// encode included; it is probed and chosen like the others, for that use
// only, and a phone where the helper cannot serve it fails it as a mode.

// CaptureUse is what the caller makes of a capture, which decides the
// cheaper mode.
type CaptureUse int

const (
	// UsePixels: the frame is resized or re-encoded (Screenshot.Image, or
	// the PNG decoded).
	UsePixels CaptureUse = iota
	// UsePNG: the whole frame as PNG bytes (Screenshot.PNG: the phone's,
	// or a raw frame encoded on the host).
	UsePNG
	// UseEncoded: an image of ShotRequest's size and format, which the
	// caller makes from pixels (as UsePixels) or takes as the phone
	// helper made it (CaptureHelper, only for this use).
	UseEncoded
)

// Capture policy constants (see above).
const (
	probeEvery = 50
	probeAge   = 10 * time.Minute
	// probeSlack is added to a probe's limit: on a fast link both modes
	// take milliseconds, and scheduling noise should not stop a probe.
	probeSlack = 20 * time.Millisecond
)

// errProbeSlow ends a probe whose fetch has already cost more than its
// limit.
var errProbeSlow = errors.New("adb: capture probe slower than the mode in use")

// ModeStats is what is known of one capture mode on a device.
type ModeStats struct {
	// Fetch is the smoothed time of one capture's fetch, from opening the
	// stream to the frame in memory; zero when not measured (or dropped
	// after a failure or reconnect).
	Fetch time.Duration
	// AtLeast says Fetch is a lower bound: the probe was stopped there.
	AtLeast bool
	// Samples counts the captures measured since the last reset (a
	// stopped probe counts as conclusive: 2).
	Samples int
	// Bytes is the size of the last capture's stream.
	Bytes int64
	// Failures counts failures of the mode in a row.
	Failures int
	// Unavailable says the phone lacks the mode's tool (gzip before
	// Android 9): the mode is not tried again until the device
	// reconnects.
	Unavailable bool
}

// CaptureStats is a device's capture choice and what it rests on, for
// metrics and diagnostics.
type CaptureStats struct {
	// Pixels and AsPNG are the modes the next capture for each use takes
	// (the pinned mode, if any); CapturePNG before any measurement.
	Pixels, AsPNG CaptureMode
	// Pinned is the mode set with SetCaptureMode (CaptureAuto: none).
	Pinned CaptureMode
	// Encoded is the mode the next capture for UseEncoded takes.
	Encoded CaptureMode
	// Raw, PNG, RawGzip and Helper are the fetch measurements of each
	// mode.
	Raw, PNG, RawGzip, Helper ModeStats
	// Decode is the host's decode of a PNG, Encode its PNG encode of a
	// raw frame (smoothed; zero until measured).
	Decode, Encode time.Duration
	// Captures counts captures since the last probe.
	Captures int
	// Probed is when the last probe ran (zero: none yet).
	Probed time.Time
}

// captureState is a Device's capture policy state, guarded by capMu.
type captureState struct {
	pinned         CaptureMode
	modes          [numCaptureModes]ModeStats // by mode; [CaptureAuto] unused
	known          [numCaptureModes]bool      // the mode's tool was checked (CaptureMode.needs)
	decode, encode time.Duration
	tid            int64 // transport the measurements were made on (0: none)
	since          int
	probed         time.Time
	lastProbe      CaptureMode // the mode the last probe went to, for the periodic rotation
	probing        bool
}

func (s *captureState) stats(m CaptureMode) *ModeStats { return &s.modes[m] }

func (s *captureState) snapshot() CaptureStats {
	return CaptureStats{Pixels: s.choice(UsePixels), AsPNG: s.choice(UsePNG), Encoded: s.choice(UseEncoded), Pinned: s.pinned,
		Raw: s.modes[CaptureRaw], PNG: s.modes[CapturePNG], RawGzip: s.modes[CaptureRawGzip], Helper: s.modes[CaptureHelper],
		Decode: s.decode, Encode: s.encode, Captures: s.since, Probed: s.probed}
}

// total is mode m's cost for use: its fetch and the host's work; 0 when
// the fetch is not measured. (A compressed raw frame's inflate is part of
// its fetch: it runs as the stream is read.)
func (s *captureState) total(m CaptureMode, use CaptureUse) time.Duration {
	st := s.stats(m)
	switch {
	case st.Fetch == 0:
		return 0
	case m == CapturePNG && use != UsePNG:
		return st.Fetch + s.decode
	case m != CapturePNG && use == UsePNG:
		return st.Fetch + s.encode
	}
	return st.Fetch
}

// usable reports whether mode m may be tried: not known to be missing its
// tool.
func (s *captureState) usable(m CaptureMode) bool { return !s.modes[m].Unavailable }

// serves reports whether mode m gives what use needs: the helper's image
// is made for UseEncoded only.
func (m CaptureMode) serves(use CaptureUse) bool { return m != CaptureHelper || use == UseEncoded }

// unchecked reports whether mode m needs a tool whose presence is not yet
// known on this connection.
func (s *captureState) unchecked(m CaptureMode) bool { return m.needs() != "" && !s.known[m] }

// checked records whether mode m's tool is on the phone: a missing one
// makes the mode unavailable until the device reconnects.
func (s *captureState) checked(m CaptureMode, present bool) {
	s.known[m] = true
	if !present {
		s.modes[m] = ModeStats{Unavailable: true}
	}
}

// choice is the mode for use: the pinned one (when usable), else best.
func (s *captureState) choice(use CaptureUse) CaptureMode {
	if s.pinned != CaptureAuto && s.usable(s.pinned) && s.pinned.serves(use) {
		return s.pinned
	}
	return s.best(use, CaptureAuto)
}

// best is the usable mode other than not with the lowest measured total
// for use; with none measured, the first of the modes every phone has
// (PNG, raw) that has failed the least.
func (s *captureState) best(use CaptureUse, not CaptureMode) CaptureMode {
	var best, plain CaptureMode
	var bt time.Duration
	for _, m := range captureModes {
		if m == not || !s.usable(m) || !m.serves(use) {
			continue
		}
		if t := s.total(m, use); t > 0 && (bt == 0 || t < bt) {
			best, bt = m, t
		}
		if m.needs() == "" && m != CaptureHelper && (plain == CaptureAuto || s.modes[m].Failures < s.modes[plain].Failures) {
			plain = m
		}
	}
	if best != CaptureAuto {
		return best
	}
	return plain
}

// plan decides how the next capture for use is taken: mode, and whether
// it is a probe (then limit bounds its fetch, 0 for none).
func (s *captureState) plan(use CaptureUse, now time.Time) (mode CaptureMode, probe bool, limit time.Duration) {
	mode = s.choice(use)
	if mode == s.pinned || s.probing || !s.measured() {
		return mode, false, 0
	}
	next := s.probeTarget(mode, use, now)
	if next == CaptureAuto {
		return mode, false, 0
	}
	s.probing = true
	if t := s.total(mode, use); t > 0 {
		limit = 2*t + probeSlack
	}
	return next, true, limit
}

// measured reports whether any mode has a fetch measured.
func (s *captureState) measured() bool {
	for _, m := range captureModes {
		if s.modes[m].Fetch > 0 {
			return true
		}
	}
	return false
}

// probeTarget is the mode to probe instead of chosen, or CaptureAuto for
// none: first a usable mode short of its two samples (fewest first) that
// has not failed twice in a row; else, when a probe is due, the next mode
// after the last probed one, in turn.
func (s *captureState) probeTarget(chosen CaptureMode, use CaptureUse, now time.Time) CaptureMode {
	next := CaptureAuto
	for _, m := range captureModes {
		st := s.modes[m]
		if m == chosen || !s.usable(m) || !m.serves(use) || st.Samples >= 2 || st.Failures >= 2 {
			continue
		}
		if next == CaptureAuto || st.Samples < s.modes[next].Samples {
			next = m
		}
	}
	if next != CaptureAuto || s.since < probeEvery && now.Sub(s.probed) < probeAge {
		return next
	}
	last := 0
	for i, m := range captureModes {
		if m == s.lastProbe {
			last = i
		}
	}
	for i := 1; i <= len(captureModes); i++ {
		if m := captureModes[(last+i)%len(captureModes)]; m != chosen && s.usable(m) && m.serves(use) {
			return m
		}
	}
	return CaptureAuto
}

// record notes a capture in mode m whose fetch cost fetch (a lower bound
// when atLeast) over n bytes on transport tid.
func (s *captureState) record(m CaptureMode, probe bool, tid int64, fetch time.Duration, atLeast bool, n int64, now time.Time) {
	if probe {
		s.probing, s.probed, s.since, s.lastProbe = false, now, 0, m
	} else {
		s.since++
	}
	if tid != 0 && s.tid != 0 && tid != s.tid {
		// Reconnected: what was measured is of another link, maybe
		// another phone's build.
		s.modes, s.known = [numCaptureModes]ModeStats{}, [numCaptureModes]bool{}
	}
	if tid != 0 {
		s.tid = tid
	}
	st := s.stats(m)
	switch {
	case st.Samples == 0 || st.AtLeast || atLeast:
		st.Fetch = fetch
	case st.Samples == 1:
		st.Fetch = min(st.Fetch, fetch)
	default:
		st.Fetch = smooth(st.Fetch, fetch)
	}
	st.Samples++
	if atLeast {
		st.Samples = max(st.Samples, 2)
	}
	st.AtLeast, st.Bytes, st.Failures = atLeast, n, 0
}

// host notes the host's decode of a PNG or encode of a raw frame (zero:
// none was done).
func (s *captureState) host(decode, encode time.Duration) {
	if decode > 0 {
		s.decode = smooth(s.decode, decode)
	}
	if encode > 0 {
		s.encode = smooth(s.encode, encode)
	}
}

// smooth folds sample into the running value cur (0: none yet) a quarter
// of the way, so one slow capture does not flip the choice.
func smooth(cur, sample time.Duration) time.Duration {
	if cur == 0 {
		return sample
	}
	return cur + (sample-cur)/4
}

// fail notes a failure of mode m (of the mode: not a context end or a
// device that went away): its measurement is dropped, so another mode is
// chosen, and m is probed again at the next capture (at the periodic
// probes after two in a row).
func (s *captureState) fail(m CaptureMode, probe bool) {
	if probe {
		s.probing, s.lastProbe = false, m
	}
	st := s.stats(m)
	st.Fetch, st.AtLeast, st.Samples = 0, false, 0
	st.Failures++
}

// modeFailure reports whether err is a failure of the capture mode, which
// another mode may not have: output that is not a screencap of that kind
// (or, for CaptureRawGzip, no gzip on the phone). A context end, a busy, offline or unauthorized device fail the
// call as they are.
func modeFailure(err error) bool {
	return errors.Is(err, ErrProtocol) || errors.Is(err, ErrOutputTooLarge) || errors.Is(err, errNoGzip) || errors.Is(err, errHelperUnavailable)
}
