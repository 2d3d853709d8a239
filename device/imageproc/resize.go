package imageproc

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/jpeg"
	"image/png"
	"sync"
)

// Formats accepted by [Resize].
const (
	FormatPNG  = "png"
	FormatJPEG = "jpeg"
)

const (
	// DefaultJPEGQuality is used when quality is 0.
	DefaultJPEGQuality = 85
	// MaxPixels bounds the decoded size of an input (width*height): 64 Mpx,
	// far above any phone screen, far below a decompression bomb.
	MaxPixels = 64 << 20
)

var (
	// ErrInvalidImage: the input is not a PNG that decodes.
	ErrInvalidImage = errors.New("invalid screenshot image")
	// ErrTooManyPixels: the input's header declares more than MaxPixels.
	ErrTooManyPixels = errors.New("screenshot image too large")
	// ErrInvalidArgument: an unknown format, or a quality outside 1..100.
	ErrInvalidArgument = errors.New("invalid image argument")
)

// Resize scales the PNG image in src so that its longest side is at most
// maxSide (maxSide <= 0: no limit; images are never enlarged) and encodes it
// as format ("png" or "jpeg"; "" means png). quality (1..100, 0 for
// DefaultJPEGQuality) applies to jpeg only. It is Decode then Encode, except
// that a PNG that needs no change is not decoded at all.
//
// It returns the encoded image, its width and height, and scale, the factor
// that maps image pixels to source (device) pixels: device = image * scale,
// 1 when the size is unchanged; it is the ratio of the longest sides.
//
// When the result would be a PNG of the same size, src itself is returned
// (not a copy) after reading only its header. Resize is safe for concurrent
// use. Errors wrap ErrInvalidImage, ErrTooManyPixels or ErrInvalidArgument.
func Resize(src []byte, maxSide int, format string, quality int) (out []byte, w, h int, scale float64, err error) {
	if _, _, err := checkFormat(format, quality); err != nil {
		return nil, 0, 0, 0, err
	}
	cfg, err := pngConfig(src)
	if err != nil {
		return nil, 0, 0, 0, err
	}
	if w, h = targetSize(cfg.Width, cfg.Height, maxSide); w == cfg.Width && h == cfg.Height && cmp.Or(format, FormatPNG) == FormatPNG {
		return src, w, h, 1, nil
	}
	img, err := png.Decode(bytes.NewReader(src))
	if err != nil {
		return nil, 0, 0, 0, fmt.Errorf("%w: %v", ErrInvalidImage, err)
	}
	return Encode(img, maxSide, format, quality)
}

// Decode decodes the PNG in src, refusing before any pixel buffer is
// allocated a header that declares an empty image or more than MaxPixels.
// Errors wrap ErrInvalidImage or ErrTooManyPixels. Safe for concurrent use.
func Decode(src []byte) (image.Image, error) {
	if _, err := pngConfig(src); err != nil {
		return nil, err
	}
	img, err := png.Decode(bytes.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidImage, err)
	}
	return img, nil
}

// pngConfig reads and checks the header of the PNG in src.
func pngConfig(src []byte) (image.Config, error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(src))
	if err != nil {
		return cfg, fmt.Errorf("%w: %v", ErrInvalidImage, err)
	}
	return cfg, checkSize(cfg.Width, cfg.Height)
}

func checkSize(w, h int) error {
	if w <= 0 || h <= 0 {
		return fmt.Errorf("%w: empty %dx%d image", ErrInvalidImage, w, h)
	}
	if int64(w)*int64(h) > MaxPixels {
		return fmt.Errorf("%w: %dx%d", ErrTooManyPixels, w, h)
	}
	return nil
}

// checkFormat normalises format ("" is png) and quality (0 is
// DefaultJPEGQuality for jpeg).
func checkFormat(format string, quality int) (string, int, error) {
	switch format {
	case "", FormatPNG:
		return FormatPNG, 0, nil
	case FormatJPEG:
		if quality == 0 {
			quality = DefaultJPEGQuality
		}
		if quality < 1 || quality > 100 {
			return "", 0, fmt.Errorf("%w: jpeg quality %d not in 1..100", ErrInvalidArgument, quality)
		}
		return format, quality, nil
	}
	return "", 0, fmt.Errorf("%w: format %q (want png or jpeg)", ErrInvalidArgument, format)
}

// Encode scales img so that its longest side is at most maxSide and
// encodes it as format, with the arguments, results and errors of Resize
// (an empty or too large img wraps ErrInvalidImage or ErrTooManyPixels).
// The screen (a raw capture, or a decoded PNG) is shrunk by area averaging
// (box.go) and encoded with the standard library: PNG at
// png.BestSpeed, JPEG 4:2:0. img is not modified; the result never shares
// its memory. Safe for concurrent use.
func Encode(img image.Image, maxSide int, format string, quality int) (out []byte, w, h int, scale float64, err error) {
	format, quality, w, h, err = checkEncode(img, maxSide, format, quality)
	if err != nil {
		return nil, 0, 0, 0, err
	}
	b := img.Bounds()
	if w != b.Dx() || h != b.Dy() {
		img = boxResize(asRGBA(img), w, h)
	}
	out, err = encode(img, format, quality)
	if err != nil {
		return nil, 0, 0, 0, err
	}
	return out, w, h, float64(max(b.Dx(), b.Dy())) / float64(max(w, h)), nil
}

// checkEncode checks Encode's arguments and img's size and returns the
// normalised format and quality and the output size.
func checkEncode(img image.Image, maxSide int, format string, quality int) (string, int, int, int, error) {
	format, quality, err := checkFormat(format, quality)
	if err != nil {
		return "", 0, 0, 0, err
	}
	b := img.Bounds()
	if err := checkSize(b.Dx(), b.Dy()); err != nil {
		return "", 0, 0, 0, err
	}
	w, h := targetSize(b.Dx(), b.Dy(), maxSide)
	return format, quality, w, h, nil
}

// encode writes img as format. PNG keeps what img holds (alpha too) at
// png.BestSpeed: on a screenshot it is several times faster than the
// default level for a file 10-30% larger (BenchmarkPNGLevel).
func encode(img image.Image, format string, quality int) ([]byte, error) {
	var buf bytes.Buffer
	b := img.Bounds()
	var err error
	switch format {
	case FormatPNG:
		buf.Grow(b.Dx() * b.Dy())
		err = (&png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: pngBuffers}).Encode(&buf, img)
	case FormatJPEG:
		buf.Grow(b.Dx() * b.Dy() / 4)
		err = jpeg.Encode(&buf, asRGBA(img), &jpeg.Options{Quality: quality})
	}
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", format, err)
	}
	return buf.Bytes(), nil
}

// pngBuffers keeps the PNG encoder's row and zlib buffers between calls.
var pngBuffers = &pngPool{}

type pngPool struct{ p sync.Pool }

func (p *pngPool) Get() *png.EncoderBuffer {
	b, _ := p.p.Get().(*png.EncoderBuffer)
	return b
}

func (p *pngPool) Put(b *png.EncoderBuffer) { p.p.Put(b) }

// targetSize fits w x h into a maxSide square keeping the aspect ratio,
// rounding the short side, never below 1 pixel and never enlarging.
func targetSize(w, h, maxSide int) (int, int) {
	long := max(w, h)
	if maxSide <= 0 || long <= maxSide {
		return w, h
	}
	r := float64(maxSide) / float64(long)
	sw := max(1, int(float64(w)*r+0.5))
	sh := max(1, int(float64(h)*r+0.5))
	if w >= h {
		sw = maxSide
	} else {
		sh = maxSide
	}
	return sw, sh
}

// asRGBA returns img as an *image.RGBA, the form the resampler reads and
// image/jpeg encodes without a per-pixel interface call. An RGBA image is
// returned as is; an opaque NRGBA image (every screenshot PNG) has the
// same bytes and is reused without a copy; translucent pixels are
// premultiplied, i.e. flattened onto black in a JPEG.
func asRGBA(img image.Image) *image.RGBA {
	switch m := img.(type) {
	case *image.RGBA:
		return m
	case *image.NRGBA:
		rgba := &image.RGBA{Pix: m.Pix, Stride: m.Stride, Rect: m.Rect}
		if m.Opaque() {
			return rgba
		}
		pix := make([]byte, len(m.Pix))
		copy(pix, m.Pix)
		rgba.Pix = pix
		for y := 0; y < m.Rect.Dy(); y++ {
			row := pix[y*m.Stride : y*m.Stride+m.Rect.Dx()*4]
			for i := 0; i < len(row); i += 4 {
				a := uint32(row[i+3])
				row[i] = uint8(uint32(row[i]) * a / 255)
				row[i+1] = uint8(uint32(row[i+1]) * a / 255)
				row[i+2] = uint8(uint32(row[i+2]) * a / 255)
			}
		}
		return rgba
	}
	b := img.Bounds()
	dst := image.NewRGBA(b)
	draw.Draw(dst, b, img, b.Min, draw.Src)
	return dst
}
