package tools

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/files"
	"github.com/adb-connector/adb-connector/internal/testkit"
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

func TestScreenshotOnVirtualPhone(t *testing.T) {
	e := newToolsEnv(t, 1, nil)
	dev := e.device(0)

	t.Run("png passthrough equals exec-out screencap -p", func(t *testing.T) {
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
	dev.FailNext(1)
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
