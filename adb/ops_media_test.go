package adb

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"testing"
)

func rawCapture(w, h, format, header int, pix []byte) []byte {
	b := make([]byte, header)
	binary.LittleEndian.PutUint32(b[0:], uint32(w))
	binary.LittleEndian.PutUint32(b[4:], uint32(h))
	binary.LittleEndian.PutUint32(b[8:], uint32(format))
	return append(b, pix...)
}

var rawCases = []struct {
	name string
	data []byte
	want color.RGBA
}{
	{"rgba8888 16-byte header", rawCapture(1, 1, 1, 16, []byte{10, 20, 30, 40}), color.RGBA{10, 20, 30, 40}},
	{"rgbx8888 12-byte header", rawCapture(1, 1, 2, 12, []byte{10, 20, 30, 0}), color.RGBA{10, 20, 30, 255}},
	{"bgra8888", rawCapture(1, 1, 5, 16, []byte{30, 20, 10, 255}), color.RGBA{10, 20, 30, 255}},
	{"rgb888", rawCapture(1, 1, 3, 16, []byte{10, 20, 30}), color.RGBA{10, 20, 30, 255}},
	{"rgb565 white", rawCapture(1, 1, 4, 16, []byte{0xff, 0xff}), color.RGBA{255, 255, 255, 255}},
	{"rgb565 red", rawCapture(1, 1, 4, 16, []byte{0x00, 0xf8}), color.RGBA{255, 0, 0, 255}},
}

func TestDecodeRawScreencap(t *testing.T) {
	for _, tt := range rawCases {
		t.Run(tt.name, func(t *testing.T) {
			img, err := decodeRawScreencap(tt.data)
			if err != nil {
				t.Fatal(err)
			}
			if got := img.RGBAAt(0, 0); got != tt.want {
				t.Errorf("pixel = %v, want %v", got, tt.want)
			}
		})
	}
	if _, err := decodeRawScreencap(rawCapture(2, 2, 1, 16, []byte{1, 2, 3})); err == nil {
		t.Error("short capture accepted")
	}
}

func FuzzDecodeRawScreencap(f *testing.F) {
	for _, tt := range rawCases {
		f.Add(tt.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := decodeRawScreencap(data)
		if err == nil && (img.Bounds().Dx() == 0 || img.Bounds().Dy() == 0) {
			t.Fatal("empty image without error")
		}
	})
}

// decodeRawScreencap converts a whole raw screencap output to RGBA.
func decodeRawScreencap(b []byte) (*image.RGBA, error) {
	f, err := readRawScreencap(bytes.NewReader(b), false)
	if err != nil {
		return nil, err
	}
	return f.img, nil
}
