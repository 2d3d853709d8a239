package tools

import (
	"bytes"
	"image/jpeg"
	"image/png"
	"testing"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/disintegration/imaging"
)

// BenchmarkScreenshotJPEG1024 is the screenshot agents ask for most, end
// to end on a 1080x2400 virtual phone with a timing profile, on a flat UI
// screen (launcher) and on a photo feed that compresses like a real one
// (photos, gzip -1 at about a quarter of the raw frame): the
// baseline is `adb exec-out screencap -p` (the CLI) then the host's PNG
// decode, imaging.CatmullRom to 1024 and JPEG q75, the path before raw
// captures; the other is android_screenshot {max_side 1024, jpeg, q75}
// through the tool pipeline (capture chosen per phone, file stored). The
// phone encodes a fresh PNG per capture, as a phone does. Ratios are to
// the baseline of the same run. Slow (each op is a modelled capture):
//
//	go test ./device/tools -run '^$' -bench ScreenshotJPEG1024 -benchtime 10x
func BenchmarkScreenshotJPEG1024(b *testing.B) {
	for _, bc := range []struct{ prof, scenario string }{
		{"pixel-usb", "launcher"}, {"wifi", "launcher"}, {"pixel-usb", "photos"}, {"wifi", "photos"},
	} {
		prof := bc.prof
		b.Run(prof+"/"+bc.scenario, func(b *testing.B) {
			e := newToolsEnvOpts(b, adbtest.Options{Devices: 1, Profile: prof, Scenario: bc.scenario,
				Screen: android.ScreenSpec{Width: 1080, Height: 2400, Density: 420}}, adb.Limits{}, nil)
			e.device(0).Android().SetEncodeEveryCapture(true)
			serial := e.device(0).Serial()
			args := `{"max_side":1024,"format":"jpeg","quality":75}`
			baseline := func() {
				out, err := e.adb.Adb("-s", serial, "exec-out", "screencap", "-p")
				if err != nil {
					b.Fatal(err)
				}
				img, err := png.Decode(bytes.NewReader([]byte(out)))
				if err != nil {
					b.Fatal(err)
				}
				small := imaging.Resize(img, 461, 1024, imaging.CatmullRom)
				var buf bytes.Buffer
				if err := jpeg.Encode(&buf, small, &jpeg.Options{Quality: 75}); err != nil {
					b.Fatal(err)
				}
			}
			tool := func() {
				var res ScreenshotResult
				mustOK(b, e.call(b, b.Context(), devChannel(0), "android_screenshot", args, "", nil), &res)
				if res.Width != 461 || res.Height != 1024 {
					b.Fatalf("result %+v", res)
				}
			}
			// The capture choice settles: PNG, the gzip check and the
			// raw-gzip probe, the raw probe, PNG's second sample, raw's
			// second (a stopped probe counts as two).
			for range 5 {
				tool()
			}
			var base float64
			for _, c := range []struct {
				name string
				run  func()
			}{{"baseline-exec-out-png-catmullrom", baseline}, {"android_screenshot", tool}} {
				b.Run(c.name, func(b *testing.B) {
					for b.Loop() {
						c.run()
					}
					ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
					if base == 0 {
						base = ns
					}
					b.ReportMetric(ns/base, "x-baseline")
				})
			}
			d := e.adbDevice(b, 0)
			st := d.CaptureStats()
			b.Logf("%s: capture for pixels %s; raw-gzip fetch %v (%d bytes), raw fetch %v (at least: %v), png fetch %v (at least: %v), decode %v",
				prof, st.Pixels, st.RawGzip.Fetch, st.RawGzip.Bytes, st.Raw.Fetch, st.Raw.AtLeast, st.PNG.Fetch, st.PNG.AtLeast, st.Decode)
		})
	}
}
