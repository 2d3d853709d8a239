package tools

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/emulator/adbd"
	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/files"
	"github.com/adb-connector/adb-connector/internal/testkit"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// download reads a stored screenshot back as GET /files/refs/{ref} would.
func (e *toolsEnv) download(t *testing.T, ref, channelID string) []byte {
	t.Helper()
	_, f, err := e.files.Get(t.Context(), ref, channelID)
	if err != nil {
		t.Fatalf("get %s: %v", ref, err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// adbDevice returns the adb handle of the i-th virtual phone, the one the
// tools use.
func (e *toolsEnv) adbDevice(t testing.TB, i int) *adb.Device {
	t.Helper()
	d, err := e.resolver.client.Device(adb.DeviceKey(e.adb.ServerAddr, e.device(i).Serial()))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestScreenshotOnVirtualPhone(t *testing.T) {
	e := newToolsEnv(t, 1, nil)
	dev := e.device(0)

	t.Run("png passthrough equals exec-out screencap -p", func(t *testing.T) {
		e.adbDevice(t, 0).SetCaptureMode(adb.CapturePNG)
		defer e.adbDevice(t, 0).SetCaptureMode(adb.CaptureAuto)
		var res ScreenshotResult
		mustOK(t, e.call(t, t.Context(), devChannel(0), "android_screenshot", `{}`, "", nil), &res)
		raw, err := e.adb.Adb("-s", dev.Serial(), "exec-out", "screencap", "-p")
		if err != nil {
			t.Fatal(err)
		}
		got := e.download(t, res.FileRef, devChannel(0))
		if !bytes.Equal(got, []byte(raw)) {
			t.Fatalf("stored screenshot (%d bytes) differs from adb exec-out screencap -p (%d bytes)", len(got), len(raw))
		}
		if res.MIMEType != "image/png" || res.Width != 720 || res.Height != 1280 || res.Scale != 1 ||
			res.ByteSize != int64(len(got)) || !strings.HasSuffix(res.Filename, ".png") ||
			res.DownloadURL != files.DownloadPrefix+res.FileRef || !files.ValidRef(res.FileRef) {
			t.Errorf("result = %+v", res)
		}
		if exp := time.UnixMilli(res.ExpiresAt); !exp.After(time.Now()) {
			t.Errorf("expires_at %v is not in the future", exp)
		}
	})

	// From a raw capture, the full-size PNG is encoded on the host: other
	// bytes, the same pixels.
	t.Run("png from raw has the phone's pixels", func(t *testing.T) {
		e.adbDevice(t, 0).SetCaptureMode(adb.CaptureRaw)
		defer e.adbDevice(t, 0).SetCaptureMode(adb.CaptureAuto)
		dev.Android().ClearCommands()
		var res ScreenshotResult
		mustOK(t, e.call(t, t.Context(), devChannel(0), "android_screenshot", `{}`, "", nil), &res)
		if cmds := dev.Android().Commands(); len(cmds) != 1 || cmds[0].Line != "screencap" {
			t.Fatalf("phone ran %+v, want one raw screencap", cmds)
		}
		raw, err := e.adb.Adb("-s", dev.Serial(), "exec-out", "screencap", "-p")
		if err != nil {
			t.Fatal(err)
		}
		want, err := png.Decode(strings.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		got, err := png.Decode(bytes.NewReader(e.download(t, res.FileRef, devChannel(0))))
		if err != nil {
			t.Fatal(err)
		}
		if res.Width != 720 || res.Height != 1280 || res.Scale != 1 || got.Bounds() != want.Bounds() {
			t.Fatalf("result %+v, image %v", res, got.Bounds())
		}
		for y := range 1280 {
			for x := range 720 {
				r1, g1, b1, _ := got.At(x, y).RGBA()
				r2, g2, b2, _ := want.At(x, y).RGBA()
				if r1 != r2 || g1 != g2 || b1 != b2 {
					t.Fatalf("pixel (%d,%d): %v from raw, %v from the phone's PNG", x, y, got.At(x, y), want.At(x, y))
				}
			}
		}
	})

	tests := []struct {
		name      string
		args      string
		mime      string
		w, h      int
		scale     float64
		decodeFmt string
	}{
		{"jpeg resized", `{"max_side":640,"format":"jpeg","quality":60}`, "image/jpeg", 360, 640, 2, "jpeg"},
		{"png resized", `{"max_side":320}`, "image/png", 180, 320, 4, "png"},
		{"jpeg full size", `{"format":"jpeg"}`, "image/jpeg", 720, 1280, 1, "jpeg"},
		{"max_side above screen keeps size", `{"max_side":4096}`, "image/png", 720, 1280, 1, "png"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var res ScreenshotResult
			mustOK(t, e.call(t, t.Context(), devChannel(0), "android_screenshot", tc.args, "", nil), &res)
			if res.MIMEType != tc.mime || res.Width != tc.w || res.Height != tc.h || math.Abs(res.Scale-tc.scale) > 1e-9 {
				t.Errorf("result = %+v, want %s %dx%d scale %v", res, tc.mime, tc.w, tc.h, tc.scale)
			}
			b := e.download(t, res.FileRef, devChannel(0))
			var img image.Image
			var err error
			if tc.decodeFmt == "jpeg" {
				img, err = jpeg.Decode(bytes.NewReader(b))
			} else {
				img, err = png.Decode(bytes.NewReader(b))
			}
			if err != nil {
				t.Fatalf("decode %s: %v", tc.decodeFmt, err)
			}
			if sz := img.Bounds().Size(); sz.X != tc.w || sz.Y != tc.h {
				t.Errorf("image is %v, result says %dx%d", sz, tc.w, tc.h)
			}
		})
	}

	t.Run("file bound to its channel", func(t *testing.T) {
		var res ScreenshotResult
		mustOK(t, e.call(t, t.Context(), devChannel(0), "android_screenshot", `{"max_side":64}`, "", nil), &res)
		if _, _, err := e.files.Get(t.Context(), res.FileRef, "cch_other"); err == nil {
			t.Error("another channel can read the screenshot")
		}
	})
}

// A device failure is tool_invoke_failed with a generic message; the log
// line for the operator names the device by its hint, never its serial.
func TestToolFailureIsGenericAndLogsNoSerial(t *testing.T) {
	logs := &testkit.LogBuffer{}
	e := newToolsEnv(t, 1, func(c *Config) {
		c.Logger = logs.TextLogger()
	})
	dev := e.device(0)
	dev.FailNext(2) // the capture and its fallback in the other mode
	a := e.call(t, t.Context(), devChannel(0), "android_screenshot", `{}`, "", nil)
	if a.Err == nil || a.Err.Code != "tool_invoke_failed" || a.Err.Message != msgFailed {
		t.Fatalf("ack = %+v, want tool_invoke_failed with the generic message", a)
	}
	out := logs.String()
	if !strings.Contains(out, "tool failed") {
		t.Errorf("failure not logged:\n%s", out)
	}
	if strings.Contains(out, dev.Serial()) {
		t.Errorf("log holds the full serial %q:\n%s", dev.Serial(), out)
	}
}

// The capture mode does not show in the result: a phone without gzip
// whose PNG encode is dear is served raw from its second screenshot on
// (after one PNG to measure), one on a slow link by PNG, a phone with gzip
// on a slow link by raw-gzip, with the same fields; a raw capture that
// fails is served by PNG in the same call. The same holds on a flat UI
// screen and (raw against PNG) on a photo feed that compresses like a
// real one.
func TestScreenshotCaptureModes(t *testing.T) {
	t.Parallel()
	// One scenario after the other: the choices are measured in real
	// time, and six phones capturing at once on a loaded machine blur them.
	for _, scenario := range []string{"launcher", "photos"} {
		t.Run(scenario, func(t *testing.T) { testScreenshotCaptureModes(t, scenario) })
	}
}

func testScreenshotCaptureModes(t *testing.T, scenario string) {
	for _, tc := range []struct {
		name            string
		prof            *android.Profile
		gzip            bool
		raw, png, rawGz float64 // captures that served the 3 calls
		phoneRawCalls   int     // raw screencaps the phone ran (with a stopped probe)
	}{
		// A PNG of 2.8 s on the phone against a raw frame's few hundred ms
		// (adb's capture tests say why so far apart).
		{"fast link", &android.Profile{Name: "test-fast-link", PNGPerMP: 3 * time.Second}, false, 2, 1, 0, 2},
		// 400 kB/s: the raw frame takes 9 s, the photo feed's 720 kB PNG
		// 1.8 s, so the stopped raw probe and the PNG after it fit the
		// capture's 15 s on a loaded machine (at 250 kB/s they once did not).
		{"slow link", &android.Profile{Name: "test-slow-link", Link: adbd.Link{Up: adbd.Direction{BytesPerSec: 400_000}}}, false, 0, 3, 0, 1},
		// PNG, the raw-gzip probe, the raw probe (stopped) served by raw-gzip.
		{"slow link with gzip", &android.Profile{Name: "test-gzip-link", PNGPerMP: time.Second,
			Link: adbd.Link{Up: adbd.Direction{BytesPerSec: 1_000_000}}}, true, 0, 1, 2, 1},
	} {
		if scenario == "photos" && tc.gzip {
			// On a photo frame raw-gzip's stream is a quarter of the raw
			// one, not a hundredth: the raw probe is stopped at twice
			// raw-gzip's time only when the host's real deflate and inflate
			// of the 3.7 MB frame stay well under a second, which a loaded
			// machine under -race does not promise. adb's
			// TestScreenshotRawGzipEqualsRawAndPNG covers raw-gzip there.
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newToolsEnvOpts(t, adbtest.Options{Devices: 1, Scenario: scenario, Timing: tc.prof, NoGzip: !tc.gzip}, adb.Limits{}, nil)
			// The phone renders and encodes its screen once, so the first
			// measurement is not of that (adb's capture tests say why).
			if _, err := e.adb.Adb("-s", e.device(0).Serial(), "exec-out", "screencap", "-p"); err != nil {
				t.Fatal(err)
			}
			e.device(0).Android().ClearCommands()
			for i := range 3 {
				var res ScreenshotResult
				mustOK(t, e.call(t, t.Context(), devChannel(0), "android_screenshot", `{"max_side":640,"format":"jpeg"}`, "", nil), &res)
				if res.MIMEType != "image/jpeg" || res.Width != 360 || res.Height != 640 || res.Scale != 2 {
					t.Fatalf("call %d: %+v", i, res)
				}
			}
			raw := testutil.ToFloat64(e.tools.metrics.screenshotCaptures.WithLabelValues("raw"))
			png := testutil.ToFloat64(e.tools.metrics.screenshotCaptures.WithLabelValues("png"))
			rawGz := testutil.ToFloat64(e.tools.metrics.screenshotCaptures.WithLabelValues("raw-gzip"))
			if raw != tc.raw || png != tc.png || rawGz != tc.rawGz {
				t.Fatalf("served by raw %v, png %v, raw-gzip %v; want %v, %v, %v", raw, png, rawGz, tc.raw, tc.png, tc.rawGz)
			}
			// The phone's log: a stopped raw probe is logged when the
			// phone sees its stream close, maybe after the PNG that
			// followed.
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			n := 0
			if _, err := e.device(0).Android().WaitCommand(ctx, func(c android.Command) bool {
				if c.Line == "screencap" {
					n++
				}
				return n == tc.phoneRawCalls
			}); err != nil {
				t.Fatalf("phone ran %d raw screencaps, want %d: %v", n, tc.phoneRawCalls, err)
			}
		})
	}

	t.Run("raw failure served by png", func(t *testing.T) {
		t.Parallel()
		e := newToolsEnv(t, 1, nil)
		e.adbDevice(t, 0).SetCaptureMode(adb.CaptureRaw)
		e.device(0).FailNext(1)
		var res ScreenshotResult
		mustOK(t, e.call(t, t.Context(), devChannel(0), "android_screenshot", `{}`, "", nil), &res)
		if res.Width != 720 || res.Height != 1280 || res.MIMEType != "image/png" {
			t.Fatalf("result %+v", res)
		}
		if n := testutil.ToFloat64(e.tools.metrics.screenshotCaptures.WithLabelValues("png")); n != 1 {
			t.Fatalf("png captures %v", n)
		}
	})
}
