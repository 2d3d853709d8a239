package adb

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"image"
	"image/png"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/emulator/adbd"
	"github.com/adb-connector/adb-connector/emulator/android"
)

// gz is data as one gzip member at level 1.
func gz(data []byte) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	zw.Write(data)
	zw.Close()
	return b.Bytes()
}

// sameImage fails unless a and b have the same pixels.
func sameImage(t *testing.T, what string, a, b image.Image) {
	t.Helper()
	if a.Bounds() != b.Bounds() {
		t.Fatalf("%s: bounds %v vs %v", what, a.Bounds(), b.Bounds())
	}
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, a1 := a.At(x, y).RGBA()
			r2, g2, b2, a2 := b.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				t.Fatalf("%s: pixel (%d,%d) %v vs %v", what, x, y, a.At(x, y), b.At(x, y))
			}
		}
	}
}

// The same screen gives the same pixels raw, raw-gzip and PNG; the
// compressed stream is a small part of the raw one: under a tenth on a
// flat UI screen, 5-30 % on a photo feed, as on real screens.
func TestScreenshotRawGzipEqualsRawAndPNG(t *testing.T) {
	t.Parallel()
	const raw = 720 * 1280 * 4
	for _, tc := range []struct {
		scenario string
		min, max int
	}{{"launcher", 1, raw / 10}, {"photos", raw / 20, raw * 3 / 10}} {
		t.Run(tc.scenario, func(t *testing.T) {
			t.Parallel()
			testRawGzipEqualsRawAndPNG(t, tc.scenario, tc.min, tc.max)
		})
	}
}

func testRawGzipEqualsRawAndPNG(t *testing.T, scenario string, minGz, maxGz int) {
	_, vd, d := captureEnv(t, adbtest.Options{Scenario: scenario})
	vd.Android().SetEncodeEveryCapture(true)
	shots := map[CaptureMode]*Screenshot{}
	for _, m := range []CaptureMode{CaptureRaw, CaptureRawGzip, CapturePNG} {
		d.SetCaptureMode(m)
		s := shoot(t, d)
		if s.Mode != m {
			t.Fatalf("pinned %s, got %s", m, s.Mode)
		}
		shots[m] = s
	}
	gzShot := shots[CaptureRawGzip]
	if !gzShot.frame.complete || gzShot.frame.n < int64(minGz) || gzShot.frame.n > int64(maxGz) {
		t.Fatalf("raw-gzip stream %d bytes (complete %v), want %d to %d", gzShot.frame.n, gzShot.frame.complete, minGz, maxGz)
	}
	pimg, err := png.Decode(bytes.NewReader(shots[CapturePNG].PNG))
	if err != nil {
		t.Fatal(err)
	}
	sameImage(t, "raw-gzip vs raw", gzShot.Image, shots[CaptureRaw].Image)
	sameImage(t, "raw-gzip vs png", gzShot.Image, pimg)
	if st := d.CaptureStats(); st.RawGzip.Fetch <= 0 || st.RawGzip.Bytes != gzShot.frame.n || st.RawGzip.Unavailable {
		t.Fatalf("stats %+v", st)
	}
	got := screencaps(vd)
	if want := []string{"screencap", "screencap | gzip -1", "screencap -p"}; !slices.Equal(got, want) {
		t.Fatalf("phone ran %q, want %q", got, want)
	}
}

// gzipLink: a 250 kB/s link, a PNG encode of 5 s/MP (4.6 s for the
// 720x1280 screen) and a free deflate. The raw frame (3.7 MB) takes at
// least 14.8 s; the deflated one (tens of KB) a few tens of ms plus the
// real deflate and inflate, which a loaded machine under -race has been
// seen to slow past a second: the margins (raw and PNG are stopped at
// twice raw-gzip's time) hold while raw-gzip stays under 2.3 s.
var gzipLink = &android.Profile{Name: "test-gzip-link", PNGPerMP: 5 * time.Second,
	Link: adbd.Link{Up: adbd.Direction{BytesPerSec: 250_000}}}

// Where the phone has gzip and its link is slow, raw-gzip is the cheapest:
// after the first PNG capture it is checked for, probed and chosen; the
// other modes' probes are stopped at twice its cost.
func TestScreenshotPicksRawGzip(t *testing.T) {
	t.Parallel()
	_, vd, d := captureEnv(t, adbtest.Options{Timing: gzipLink})
	if s := shoot(t, d); s.Mode != CapturePNG {
		t.Fatalf("first capture: %s", s.Mode)
	}
	if s := shoot(t, d); s.Mode != CaptureRawGzip {
		t.Fatalf("second capture (the raw-gzip probe): %s", s.Mode)
	}
	for range 3 { // the raw probe, PNG's second sample, raw's second: all stopped
		if s := shoot(t, d); s.Mode != CaptureRawGzip {
			t.Fatalf("capture served by %s", s.Mode)
		}
	}
	st := d.CaptureStats()
	if st.Pixels != CaptureRawGzip || st.AsPNG != CaptureRawGzip || !st.Raw.AtLeast || !st.PNG.AtLeast || st.RawGzip.Samples < 2 {
		t.Fatalf("stats %+v: want raw-gzip chosen, the others known slower", st)
	}
	var checks int
	for _, c := range vd.Android().Commands() {
		if strings.Contains(c.Line, "command -v gzip") {
			checks++
		}
	}
	if checks != 1 {
		t.Fatalf("gzip checked %d times, want once", checks)
	}
}

// A phone without gzip (Android 8) never takes the mode: one check, then
// raw and PNG as before (raw wins on this fast link); pinning raw-gzip
// there is measurement.
func TestScreenshotNoGzip(t *testing.T) {
	t.Parallel()
	_, vd, d := captureEnv(t, adbtest.Options{Timing: fastLink, NoGzip: true})
	for range 4 {
		shoot(t, d)
	}
	d.SetCaptureMode(CaptureRawGzip)
	if s := shoot(t, d); s.Mode != CaptureRaw {
		t.Fatalf("pinned raw-gzip without gzip: %s", s.Mode)
	}
	if st := d.CaptureStats(); !st.RawGzip.Unavailable || st.Pixels != CaptureRaw || st.Pinned != CaptureRawGzip {
		t.Fatalf("stats %+v", st)
	}
	var lines []string
	for _, c := range vd.Android().Commands() {
		if strings.Contains(c.Line, "gzip") {
			lines = append(lines, c.Line)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "command -v gzip") {
		t.Fatalf("phone ran %q, want one check and no compressed capture", lines)
	}
}

// gzipBadEnv is a scripted phone whose `screencap | gzip -1` writes out,
// `screencap -p` a PNG, and which has gzip.
func gzipBadEnv(t *testing.T, out []byte) *Device {
	t.Helper()
	return scriptedCaptureEnv(t, map[string][]byte{"screencap | gzip -1": out, "command -v gzip": []byte("/system/bin/gzip\n")})
}

// gzipCases are compressed captures that are not what they claim, with
// the error each gives.
var gzipCases = func() []struct {
	name string
	data []byte
	text string
} {
	pix := make([]byte, 4*3*2)
	frame := rawCapture(3, 2, 1, 16, pix)
	good := gz(frame)
	badCRC := slices.Clone(good)
	badCRC[len(badCRC)-8] ^= 0xff
	corrupt := slices.Clone(good)
	corrupt[10] = 0xff // a reserved block type
	return []struct {
		name string
		data []byte
		text string
	}{
		{"empty", nil, "no output"},
		{"not found", []byte("/system/bin/sh: gzip: inaccessible or not found\n"), "no gzip on the device"},
		{"not gzip", frame, "not a gzip stream"},
		{"bomb", gz(append(slices.Clone(frame), make([]byte, 1<<20)...)), "more than 40 bytes"},
		{"short", gz(frame[:30]), "stream ended after"},
		{"cut", good[:len(good)-6], "gzip: unexpected EOF"},
		{"bad checksum", badCRC, "gzip: gzip: invalid checksum"},
		{"corrupt", corrupt, "gzip: flate: corrupt input"},
		{"trailing", append(slices.Clone(good), 1, 2, 3), "data after the gzip stream"},
		{"two members", append(slices.Clone(good), good...), "data after the gzip stream"},
		{"too large", gz(rawCapture(1<<15, 1<<15, 1, 16, nil)), "32768x32768"},
	}
}()

// Compressed output that is not a whole, bounded raw frame is a clear
// error wrapping ErrProtocol (ErrOutputTooLarge for a header too large),
// and Screenshot serves the call from another mode.
func TestScreenshotRawGzipMalformed(t *testing.T) {
	t.Parallel()
	for _, tt := range gzipCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := readRawGzip(bufio.NewReader(bytes.NewReader(tt.data)), false)
			if !modeFailure(err) || !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("readRawGzip: %v, want a mode failure saying %q", err, tt.text)
			}
			d := gzipBadEnv(t, tt.data)
			d.SetCaptureMode(CaptureRawGzip)
			s, err := d.Screenshot(t.Context(), UsePixels)
			if err != nil || s.Mode != CapturePNG || s.Width != 720 {
				t.Fatalf("Screenshot = %+v, %v; want the PNG fallback", s, err)
			}
			st := d.CaptureStats()
			if tt.name == "not found" {
				if !st.RawGzip.Unavailable {
					t.Fatalf("stats %+v: want raw-gzip unavailable", st)
				}
				return
			}
			if st.RawGzip.Failures != 1 || st.RawGzip.Unavailable {
				t.Fatalf("stats %+v", st)
			}
		})
	}
}

// The bookkeeping of three modes with made-up costs: the gzip check, the
// probes in turn, the fallback to the next best, unavailability until a
// new transport.
func TestCapturePolicyRawGzip(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	now := time.Unix(1000, 0)
	var s captureState
	step := func(wantMode CaptureMode, wantProbe bool) {
		t.Helper()
		m, probe, _ := s.plan(UsePixels, now)
		if m != wantMode || probe != wantProbe {
			t.Fatalf("plan = %s probe %v; want %s %v (state %+v)", m, probe, wantMode, wantProbe, s)
		}
	}
	step(CapturePNG, false)
	if s.unchecked(CapturePNG) || !s.unchecked(CaptureRawGzip) {
		t.Fatal("only raw-gzip needs a check")
	}
	s.record(CapturePNG, false, 7, 300*ms, false, 500_000, now)
	step(CaptureRawGzip, true) // the caller checks gzip, then plans again
	s.probing = false
	s.checked(CaptureRawGzip, true)
	step(CaptureRawGzip, true)
	s.record(CaptureRawGzip, true, 7, 50*ms, false, 100_000, now)
	step(CaptureRaw, true) // fewest samples first
	s.record(CaptureRaw, true, 7, 110*ms, true, 0, now)
	step(CapturePNG, true)
	s.record(CapturePNG, true, 7, 120*ms, true, 0, now)
	step(CaptureRawGzip, false) // settled: the chosen mode collects its samples
	s.record(CaptureRawGzip, false, 7, 50*ms, false, 100_000, now)
	if got := s.best(UsePixels, CaptureRawGzip); got != CaptureRaw {
		t.Fatalf("next best after raw-gzip: %s", got)
	}
	// Periodic probes go to the other modes in turn.
	s.since = probeEvery
	step(CaptureRaw, true)
	s.record(CaptureRaw, true, 7, 110*ms, true, 0, now)
	s.since = probeEvery
	step(CapturePNG, true)
	s.record(CapturePNG, true, 7, 130*ms, true, 0, now)
	s.since = probeEvery
	step(CaptureRaw, true)
	s.probing = false
	// A failure hands over to the next best and is probed again.
	s.fail(CaptureRawGzip, false)
	if c := s.snapshot(); c.Pixels != CaptureRaw || c.RawGzip.Failures != 1 {
		t.Fatalf("after a raw-gzip failure: %+v", c)
	}
	// Missing gzip: never planned until a new transport.
	s.checked(CaptureRawGzip, false)
	for range 3 {
		if m, _, _ := s.plan(UsePixels, now); m == CaptureRawGzip {
			t.Fatal("raw-gzip planned without gzip")
		}
		s.probing = false
	}
	s.record(CaptureRaw, false, 8, 100*ms, false, 0, now)
	if s.modes[CaptureRawGzip].Unavailable || !s.unchecked(CaptureRawGzip) {
		t.Fatalf("after a new transport: %+v", s)
	}
	// Pinned raw-gzip where it is missing: the choice is measured.
	s = captureState{pinned: CaptureRawGzip}
	s.checked(CaptureRawGzip, false)
	step(CapturePNG, false)
}

func FuzzReadRawGzip(f *testing.F) {
	for _, tt := range gzipCases {
		f.Add(tt.data)
	}
	for _, tt := range rawCases {
		f.Add(gz(tt.data))
	}
	f.Add(gz(rawCapture(3, 2, 1, 12, make([]byte, 24))))
	f.Fuzz(func(t *testing.T, data []byte) {
		// As FuzzReadRawScreencap: skip frames declared above a
		// megapixel, read the same way, to keep the fuzzer fast.
		if zr, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
			var hdr [8]byte
			if n, _ := io.ReadFull(zr, hdr[:]); n == 8 && uint64(binary.LittleEndian.Uint32(hdr[:]))*uint64(binary.LittleEndian.Uint32(hdr[4:])) > 1<<20 {
				return
			}
		}
		fr, err := readRawGzip(bufio.NewReader(bytes.NewReader(data)), true)
		if err != nil {
			if !modeFailure(err) {
				t.Fatalf("error %v is not a mode failure", err)
			}
			return
		}
		defer fr.release()
		// A frame read is the whole stream, and what it inflates to is a
		// raw screencap read the same.
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("read a frame from a stream gzip refuses: %v", err)
		}
		zr.Multistream(false)
		inflated, err := io.ReadAll(zr)
		if err != nil || fr.n != int64(len(data)) || !fr.complete {
			t.Fatalf("frame n=%d complete=%v of %d bytes; inflate: %v", fr.n, fr.complete, len(data), err)
		}
		want, err := readRawScreencap(bytes.NewReader(inflated), false)
		if err != nil || want.img.Rect != fr.img.Rect || !bytes.Equal(want.img.Pix, fr.img.Pix) {
			t.Fatalf("raw reader on the inflated data: %v, %v", err, want.img)
		}
	})
}
