package adb

import (
	"errors"
	"fmt"
	"image"
	"io"
	"sync"

	"github.com/adb-connector/adb-connector/adb/parse"
)

// Raw screencap output, read as a stream: the header says the frame's size,
// which is checked against maxOutput before a buffer is taken, then exactly
// that many pixel bytes are read into it, and the stream must end there.
// The header is 12 bytes before Android 9 and 16 after (a colour space
// follows the format); the stream's length tells which (AOSP
// frameworks/base cmds/screencap/screencap.cpp).

// maxRawFrame bounds a raw frame (header and pixels): as any exec output,
// maxOutput, i.e. 16 Mpx of RGBA, over three times the largest phone or
// tablet screen (2960x1848 = 5.5 Mpx).
const maxRawFrame = maxOutput

// rawBuffers keeps raw frame buffers between captures: a 1080x2400 frame
// is 10 MB, which would otherwise be allocated and zeroed each time.
var rawBuffers sync.Pool // of *[]byte

// rawBuffer returns a pooled buffer of length n.
func rawBuffer(n int) *[]byte {
	if p, _ := rawBuffers.Get().(*[]byte); p != nil && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	b := make([]byte, n) // a pooled buffer too small for this frame is left to the GC
	return &b
}

// rawFrame is one raw capture read from its stream.
type rawFrame struct {
	img *image.RGBA
	// buf is the pooled buffer img.Pix lives in (nil when the pixels were
	// converted into a buffer of their own): put back by release.
	buf *[]byte
	// n is how many bytes the stream carried.
	n int64
	// complete is true when the stream's length proves it whole: a
	// 16-byte header and then exactly the pixels. A 12-byte header (before
	// Android 9) cannot be told from a 16-byte one cut 4 bytes short, so
	// the caller then checks that the device did not drop.
	complete bool
}

// release returns the frame's buffer to the pool; f.img must not be used
// after.
func (f *rawFrame) release() {
	if f.buf != nil {
		rawBuffers.Put(f.buf)
		f.buf, f.img = nil, nil
	}
}

// readRawScreencap reads one raw screencap stream from r and converts it
// to RGBA (in place for the 4-byte formats). pooled takes the buffer from
// rawBuffers; the caller then calls release. Malformed output (not a
// header, a size over maxRawFrame, a stream shorter or longer than its
// header says) wraps ErrProtocol; an error reading r is returned as is.
func readRawScreencap(r io.Reader, pooled bool) (rawFrame, error) {
	var hdr [parse.RawScreencapMinHeader]byte
	if n, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return rawFrame{}, fmt.Errorf("%w: raw screencap: %d bytes (%q), want a header", ErrProtocol, n, hdr[:n])
		}
		return rawFrame{}, err
	}
	w, h, format, pix, err := parse.RawScreencapSize(hdr[:])
	if err != nil {
		return rawFrame{}, fmt.Errorf("%w: %w", ErrProtocol, err)
	}
	if pix+16 > maxRawFrame {
		return rawFrame{}, fmt.Errorf("raw screencap %dx%d: %w", w, h, ErrOutputTooLarge)
	}
	// Read as if the header had its 4-byte colour space: exactly pix+4
	// bytes then the end is the 16-byte header; pix bytes then the end,
	// the 12-byte one.
	var p *[]byte
	if pooled {
		p = rawBuffer(int(pix) + 4)
	} else {
		b := make([]byte, pix+4)
		p = &b
	}
	f := rawFrame{buf: p}
	defer func() {
		if f.img == nil {
			f.release()
		}
	}()
	b := *p
	n, err := io.ReadFull(r, b)
	f.n = int64(len(hdr) + n)
	var pixels []byte
	switch {
	case err == nil:
		var one [1]byte
		switch m, err := io.ReadFull(r, one[:]); {
		case m > 0:
			return rawFrame{}, fmt.Errorf("%w: raw screencap %dx%d format %d: more than %d bytes", ErrProtocol, w, h, format, 16+pix)
		case !errors.Is(err, io.EOF):
			return rawFrame{}, err
		}
		pixels, f.complete = b[4:], true
	case errors.Is(err, io.ErrUnexpectedEOF) && int64(n) == pix:
		pixels = b[:pix]
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return rawFrame{}, fmt.Errorf("%w: raw screencap %dx%d format %d: stream ended after %d of %d bytes", ErrProtocol, w, h, format, f.n, 16+pix)
	default:
		return rawFrame{}, err
	}
	img, inPlace := rawToRGBA(format, w, h, pixels)
	if !inPlace {
		f.release()
	}
	f.img = img
	return f, nil
}

// rawToRGBA converts raw screencap pixels of a known format to RGBA:
// in place (reusing pix) for the 4-byte formats, into a new image for the
// others. Android's RGBA_8888 is already image.RGBA's layout; RGBX has an
// undefined fourth byte.
func rawToRGBA(format, w, h int, pix []byte) (img *image.RGBA, inPlace bool) {
	r := image.Rect(0, 0, w, h)
	switch format {
	case parse.PixelFormatRGBA8888:
		return &image.RGBA{Pix: pix, Stride: 4 * w, Rect: r}, true
	case parse.PixelFormatRGBX8888:
		for i := 3; i < len(pix); i += 4 {
			pix[i] = 0xff
		}
		return &image.RGBA{Pix: pix, Stride: 4 * w, Rect: r}, true
	case parse.PixelFormatBGRA8888:
		for i := 0; i+3 < len(pix); i += 4 {
			pix[i], pix[i+2] = pix[i+2], pix[i]
		}
		return &image.RGBA{Pix: pix, Stride: 4 * w, Rect: r}, true
	}
	img = image.NewRGBA(r)
	dst := img.Pix
	switch format {
	case parse.PixelFormatRGB888:
		for i, j := 0, 0; i+2 < len(pix); i, j = i+3, j+4 {
			dst[j], dst[j+1], dst[j+2], dst[j+3] = pix[i], pix[i+1], pix[i+2], 0xff
		}
	case parse.PixelFormatRGB565:
		for i, j := 0, 0; i+1 < len(pix); i, j = i+2, j+4 {
			v := uint16(pix[i]) | uint16(pix[i+1])<<8
			r, g, bl := byte(v>>11), byte(v>>5&0x3f), byte(v&0x1f)
			dst[j], dst[j+1], dst[j+2], dst[j+3] = r<<3|r>>2, g<<2|g>>4, bl<<3|bl>>2, 0xff
		}
	}
	return img, false
}
