package adb

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image"
	"image/png"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/adb/adbtest/adbserver"
	"github.com/adb-connector/adb-connector/adb/parse"
	"github.com/adb-connector/adb-connector/emulator"
	"github.com/adb-connector/adb-connector/emulator/adbd"
	"github.com/adb-connector/adb-connector/emulator/android"
)

// Timing profiles that make the capture choice certain whatever the
// machine's load: the modelled costs are lower bounds (the virtual phone
// sleeps them), an order of magnitude apart.
var (
	// fastLink: a USB-like link costing nothing, and a PNG encode on the
	// phone of 3 s per megapixel (2.8 s for the 720x1280 screen) where a
	// raw frame crosses loopback in a few ms idle, several hundred under
	// -race on a loaded machine (300 ms per megapixel was seen to lose, and
	// 1 s once, under make test's full load).
	fastLink = &android.Profile{Name: "test-fast-link", PNGPerMP: 3 * time.Second}
	// slowLink: a 250 kB/s link (a poor Wi-Fi) and a free PNG encode: the
	// 3.7 MB raw frame takes at least 15 s, a PNG of the launcher (7 kB)
	// about 30 ms; the raw probe is stopped long before, even when a
	// loaded machine (-race) makes the PNG capture a hundred times dearer.
	slowLink = &android.Profile{Name: "test-slow-link", Link: adbd.Link{Up: adbd.Direction{BytesPerSec: 250_000}}}
)

// captureEnv is one virtual phone with opts behind the real adb server.
func captureEnv(t *testing.T, opts adbtest.Options) (*adbtest.Env, *emulator.Device, *Device) {
	t.Helper()
	opts.Devices = 1
	env := adbtest.Start(t, opts)
	c := newTestClient(t, Config{NoTracking: true, Endpoints: []string{env.ServerAddr}})
	vd := env.Devices[0]
	d, err := c.Device(DeviceKey(env.ServerAddr, vd.Serial()))
	if err != nil {
		t.Fatal(err)
	}
	warm(t, env, vd)
	return env, vd, d
}

// warm has the phone render its screen and encode its PNG once (the
// virtual phone then serves them from a cache): a first capture that
// pays for that on a busy machine would skew the first measurement.
func warm(t *testing.T, env *adbtest.Env, vd *emulator.Device) {
	t.Helper()
	if _, err := env.Adb("-s", vd.Serial(), "exec-out", "screencap", "-p"); err != nil {
		t.Fatal(err)
	}
	vd.Android().ClearCommands()
}

// shoot takes a screenshot for pixels that must succeed.
func shoot(t *testing.T, d *Device) *Screenshot {
	t.Helper()
	return shootFor(t, d, UsePixels)
}

// shootFor takes a screenshot for use that must succeed.
func shootFor(t *testing.T, d *Device, use CaptureUse) *Screenshot {
	t.Helper()
	s, err := d.Screenshot(t.Context(), use)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Release)
	if s.Width != 720 || s.Height != 1280 {
		t.Fatalf("%s capture is %dx%d", s.Mode, s.Width, s.Height)
	}
	return s
}

// screencaps returns the screencap command lines the phone ran, and
// clears its log.
func screencaps(vd *emulator.Device) []string {
	var out []string
	for _, c := range vd.Android().Commands() {
		if strings.HasPrefix(c.Line, "screencap") {
			out = append(out, c.Line)
		}
	}
	vd.Android().ClearCommands()
	return out
}

func TestScreenshotPicksRawOnFastLink(t *testing.T) {
	t.Parallel()
	_, vd, d := captureEnv(t, adbtest.Options{Timing: fastLink, NoGzip: true})
	if s := shoot(t, d); s.Mode != CapturePNG || s.PNG == nil || s.Image == nil {
		t.Fatalf("first capture: %s, png %d bytes, image %v; want a decoded PNG", s.Mode, len(s.PNG), s.Image != nil)
	}
	if s := shoot(t, d); s.Mode != CaptureRaw || s.PNG != nil {
		t.Fatalf("second capture (the raw probe): %s", s.Mode)
	}
	st := d.CaptureStats()
	if st.Pixels != CaptureRaw || st.Raw.Fetch <= 0 || st.Raw.AtLeast || st.PNG.Fetch <= 0 || st.Raw.Bytes != 16+720*1280*4 {
		t.Fatalf("stats %+v: want raw chosen on measurements of both", st)
	}
	// PNG's second sample: its probe is stopped at twice raw's cost, and
	// raw serves the call.
	if s := shoot(t, d); s.Mode != CaptureRaw {
		t.Fatalf("third capture: %s", s.Mode)
	}
	if st := d.CaptureStats(); st.Pixels != CaptureRaw || !st.PNG.AtLeast || st.PNG.Samples != 2 {
		t.Fatalf("stats %+v after the PNG probe", st)
	}
	// For the PNG as it is, a raw frame comes back encoded on the host,
	// and that encode is timed (whether it beats the phone's depends on
	// this machine's load: TestCapturePolicy covers the choice).
	d.SetCaptureMode(CaptureRaw)
	s := shootFor(t, d, UsePNG)
	if s.Mode != CaptureRaw || s.PNG == nil {
		t.Fatalf("capture for PNG: %s, %d bytes", s.Mode, len(s.PNG))
	}
	if img, err := png.Decode(bytes.NewReader(s.PNG)); err != nil || img.Bounds() != s.Image.Bounds() {
		t.Fatalf("host PNG: %v", err)
	}
	if st := d.CaptureStats(); st.Encode <= 0 || st.Decode <= 0 {
		t.Fatalf("stats %+v: want both host costs measured", st)
	}
	waitScreencaps(t, vd, "screencap -p", 2)
	got := screencaps(vd)
	slices.Sort(got)
	if want := []string{"screencap", "screencap", "screencap", "screencap -p", "screencap -p"}; !slices.Equal(got, want) {
		t.Fatalf("phone ran %q, want %q", got, want)
	}
}

// waitScreencaps waits until the phone has logged n command lines line: a
// stopped probe is logged when the phone sees its stream close, maybe
// after the capture that followed.
func waitScreencaps(t *testing.T, vd *emulator.Device, line string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	seen := 0
	if _, err := vd.Android().WaitCommand(ctx, func(c android.Command) bool {
		if c.Line == line {
			seen++
		}
		return seen == n
	}); err != nil {
		t.Fatalf("phone ran %d %q, want %d: %v", seen, line, n, err)
	}
}

func TestScreenshotPicksPNGOnSlowLink(t *testing.T) {
	t.Parallel()
	_, vd, d := captureEnv(t, adbtest.Options{Timing: slowLink, NoGzip: true})
	shoot(t, d)
	// The raw probe is stopped at twice the PNG's cost; the call is
	// served by PNG.
	if s := shoot(t, d); s.Mode != CapturePNG {
		t.Fatalf("second capture: %s", s.Mode)
	}
	st := d.CaptureStats()
	if st.Pixels != CapturePNG || !st.Raw.AtLeast || st.Raw.Fetch <= st.PNG.Fetch || st.Raw.Failures != 0 {
		t.Fatalf("stats %+v: want png chosen, raw known slower", st)
	}
	if s := shootFor(t, d, UsePNG); s.Mode != CapturePNG {
		t.Fatalf("third capture (for PNG): %s", s.Mode)
	}
	if st := d.CaptureStats(); st.AsPNG != CapturePNG || st.Encode != 0 {
		t.Fatalf("stats %+v: want PNG for PNG, nothing encoded here", st)
	}
	waitScreencaps(t, vd, "screencap", 1)
	got := screencaps(vd)
	slices.Sort(got)
	if want := []string{"screencap", "screencap -p", "screencap -p", "screencap -p"}; !slices.Equal(got, want) {
		t.Fatalf("phone ran %q, want %q", got, want)
	}
}

// A raw capture that fails (here: the phone's screencap dies with no
// output) is taken again as a PNG in the same call; raw is measured again
// at the next capture and wins back.
func TestScreenshotRawFailureFallsBackToPNG(t *testing.T) {
	t.Parallel()
	_, vd, d := captureEnv(t, adbtest.Options{Timing: fastLink, NoGzip: true})
	for range 3 { // PNG, raw probe, PNG probe (stopped) served by raw
		shoot(t, d)
	}
	if m := d.CaptureStats().Pixels; m != CaptureRaw {
		t.Fatalf("mode %s before the fault", m)
	}
	waitScreencaps(t, vd, "screencap -p", 2)
	screencaps(vd)
	vd.FailNext(1)
	if s := shoot(t, d); s.Mode != CapturePNG {
		t.Fatalf("capture after a raw failure: %s", s.Mode)
	}
	if st := d.CaptureStats(); st.Pixels != CapturePNG || st.Raw.Failures != 1 || st.Raw.Fetch != 0 {
		t.Fatalf("stats after the failure %+v", st)
	}
	if s := shoot(t, d); s.Mode != CaptureRaw {
		t.Fatalf("capture after the fallback (raw measured again): %s", s.Mode)
	}
	if st := d.CaptureStats(); st.Pixels != CaptureRaw || st.Raw.Failures != 0 {
		t.Fatalf("stats after the new measurement %+v", st)
	}
	if got, want := screencaps(vd), []string{"screencap", "screencap -p", "screencap"}; !slices.Equal(got, want) {
		t.Fatalf("phone ran %q, want %q", got, want)
	}
}

// A PNG capture that fails falls back to raw, pinned mode or not.
func TestScreenshotPNGFailureFallsBackToRaw(t *testing.T) {
	t.Parallel()
	_, vd, d := captureEnv(t, adbtest.Options{NoGzip: true})
	d.SetCaptureMode(CapturePNG)
	vd.FailNext(1)
	if s := shoot(t, d); s.Mode != CaptureRaw || s.Image == nil {
		t.Fatalf("capture after a PNG failure: %s", s.Mode)
	}
	if st := d.CaptureStats(); st.Pixels != CapturePNG || st.Pinned != CapturePNG || st.PNG.Failures != 1 {
		t.Fatalf("stats %+v: want png still pinned", st)
	}
	// Both failing is an error that names both.
	vd.FailNext(2)
	_, err := d.Screenshot(t.Context(), UsePixels)
	if !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "screencap png") || !strings.Contains(err.Error(), "screencap raw") {
		t.Fatalf("both modes failing: %v", err)
	}
	if got := screencaps(vd); len(got) != 4 {
		t.Fatalf("phone ran %q, want two attempts per call", got)
	}
}

// The same screen gives the same pixels either way, with the 16-byte raw
// header (Android 9+) and the 12-byte one before.
func TestScreenshotRawEqualsPNG(t *testing.T) {
	t.Parallel()
	for _, sdk := range []int{27, 33} {
		_, vd, d := captureEnv(t, adbtest.Options{SDK: sdk})
		vd.Android().SetEncodeEveryCapture(true)
		d.SetCaptureMode(CaptureRaw)
		raw := shoot(t, d)
		d.SetCaptureMode(CapturePNG)
		pngShot := shoot(t, d)
		if raw.Mode != CaptureRaw || pngShot.Mode != CapturePNG {
			t.Fatalf("SDK %d: modes %s, %s", sdk, raw.Mode, pngShot.Mode)
		}
		if want := int64(12 + 720*1280*4); sdk >= 28 {
			want += 4
			if raw.frame.n != want || !raw.frame.complete {
				t.Fatalf("SDK %d: raw stream %d bytes (complete %v), want %d", sdk, raw.frame.n, raw.frame.complete, want)
			}
		} else if raw.frame.n != want || raw.frame.complete {
			t.Fatalf("SDK %d: raw stream %d bytes (complete %v), want %d, checked online", sdk, raw.frame.n, raw.frame.complete, want)
		}
		pimg, err := png.Decode(bytes.NewReader(pngShot.PNG))
		if err != nil {
			t.Fatal(err)
		}
		rimg := raw.Image.(*image.RGBA)
		for y := range 1280 {
			for x := range 720 {
				r1, g1, b1, a1 := pimg.At(x, y).RGBA()
				r2, g2, b2, a2 := rimg.At(x, y).RGBA()
				if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
					t.Fatalf("SDK %d: pixel (%d,%d) png %v raw %v", sdk, x, y, pimg.At(x, y), rimg.At(x, y))
				}
			}
		}
	}
}

// A reconnect drops what was measured on the old link: the Client's
// tracker forgets a device that went offline (a TCP device keeps its
// transport id across adb's reconnect), and the next capture measures
// again from the start.
func TestScreenshotRemeasuresAfterReconnect(t *testing.T) {
	t.Parallel()
	env := adbtest.Start(t, adbtest.Options{Timing: fastLink, NoGzip: true})
	c := newTestClient(t, Config{Endpoints: []string{env.ServerAddr}})
	ch := c.Watch(t.Context())
	vd := env.Devices[0]
	key := DeviceKey(env.ServerAddr, vd.Serial())
	waitAllReady(t, ch, []string{key})
	warm(t, env, vd)
	d, err := c.Device(key)
	if err != nil {
		t.Fatal(err)
	}
	shoot(t, d)
	shoot(t, d)
	if st := d.CaptureStats(); st.Pixels != CaptureRaw {
		t.Fatalf("before the reconnect: %+v", st)
	}
	vd.DropLink()
	nextEvent(t, ch, "offline", forKey(key, StateChanged, StateOffline))
	nextEvent(t, ch, "back", forKey(key, StateChanged, StateDevice))
	if st := d.CaptureStats(); st.Pixels != CapturePNG || st.Raw.Fetch != 0 || st.PNG.Fetch != 0 {
		t.Fatalf("after the reconnect: %+v", st)
	}
	screencaps(vd)
	shoot(t, d)
	shoot(t, d)
	if got := screencaps(vd); !slices.Equal(got, []string{"screencap -p", "screencap"}) {
		t.Fatalf("phone ran %q, want a new measurement", got)
	}
}

// The policy's bookkeeping, step by step with made-up costs.
func TestCapturePolicy(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	now := time.Unix(1000, 0)
	var s captureState
	s.checked(CaptureRawGzip, false) // raw and PNG first; raw-gzip below
	step := func(use CaptureUse, wantMode CaptureMode, wantProbe bool, wantLimit time.Duration) {
		t.Helper()
		m, probe, limit := s.plan(use, now)
		if m != wantMode || probe != wantProbe || limit != wantLimit {
			t.Fatalf("plan = %s probe %v limit %v; want %s %v %v (state %+v)", m, probe, limit, wantMode, wantProbe, wantLimit, s)
		}
	}
	step(UsePixels, CapturePNG, false, 0) // first: PNG
	s.record(CapturePNG, false, 7, 300*ms, false, 500_000, now)
	s.host(40*ms, 0)
	step(UsePixels, CaptureRaw, true, 700*ms) // probe raw, bounded by 2x (PNG + decode) + slack
	if _, probe, _ := s.plan(UsePixels, now); probe {
		t.Fatal("a second probe while one runs")
	}
	s.record(CaptureRaw, true, 7, 100*ms, false, 10_000_000, now)
	if c := s.snapshot(); c.Pixels != CaptureRaw || c.AsPNG != CaptureRaw {
		t.Fatalf("after the raw probe: %+v", c)
	}
	// For the PNG as it is, raw pays the host's encode: 100+250 ms is
	// more than the phone's 300 ms.
	s.host(0, 250*ms)
	if c := s.snapshot(); c.Pixels != CaptureRaw || c.AsPNG != CapturePNG {
		t.Fatalf("after a dear encode: %+v", c)
	}
	// PNG's second sample: the lower one counts.
	step(UsePixels, CapturePNG, true, 220*ms)
	s.record(CapturePNG, true, 7, 250*ms, false, 500_000, now)
	if s.modes[CapturePNG].Fetch != 250*ms || s.modes[CapturePNG].Samples != 2 {
		t.Fatalf("PNG after two samples: %+v", s.modes[CapturePNG])
	}
	for range probeEvery {
		step(UsePixels, CaptureRaw, false, 0)
		s.record(CaptureRaw, false, 7, 100*ms, false, 10_000_000, now)
	}
	step(UsePixels, CapturePNG, true, 220*ms) // probeEvery captures: PNG probed
	s.record(CapturePNG, true, 7, 200*ms, false, 500_000, now)
	if s.modes[CapturePNG].Fetch != 237500*time.Microsecond { // 250 + (200-250)/4
		t.Fatalf("smoothed PNG fetch %v", s.modes[CapturePNG].Fetch)
	}
	now = now.Add(probeAge)
	step(UsePixels, CapturePNG, true, 220*ms) // probeAge: probed again
	s.record(CapturePNG, true, 7, 220*ms, true, 0, now)
	if c := s.snapshot(); c.Pixels != CaptureRaw || !c.PNG.AtLeast || c.PNG.Fetch != 220*ms {
		t.Fatalf("after a slow PNG probe: %+v", c)
	}
	// Raw fails: PNG takes over, raw is probed at the next capture, and a
	// second failure in a row leaves it to the periodic probes.
	s.fail(CaptureRaw, false)
	if c := s.snapshot(); c.Pixels != CapturePNG {
		t.Fatalf("after a raw failure: %+v", c)
	}
	s.record(CapturePNG, false, 7, 200*ms, false, 500_000, now) // the fallback
	step(UsePixels, CaptureRaw, true, 2*(200+40)*ms+probeSlack)
	s.fail(CaptureRaw, true)
	step(UsePixels, CapturePNG, false, 0)
	if s.modes[CaptureRaw].Failures != 2 || s.probing {
		t.Fatalf("after two raw failures: %+v", s)
	}
	// A new transport drops every measurement.
	s.record(CapturePNG, false, 8, 200*ms, false, 500_000, now)
	if s.modes[CaptureRaw] != (ModeStats{}) || s.modes[CapturePNG].Fetch != 200*ms || s.tid != 8 {
		t.Fatalf("after a new transport: %+v", s)
	}
	step(UsePNG, CaptureRawGzip, true, 420*ms) // gzip to be checked on the new transport
	s.checked(CaptureRawGzip, false)
	// A pinned mode is used as is.
	s.probing = false
	s.pinned = CaptureRaw
	step(UsePixels, CaptureRaw, false, 0)
	// With nothing measured, a mode that failed more is avoided.
	s = captureState{}
	s.modes[CapturePNG].Failures = 1
	step(UsePixels, CaptureRaw, false, 0)
}

// scriptedCaptureEnv is a scripted phone behind the real adb server that
// answers each command line of out with its bytes (and exit status 0),
// `screencap -p` with a blank 720x1280 PNG unless out says otherwise, and
// anything else with nothing.
func scriptedCaptureEnv(t *testing.T, out map[string][]byte) *Device {
	t.Helper()
	srv := adbserver.Start(t)
	c := newTestClient(t, Config{NoTracking: true}, srv)
	td := startDevice(t, c, srv)
	if _, ok := out["screencap -p"]; !ok {
		var pngBuf bytes.Buffer
		if err := png.Encode(&pngBuf, image.NewRGBA(image.Rect(0, 0, 720, 1280))); err != nil {
			t.Fatal(err)
		}
		out["screencap -p"] = pngBuf.Bytes()
	}
	td.backend.setHandler(func(_ context.Context, cmdline string, stdout, _ io.Writer) int {
		stdout.Write(out[cmdline])
		return 0
	})
	d, err := c.Device(td.Key)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// rawBadEnv is a scripted phone whose `screencap` writes raw and whose
// `screencap -p` writes a small PNG.
func rawBadEnv(t *testing.T, raw []byte) *Device {
	t.Helper()
	return scriptedCaptureEnv(t, map[string][]byte{"screencap": raw})
}

// Raw output that is not what its header says is a clear error wrapping
// ErrProtocol (or ErrOutputTooLarge, refused from the header alone), and
// Screenshot serves the call from PNG.
func TestScreencapRawMalformed(t *testing.T) {
	t.Parallel()
	pix := make([]byte, 720*1280*4)
	tests := []struct {
		name string
		raw  []byte
		want error
		text string
	}{
		{"empty", nil, ErrProtocol, "want a header"},
		{"short header", []byte{1, 2, 3, 4, 5}, ErrProtocol, "want a header"},
		{"short pixels", rawCapture(720, 1280, 1, 16, pix[:1<<20]), ErrProtocol, "stream ended after"},
		{"too long", append(rawCapture(720, 1280, 1, 16, pix), 0, 0, 0, 0, 0), ErrProtocol, "more than"},
		{"unknown format", rawCapture(720, 1280, 9, 16, pix), ErrProtocol, "unknown pixel format"},
		{"too large", rawCapture(1<<15, 1<<15, 1, 16, nil), ErrOutputTooLarge, "32768x32768"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := rawBadEnv(t, tt.raw)
			_, err := d.ScreencapRaw(t.Context())
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) || !strings.HasPrefix(err.Error(), "screencap raw: ") {
				t.Fatalf("err = %v, want %v saying %q", err, tt.want, tt.text)
			}
			d.SetCaptureMode(CaptureRaw)
			s, err := d.Screenshot(t.Context(), UsePixels)
			if err != nil || s.Mode != CapturePNG || s.Width != 720 {
				t.Fatalf("Screenshot = %+v, %v; want the PNG fallback", s, err)
			}
			if st := d.CaptureStats(); st.Raw.Failures != 1 {
				t.Fatalf("stats %+v", st)
			}
		})
	}
}

func FuzzReadRawScreencap(f *testing.F) {
	for _, tt := range rawCases {
		f.Add(tt.data)
	}
	f.Add(rawCapture(3, 2, 1, 12, make([]byte, 24)))
	f.Add(rawCapture(3, 2, 1, 16, make([]byte, 25)))
	f.Add(rawCapture(3, 2, 4, 16, make([]byte, 5)))
	f.Add(rawCapture(1<<15, 1<<15, 1, 16, nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Headers declaring a frame above a megapixel are refused or read
		// the same way; skip their allocation to keep the fuzzer fast.
		if len(data) >= 8 && uint64(binary.LittleEndian.Uint32(data))*uint64(binary.LittleEndian.Uint32(data[4:])) > 1<<20 {
			return
		}
		fr, err := readRawScreencap(bytes.NewReader(data), true)
		if err != nil {
			if !errors.Is(err, ErrProtocol) && !errors.Is(err, ErrOutputTooLarge) {
				t.Fatalf("error %v wraps neither ErrProtocol nor ErrOutputTooLarge", err)
			}
			return
		}
		defer fr.release()
		// A frame read is exactly the stream, as the whole-output parser
		// sees it.
		w, h, _, hl, perr := parse.RawScreencapHeader(data)
		if perr != nil || fr.n != int64(len(data)) || fr.img.Rect.Dx() != w || fr.img.Rect.Dy() != h || fr.complete != (hl == 16) {
			t.Fatalf("read %v n=%d complete=%v; whole-output header %dx%d/%d %v", fr.img.Rect, fr.n, fr.complete, w, h, hl, perr)
		}
	})
}
