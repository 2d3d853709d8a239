package imageproc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var (
	red  = color.NRGBA{R: 255, A: 255}
	blue = color.NRGBA{B: 255, A: 255}
)

// screenshot draws a w x h opaque image shaped like a phone screen: red top
// half, blue bottom half, a grid of small grey "text" marks, and encodes it
// as screencap does (NRGBA, default compression).
func screenshot(tb testing.TB, w, h int) []byte {
	tb.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := red
			if y >= h/2 {
				c = blue
			}
			if x%24 < 14 && y%48 < 8 && x > w/10 && x < w-w/10 {
				c = color.NRGBA{R: 40, G: 40, B: 40, A: 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return encodePNG(tb, img)
}

func encodePNG(tb testing.TB, img image.Image) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// withSize rewrites the IHDR of a PNG to declare w x h (fixing the CRC).
func withSize(src []byte, w, h uint32) []byte {
	b := bytes.Clone(src)
	// 8-byte signature, 4-byte length, "IHDR", then width and height.
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

func TestResize(t *testing.T) {
	t.Parallel()
	portrait := screenshot(t, 108, 240)
	landscape := screenshot(t, 240, 108)
	sliver := screenshot(t, 1, 300)
	tests := []struct {
		name        string
		src         []byte
		maxSide     int
		format      string
		quality     int
		wantW       int
		wantH       int
		wantScale   float64
		passthrough bool
	}{
		{name: "png no limit", src: portrait, format: "png", wantW: 108, wantH: 240, wantScale: 1, passthrough: true},
		{name: "png limit above size", src: portrait, maxSide: 240, format: "png", wantW: 108, wantH: 240, wantScale: 1, passthrough: true},
		{name: "default format", src: portrait, maxSide: 1000, wantW: 108, wantH: 240, wantScale: 1, passthrough: true},
		{name: "png half", src: portrait, maxSide: 120, format: "png", wantW: 54, wantH: 120, wantScale: 2},
		{name: "png landscape", src: landscape, maxSide: 100, format: "png", wantW: 100, wantH: 45, wantScale: 2.4},
		{name: "jpeg same size", src: portrait, format: "jpeg", wantW: 108, wantH: 240, wantScale: 1},
		{name: "jpeg half q50", src: portrait, maxSide: 120, format: "jpeg", quality: 50, wantW: 54, wantH: 120, wantScale: 2},
		{name: "sliver keeps 1px", src: sliver, maxSide: 100, format: "png", wantW: 1, wantH: 100, wantScale: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, w, h, scale, err := Resize(tt.src, tt.maxSide, tt.format, tt.quality)
			if err != nil {
				t.Fatal(err)
			}
			if w != tt.wantW || h != tt.wantH || math.Abs(scale-tt.wantScale) > 1e-9 {
				t.Fatalf("size %dx%d scale %v, want %dx%d scale %v", w, h, scale, tt.wantW, tt.wantH, tt.wantScale)
			}
			if tt.passthrough != (&out[0] == &tt.src[0]) {
				t.Fatalf("passthrough = %v, want %v", &out[0] == &tt.src[0], tt.passthrough)
			}
			img, format, err := image.Decode(bytes.NewReader(out))
			if err != nil {
				t.Fatal(err)
			}
			wantFormat := tt.format
			if wantFormat == "" {
				wantFormat = "png"
			}
			if format != wantFormat {
				t.Fatalf("output format %q, want %q", format, wantFormat)
			}
			if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
				t.Fatalf("decoded %v, reported %dx%d", b, w, h)
			}
			// Colours survive: top-left corner red, bottom-left blue.
			if !near(img.At(0, 0), red) || !near(img.At(0, h-1), blue) {
				t.Fatalf("corners %v, %v; want red, blue", img.At(0, 0), img.At(0, h-1))
			}
		})
	}
}

// near reports whether c is within JPEG noise of want.
func near(c color.Color, want color.NRGBA) bool {
	r, g, b, _ := c.RGBA()
	d := func(a uint32, w uint8) bool { return math.Abs(float64(a>>8)-float64(w)) < 40 }
	return d(r, want.R) && d(g, want.G) && d(b, want.B)
}

func TestResizeErrors(t *testing.T) {
	t.Parallel()
	src := screenshot(t, 20, 40)
	truncated := src[:len(src)-30]
	tests := []struct {
		name    string
		src     []byte
		maxSide int
		format  string
		quality int
		want    error
	}{
		{"gif", src, 0, "gif", 0, ErrInvalidArgument},
		{"jpg alias", src, 0, "jpg", 0, ErrInvalidArgument},
		{"quality high", src, 0, "jpeg", 101, ErrInvalidArgument},
		{"quality negative", src, 0, "jpeg", -1, ErrInvalidArgument},
		{"empty", nil, 0, "png", 0, ErrInvalidImage},
		{"not png", []byte("\xff\xd8\xff\xe0 jpeg?"), 0, "png", 0, ErrInvalidImage},
		{"truncated resize", truncated, 10, "png", 0, ErrInvalidImage},
		{"truncated jpeg", truncated, 0, "jpeg", 0, ErrInvalidImage},
		{"bomb", withSize(src, 100000, 100000), 10, "png", 0, ErrTooManyPixels},
		{"bomb passthrough", withSize(src, 100000, 100000), 0, "png", 0, ErrTooManyPixels},
		{"zero width", withSize(src, 0, 40), 0, "png", 0, ErrInvalidImage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, _, _, _, err := Resize(tt.src, tt.maxSide, tt.format, tt.quality); !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestEncodeMatchesResize: a raw frame and the PNG of the same frame give
// the same image (what lets the capture pick either).
func TestEncodeMatchesResize(t *testing.T) {
	t.Parallel()
	frame := phoneFrame(216, 480)
	src := encodePNG(t, frame)
	for _, tc := range []struct {
		maxSide int
		format  string
	}{{0, "png"}, {100, "png"}, {300, "png"}, {100, "jpeg"}, {0, "jpeg"}} {
		fromRaw, w1, h1, s1, err := Encode(frame, tc.maxSide, tc.format, 0)
		if err != nil {
			t.Fatal(err)
		}
		fromPNG, w2, h2, s2, err := Resize(src, tc.maxSide, tc.format, 0)
		if err != nil {
			t.Fatal(err)
		}
		if w1 != w2 || h1 != h2 || s1 != s2 {
			t.Fatalf("%+v: raw %dx%d scale %v, png %dx%d scale %v", tc, w1, h1, s1, w2, h2, s2)
		}
		a, _, err := image.Decode(bytes.NewReader(fromRaw))
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := image.Decode(bytes.NewReader(fromPNG))
		if err != nil {
			t.Fatal(err)
		}
		for y := range h1 {
			for x := range w1 {
				if a.At(x, y) != b.At(x, y) {
					t.Fatalf("%+v: pixel (%d,%d) %v from raw, %v from png", tc, x, y, a.At(x, y), b.At(x, y))
				}
			}
		}
	}
}

func TestEncodeErrors(t *testing.T) {
	t.Parallel()
	huge := &image.RGBA{Rect: image.Rect(0, 0, 100000, 100000)} // no pixels: refused from its bounds
	tests := []struct {
		name   string
		img    image.Image
		format string
		q      int
		want   error
	}{
		{"empty", image.NewRGBA(image.Rect(0, 0, 0, 5)), "png", 0, ErrInvalidImage},
		{"too many pixels", huge, "jpeg", 0, ErrTooManyPixels},
		{"format", phoneFrame(4, 4), "webp", 0, ErrInvalidArgument},
		{"quality", phoneFrame(4, 4), "jpeg", 101, ErrInvalidArgument},
	}
	for _, tt := range tests {
		if _, _, _, _, err := Encode(tt.img, 10, tt.format, tt.q); !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
		}
	}
	if _, err := Decode(withSize(screenshot(t, 4, 4), 100000, 100000)); !errors.Is(err, ErrTooManyPixels) {
		t.Errorf("Decode bomb: %v", err)
	}
	if _, err := Decode([]byte("GIF89a")); !errors.Is(err, ErrInvalidImage) {
		t.Errorf("Decode gif: %v", err)
	}
}

func TestTranslucentJPEGFlattensToBlack(t *testing.T) {
	t.Parallel()
	img := image.NewNRGBA(image.Rect(0, 0, 16, 16))
	for i := range img.Pix {
		img.Pix[i] = 255 // white
	}
	for y := range 16 {
		for x := range 8 {
			img.SetNRGBA(x, y, color.NRGBA{R: 255, G: 255, B: 255, A: 0}) // left half transparent
		}
	}
	out, _, _, _, err := Resize(encodePNG(t, img), 0, "jpeg", 95)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := jpeg.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	black, white := color.NRGBA{A: 255}, color.NRGBA{R: 255, G: 255, B: 255, A: 255}
	if !near(dec.At(1, 8), black) || !near(dec.At(14, 8), white) {
		t.Fatalf("pixels %v, %v; want black, white", dec.At(1, 8), dec.At(14, 8))
	}
}

func TestTargetSize(t *testing.T) {
	t.Parallel()
	tests := []struct{ w, h, max, wantW, wantH int }{
		{1080, 2400, 0, 1080, 2400},
		{1080, 2400, 2400, 1080, 2400},
		{1080, 2400, 1280, 576, 1280},
		{2400, 1080, 1280, 1280, 576},
		{1080, 1080, 500, 500, 500},
		{1, 5000, 10, 1, 10},
		{1440, 3120, 1000, 462, 1000},
	}
	for _, tt := range tests {
		w, h := targetSize(tt.w, tt.h, tt.max)
		if w != tt.wantW || h != tt.wantH {
			t.Errorf("targetSize(%d, %d, %d) = %d, %d; want %d, %d", tt.w, tt.h, tt.max, w, h, tt.wantW, tt.wantH)
		}
	}
}

// FuzzResize: arbitrary bytes never panic; a success is an image of the
// reported size within max_side.
func FuzzResize(f *testing.F) {
	good := screenshot(f, 12, 30)
	for _, s := range [][]byte{good, good[:40], good[:len(good)-10], withSize(good, 30, 12), withSize(good, 1<<20, 1<<20), nil, []byte("\x89PNG\r\n\x1a\n")} {
		f.Add(s, 10, false)
		f.Add(s, 0, true)
	}
	f.Fuzz(func(t *testing.T, src []byte, maxSide int, asJPEG bool) {
		if cfg, err := png.DecodeConfig(bytes.NewReader(src)); err == nil && cfg.Width*cfg.Height > 1<<20 {
			t.Skip("large declared size: covered by TestResizeErrors, slow to fuzz")
		}
		format := "png"
		if asJPEG {
			format = "jpeg"
		}
		out, w, h, scale, err := Resize(src, maxSide, format, 0)
		if err != nil {
			return
		}
		if maxSide > 0 && (w > maxSide || h > maxSide) {
			t.Fatalf("%dx%d over max side %d", w, h, maxSide)
		}
		if scale < 1 {
			t.Fatalf("scale %v < 1", scale)
		}
		cfg, _, err := image.DecodeConfig(bytes.NewReader(out))
		if err != nil || cfg.Width != w || cfg.Height != h {
			t.Fatalf("output config %+v, %v; reported %dx%d", cfg, err, w, h)
		}
	})
}

// BenchmarkResize: a 1080x2400 screenshot, the size of a common phone.
func BenchmarkResize(b *testing.B) {
	src := screenshot(b, 1080, 2400)
	b.Logf("source PNG: %d bytes", len(src))
	cases := []struct {
		name    string
		maxSide int
		format  string
		quality int
	}{
		{"png-passthrough", 0, "png", 0},
		{"png-1280", 1280, "png", 0},
		{"jpeg-full-q85", 0, "jpeg", 85},
		{"jpeg-1280-q80", 1280, "jpeg", 80},
		{"jpeg-720-q70", 720, "jpeg", 70},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var n int
			for b.Loop() {
				out, _, _, _, err := Resize(src, c.maxSide, c.format, c.quality)
				if err != nil {
					b.Fatal(err)
				}
				n = len(out)
			}
			b.ReportMetric(float64(n), "out-bytes")
		})
	}
}
