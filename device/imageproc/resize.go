package imageproc

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/jpeg"
	"image/png"

	"github.com/disintegration/imaging"
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
// DefaultJPEGQuality) applies to jpeg only.
//
// It returns the encoded image, its width and height, and scale, the factor
// that maps image pixels to source (device) pixels: device = image * scale,
// 1 when the size is unchanged; it is the ratio of the longest sides.
//
// When the result would be a PNG of the same size, src itself is returned
// (not a copy) after reading only its header. Resize is safe for concurrent
// use. Errors wrap ErrInvalidImage, ErrTooManyPixels or ErrInvalidArgument.
func Resize(src []byte, maxSide int, format string, quality int) (out []byte, w, h int, scale float64, err error) {
	switch format {
	case "", FormatPNG:
		format = FormatPNG
	case FormatJPEG:
		if quality == 0 {
			quality = DefaultJPEGQuality
		}
		if quality < 1 || quality > 100 {
			return nil, 0, 0, 0, fmt.Errorf("%w: jpeg quality %d not in 1..100", ErrInvalidArgument, quality)
		}
	default:
		return nil, 0, 0, 0, fmt.Errorf("%w: format %q (want png or jpeg)", ErrInvalidArgument, format)
	}

	cfg, err := png.DecodeConfig(bytes.NewReader(src))
	if err != nil {
		return nil, 0, 0, 0, fmt.Errorf("%w: %v", ErrInvalidImage, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, 0, 0, 0, fmt.Errorf("%w: empty %dx%d image", ErrInvalidImage, cfg.Width, cfg.Height)
	}
	if int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
		return nil, 0, 0, 0, fmt.Errorf("%w: %dx%d", ErrTooManyPixels, cfg.Width, cfg.Height)
	}
	w, h = targetSize(cfg.Width, cfg.Height, maxSide)
	resize := w != cfg.Width || h != cfg.Height
	if !resize && format == FormatPNG {
		return src, w, h, 1, nil
	}

	img, err := png.Decode(bytes.NewReader(src))
	if err != nil {
		return nil, 0, 0, 0, fmt.Errorf("%w: %v", ErrInvalidImage, err)
	}
	if resize {
		// CatmullRom keeps small UI text legible at a fraction of Lanczos' cost.
		img = imaging.Resize(img, w, h, imaging.CatmullRom)
	}
	var buf bytes.Buffer
	buf.Grow(len(src) / 2)
	switch format {
	case FormatPNG:
		err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img)
	case FormatJPEG:
		err = jpeg.Encode(&buf, opaque(img), &jpeg.Options{Quality: quality})
	}
	if err != nil {
		return nil, 0, 0, 0, fmt.Errorf("encode %s: %w", format, err)
	}
	scale = float64(max(cfg.Width, cfg.Height)) / float64(max(w, h))
	return buf.Bytes(), w, h, scale, nil
}

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

// opaque returns img in a form image/jpeg encodes without a per-pixel
// interface call (*image.RGBA, *image.YCbCr, *image.Gray). An opaque NRGBA
// image (every screenshot) has the same bytes as RGBA and is reused as is;
// translucent pixels are premultiplied, i.e. flattened onto black.
func opaque(img image.Image) image.Image {
	switch m := img.(type) {
	case *image.RGBA, *image.YCbCr, *image.Gray:
		return img
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
