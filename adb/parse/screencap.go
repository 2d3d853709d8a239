package parse

import (
	"encoding/binary"
	"fmt"
)

// Pixel formats of the raw `screencap` output (android.graphics.PixelFormat /
// HAL_PIXEL_FORMAT_*).
const (
	PixelFormatRGBA8888 = 1
	PixelFormatRGBX8888 = 2
	PixelFormatRGB888   = 3
	PixelFormatRGB565   = 4
	PixelFormatBGRA8888 = 5
)

// BytesPerPixel returns the size of one pixel of a raw screencap format, or
// 0 for a format this package does not know.
func BytesPerPixel(format int) int {
	switch format {
	case PixelFormatRGBA8888, PixelFormatRGBX8888, PixelFormatBGRA8888:
		return 4
	case PixelFormatRGB888:
		return 3
	case PixelFormatRGB565:
		return 2
	}
	return 0
}

// RawScreencapMinHeader is the part of a raw screencap header every
// release writes: width, height and format.
const RawScreencapMinHeader = 12

// RawScreencapSize reads the first RawScreencapMinHeader bytes of raw
// `screencap` output (no -p): little-endian uint32 width, height and
// format. It returns them with the size of the pixel data that follows the
// header (w*h*bytes per pixel), so a reader can bound and allocate it
// before reading. Since Android 9 a fourth uint32 (the colour space) comes
// before the pixels (AOSP frameworks/base cmds/screencap/screencap.cpp):
// whether it is there shows only in the total length (RawScreencapHeader).
func RawScreencapSize(b []byte) (w, h, format int, pixBytes int64, err error) {
	if len(b) < RawScreencapMinHeader {
		return 0, 0, 0, 0, formatErr("screencap", fmt.Sprintf("%d bytes, want a 12 or 16 byte header", len(b)))
	}
	uw := binary.LittleEndian.Uint32(b[0:4])
	uh := binary.LittleEndian.Uint32(b[4:8])
	uf := binary.LittleEndian.Uint32(b[8:12])
	if uw == 0 || uh == 0 || uw > 1<<15 || uh > 1<<15 {
		return 0, 0, 0, 0, formatErr("screencap", fmt.Sprintf("implausible size %dx%d", uw, uh))
	}
	bpp := BytesPerPixel(int(uf))
	if bpp == 0 {
		return 0, 0, 0, 0, formatErr("screencap", fmt.Sprintf("unknown pixel format %d", uf))
	}
	return int(uw), int(uh), int(uf), int64(uw) * int64(uh) * int64(bpp), nil
}

// RawScreencapHeader reads the header of raw `screencap` output (no -p):
// little-endian uint32 width, height, format, and since Android 9 a fourth
// uint32 colour space (16-byte header; 12 bytes before). The header length
// is decided by the data length: len(b) == headerLen + w*h*bpp. b must hold
// the whole capture.
func RawScreencapHeader(b []byte) (w, h, format, headerLen int, err error) {
	w, h, format, pix, err := RawScreencapSize(b)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	switch int64(len(b)) {
	case 16 + pix:
		headerLen = 16
	case 12 + pix:
		headerLen = 12
	default:
		return 0, 0, 0, 0, formatErr("screencap", fmt.Sprintf("%d bytes do not match %dx%d format %d with a 12 or 16 byte header", len(b), w, h, format))
	}
	return w, h, format, headerLen, nil
}
