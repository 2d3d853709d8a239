package parse

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"time"
)

// Boxes laid out as ISO/IEC 14496-12 defines them and Android's MPEG4Writer
// writes a screenrecord file: ftyp, mdat (the frames), then moov.

func u32b(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }

func mbox(typ string, parts ...[]byte) []byte {
	body := bytes.Join(parts, nil)
	return append(append(u32b(uint32(8+len(body))), typ...), body...)
}

func fullMBox(typ string, version byte, parts ...[]byte) []byte {
	return mbox(typ, append([][]byte{{version, 0, 0, 0}}, parts...)...)
}

func mvhd0(scale, dur uint32) []byte {
	return fullMBox("mvhd", 0, u32b(0), u32b(0), u32b(scale), u32b(dur), make([]byte, 80))
}

func tkhd0(w, h int) []byte {
	return fullMBox("tkhd", 0, make([]byte, 20), make([]byte, 52), u32b(uint32(w)<<16), u32b(uint32(h)<<16))
}

func trak(handler string, tkhd []byte) []byte {
	hdlr := fullMBox("hdlr", 0, u32b(0), []byte(handler), make([]byte, 12), []byte("VideoHandle\x00"))
	return mbox("trak", tkhd, mbox("mdia", fullMBox("mdhd", 0, make([]byte, 20)), hdlr))
}

func screenrecordMP4(frames int) []byte {
	ftyp := mbox("ftyp", []byte("mp42"), u32b(0), []byte("isommp42"))
	mdat := mbox("mdat", bytes.Repeat([]byte{0, 0, 0, 1, 0x65}, frames))
	moov := mbox("moov", mvhd0(1000, 3016), trak("soun", tkhd0(0, 0)), trak("vide", tkhd0(720, 1280)))
	return bytes.Join([][]byte{ftyp, mdat, moov}, nil)
}

func mp4Cases() map[string]struct {
	in   []byte
	want MP4Info
	err  bool
} {
	v1 := mbox("ftyp", []byte("isom"), u32b(512))
	largeMdat := append(append(u32b(1), "mdat"...), binary.BigEndian.AppendUint64(nil, 16+4)...)
	largeMdat = append(largeMdat, 1, 2, 3, 4)
	mvhd1 := fullMBox("mvhd", 1, make([]byte, 16), u32b(90000), binary.BigEndian.AppendUint64(nil, 135000), make([]byte, 80))
	tkhd1 := fullMBox("tkhd", 1, make([]byte, 32), make([]byte, 52), u32b(1080<<16), u32b(2400<<16))
	v1 = append(v1, largeMdat...)
	v1 = append(v1, mbox("moov", mvhd1, trak("vide", tkhd1))...)
	toEnd := append(mbox("ftyp", []byte("mp42")), u32b(0)...)
	toEnd = append(toEnd, "moov"...)
	toEnd = append(toEnd, mvhd0(600, 600)...)
	toEnd = append(toEnd, trak("vide", tkhd0(64, 48))...)
	return map[string]struct {
		in   []byte
		want MP4Info
		err  bool
	}{
		"screenrecord":         {in: screenrecordMP4(90), want: MP4Info{Brand: "mp42", Width: 720, Height: 1280, Duration: 3016 * time.Millisecond}},
		"version 1, largesize": {in: v1, want: MP4Info{Brand: "isom", Width: 1080, Height: 2400, Duration: 1500 * time.Millisecond}},
		"moov to the end":      {in: toEnd, want: MP4Info{Brand: "mp42", Width: 64, Height: 48, Duration: time.Second}},
		"empty":                {in: nil, err: true},
		"png":                  {in: []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"), err: true},
		"no moov (killed)":     {in: screenrecordMP4(3)[:len(screenrecordMP4(3))-400], err: true},
		"no video track":       {in: append(mbox("ftyp", []byte("mp42")), mbox("moov", mvhd0(1000, 1), trak("soun", tkhd0(0, 0)))...), err: true},
		"timescale 0":          {in: append(mbox("ftyp", []byte("mp42")), mbox("moov", mvhd0(0, 1), trak("vide", tkhd0(1, 1)))...), err: true},
		"box past its parent":  {in: append(mbox("ftyp", []byte("mp42")), u32b(1000)...), err: true},
	}
}

func TestMP4(t *testing.T) {
	t.Parallel()
	for name, tc := range mp4Cases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := MP4(tc.in)
			if tc.err {
				if !errors.Is(err, ErrFormat) {
					t.Fatalf("MP4 = %+v, %v; want ErrFormat", got, err)
				}
			} else if err != nil || got != tc.want {
				t.Fatalf("MP4 = %+v, %v; want %+v", got, err, tc.want)
			}
			// Streamed in chunks of every size from 1 to 17 bytes, MP4Head
			// agrees.
			for chunk := 1; chunk <= 17; chunk++ {
				var h MP4Head
				for b := tc.in; len(b) > 0; b = b[min(chunk, len(b)):] {
					if _, err := h.Write(b[:min(chunk, len(b))]); err != nil {
						t.Fatal(err)
					}
				}
				hi, herr := h.Info()
				if (herr == nil) != (err == nil) || herr == nil && hi != got {
					t.Fatalf("chunks of %d: MP4Head = %+v, %v; MP4 = %+v, %v", chunk, hi, herr, got, err)
				}
			}
		})
	}
}

// TestMP4HeadSkipsMedia: the media data is not kept.
func TestMP4HeadSkipsMedia(t *testing.T) {
	t.Parallel()
	in := screenrecordMP4(100000)
	h := MP4Head{Max: 4096}
	if n, err := h.Write(in); err != nil || n != len(in) {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if _, err := h.Info(); err != nil {
		t.Fatal(err)
	}
	if len(h.kept) > 4096 {
		t.Fatalf("kept %d bytes", len(h.kept))
	}
	big := MP4Head{Max: 16}
	if _, err := big.Write(in); err == nil {
		t.Fatal("boxes over Max accepted")
	}
}

func FuzzMP4(f *testing.F) {
	for _, tc := range mp4Cases() {
		f.Add(tc.in, uint8(7))
	}
	f.Fuzz(func(t *testing.T, b []byte, chunk uint8) {
		info, err := MP4(b)
		checkErr(t, err)
		var h MP4Head
		c := int(chunk%32) + 1
		for p := b; len(p) > 0; p = p[min(c, len(p)):] {
			if _, err := h.Write(p[:min(c, len(p))]); err != nil {
				return // over Max
			}
		}
		hi, herr := h.Info()
		checkErr(t, herr)
		if (herr == nil) != (err == nil) || herr == nil && hi != info {
			t.Fatalf("MP4Head = %+v, %v; MP4 = %+v, %v", hi, herr, info, err)
		}
	})
}
