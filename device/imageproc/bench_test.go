package imageproc

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"math"
	"testing"

	"github.com/disintegration/imaging"
	xdraw "golang.org/x/image/draw"
)

// phoneFrame draws a w x h opaque frame with what costs a resampler and a
// JPEG encoder most on a phone screen: a status bar, rows of small dark
// "glyphs" on white (sharp edges), and a photo-like area (smooth gradients
// with grain) over the lower third. Deterministic.
func phoneFrame(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	seed := uint32(1)
	rnd := func() uint32 { seed = seed*1664525 + 1013904223; return seed >> 8 }
	photoTop := h * 2 / 3
	for y := range h {
		row := img.Pix[y*img.Stride : y*img.Stride+4*w]
		for x := range w {
			r, g, b := uint8(255), uint8(255), uint8(255)
			switch {
			case y < h/30:
				r, g, b = 0x1a, 0x73, 0xe8
			case y >= photoTop:
				fx, fy := float64(x)/float64(w), float64(y-photoTop)/float64(h-photoTop)
				n := int(rnd()%24) - 12
				r = clamp8(int(120+100*math.Sin(6*fx+2*fy)) + n)
				g = clamp8(int(110+90*math.Cos(4*fy-3*fx)) + n)
				b = clamp8(int(90+80*math.Sin(9*fx*fy)) + n)
			default:
				// 40-px text lines, 18-px glyph cells with strokes of 2-3 px.
				ly, lx := y%40, x%18
				if ly >= 10 && ly < 30 && x > w/20 && x < w-w/20 && (x/18+y/40)%7 != 0 {
					glyph := uint32(x/18*31+y/40*17) * 2654435761
					if (lx < 3 && glyph&1 != 0) || (ly < 13 && glyph&2 != 0) || (lx > 12 && lx < 15 && glyph&4 != 0) ||
						(ly > 18 && ly < 21 && glyph&8 != 0) || (lx == ly%18 && glyph&16 != 0) {
						r, g, b = 0x20, 0x21, 0x24
					}
				}
			}
			p := row[4*x : 4*x+4 : 4*x+4]
			p[0], p[1], p[2], p[3] = r, g, b, 255
		}
	}
	return img
}

func clamp8(v int) uint8 { return uint8(min(max(v, 0), 255)) }

// BenchmarkEncode1080x2400JPEG1024 is the screenshot the agents ask for
// most: a 1080x2400 frame to a JPEG whose long side is 1024 (quality 80,
// android_screenshot's default). "baseline-png-imaging" is the path before
// raw captures: decode the phone's PNG, imaging.CatmullRom, JPEG. The
// others start from the frame in memory (a raw capture) and differ in the
// resampler; "box" is Encode's. Each reports its ratio to the baseline of
// the same run.
func BenchmarkEncode1080x2400JPEG1024(b *testing.B) {
	frame := phoneFrame(1080, 2400)
	var pngBuf bytes.Buffer
	if err := png.Encode(&pngBuf, frame); err != nil {
		b.Fatal(err)
	}
	src := pngBuf.Bytes()
	const side, quality = 1024, 80
	w, h := targetSize(1080, 2400, side)
	jpegOf := func(img image.Image) error {
		var buf bytes.Buffer
		return jpeg.Encode(&buf, asRGBA(img), &jpeg.Options{Quality: quality})
	}
	xdrawWith := func(k xdraw.Interpolator) func() error {
		return func() error {
			dst := image.NewRGBA(image.Rect(0, 0, w, h))
			k.Scale(dst, dst.Rect, frame, frame.Rect, xdraw.Src, nil)
			return jpegOf(dst)
		}
	}
	imagingWith := func(f imaging.ResampleFilter) func() error {
		return func() error { return jpegOf(imaging.Resize(frame, w, h, f)) }
	}
	small := boxResize(frame, w, h)
	cases := []struct {
		name string
		run  func() error
	}{
		{"baseline-png-imaging-catmullrom", func() error {
			img, err := png.Decode(bytes.NewReader(src))
			if err != nil {
				return err
			}
			return jpegOf(imaging.Resize(img, w, h, imaging.CatmullRom))
		}},
		{"png-decode-box", func() error { _, _, _, _, err := Resize(src, side, FormatJPEG, quality); return err }},
		{"box", func() error { _, _, _, _, err := Encode(frame, side, FormatJPEG, quality); return err }},
		{"box-1-core", func() error { return jpegOf(boxResizeSerial(frame, w, h)) }},
		{"imaging-lanczos", imagingWith(imaging.Lanczos)},
		{"imaging-catmullrom", imagingWith(imaging.CatmullRom)},
		{"imaging-linear", imagingWith(imaging.Linear)},
		{"imaging-box", imagingWith(imaging.Box)},
		{"xdraw-approxbilinear", xdrawWith(xdraw.ApproxBiLinear)},
		{"xdraw-bilinear", xdrawWith(xdraw.BiLinear)},
		{"xdraw-catmullrom", xdrawWith(xdraw.CatmullRom)},
		{"resize-only-box", func() error { boxResize(frame, w, h); return nil }},
		{"jpeg-only", func() error { return jpegOf(small) }},
	}
	var base float64
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if err := c.run(); err != nil {
					b.Fatal(err)
				}
			}
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			if base == 0 {
				base = ns
			}
			b.ReportMetric(ns/base, "x-baseline")
		})
	}
}

// boxResizeSerial is boxResize on one goroutine.
func boxResizeSerial(src *image.RGBA, dw, dh int) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	boxRows(src, dst, boxTaps(src.Rect.Dx(), dw), boxTaps(src.Rect.Dy(), dh), 0, dh)
	return dst
}

func BenchmarkBoxResize1080x2400To1024(b *testing.B) {
	frame := phoneFrame(1080, 2400)
	w, h := targetSize(1080, 2400, 1024)
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			boxResizeSerial(frame, w, h)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		for b.Loop() {
			boxResize(frame, w, h)
		}
	})
}

// BenchmarkPNGLevel: a full 1080x2400 frame (a raw capture with no resize,
// format png) at each zlib level of png.Encoder; Encode uses BestSpeed.
func BenchmarkPNGLevel(b *testing.B) {
	frame := phoneFrame(1080, 2400)
	var base float64
	for _, c := range []struct {
		name  string
		level png.CompressionLevel
	}{{"default", png.DefaultCompression}, {"best-speed", png.BestSpeed}, {"no-compression", png.NoCompression}} {
		b.Run(c.name, func(b *testing.B) {
			var n int
			for b.Loop() {
				var buf bytes.Buffer
				if err := (&png.Encoder{CompressionLevel: c.level}).Encode(&buf, frame); err != nil {
					b.Fatal(err)
				}
				n = buf.Len()
			}
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			if base == 0 {
				base = ns
			}
			b.ReportMetric(float64(n), "out-bytes")
			b.ReportMetric(ns/base, "x-default")
		})
	}
}
