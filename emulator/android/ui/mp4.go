package ui

import (
	"bytes"
	"encoding/binary"
)

// encodeMP4 writes a minimal ISO BMFF file (ftyp, moov, mdat) with one
// video track of Motion-JPEG frames ('jpeg' sample entry), one frame per
// second. ffmpeg/ffprobe read it as mjpeg in an mp4 container. It is not
// what a phone's screenrecord writes (H.264), but it is a valid MP4 file of
// the right duration and size, showing the screen.
func EncodeMP4(frames [][]byte, w, h int) []byte {
	const timescale = 1000
	n := uint32(len(frames))
	dur := n * timescale

	ftyp := box("ftyp", []byte("isom"), u32(512), []byte("isomiso2mp41"))

	matrix := cat(u32(0x00010000), u32(0), u32(0), u32(0), u32(0x00010000), u32(0), u32(0), u32(0), u32(0x40000000))
	mvhd := fullbox("mvhd", 0, 0, u32(0), u32(0), u32(timescale), u32(dur), u32(0x00010000), u16(0x0100), make([]byte, 10), matrix, make([]byte, 24), u32(2))
	tkhd := fullbox("tkhd", 0, 3, u32(0), u32(0), u32(1), u32(0), u32(dur), make([]byte, 8), u16(0), u16(0), u16(0), u16(0), matrix, u32(uint32(w)<<16), u32(uint32(h)<<16))
	mdhd := fullbox("mdhd", 0, 0, u32(0), u32(0), u32(timescale), u32(dur), u16(0x55c4), u16(0))
	hdlr := fullbox("hdlr", 0, 0, u32(0), []byte("vide"), make([]byte, 12), []byte("VideoHandler\x00"))
	vmhd := fullbox("vmhd", 0, 1, make([]byte, 8))
	dinf := box("dinf", fullbox("dref", 0, 0, u32(1), fullbox("url ", 0, 1)))
	name := make([]byte, 32)
	copy(name[1:], "Photo - JPEG")
	name[0] = 12
	entry := box("jpeg", make([]byte, 6), u16(1), u16(0), u16(0), make([]byte, 12), u16(uint16(w)), u16(uint16(h)),
		u32(0x00480000), u32(0x00480000), u32(0), u16(1), name, u16(0x18), u16(0xffff))
	stsd := fullbox("stsd", 0, 0, u32(1), entry)
	stts := fullbox("stts", 0, 0, u32(1), u32(n), u32(timescale))
	stsc := fullbox("stsc", 0, 0, u32(1), u32(1), u32(n), u32(1))
	var sizes []byte
	for _, f := range frames {
		sizes = append(sizes, u32(uint32(len(f)))...)
	}
	stsz := fullbox("stsz", 0, 0, u32(0), u32(n), sizes)
	build := func(off uint32) []byte {
		stco := fullbox("stco", 0, 0, u32(1), u32(off))
		stbl := box("stbl", stsd, stts, stsc, stsz, stco)
		minf := box("minf", vmhd, dinf, stbl)
		mdia := box("mdia", mdhd, hdlr, minf)
		trak := box("trak", tkhd, mdia)
		return box("moov", mvhd, trak)
	}
	moov := build(0)
	moov = build(uint32(len(ftyp) + len(moov) + 8))
	mdat := box("mdat", frames...)
	return cat(ftyp, moov, mdat)
}

func u32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }
func u16(v uint16) []byte { return binary.BigEndian.AppendUint16(nil, v) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func box(typ string, parts ...[]byte) []byte {
	body := cat(parts...)
	return cat(u32(uint32(8+len(body))), []byte(typ), body)
}

func fullbox(typ string, version byte, flags uint32, parts ...[]byte) []byte {
	vf := u32(uint32(version)<<24 | flags&0xffffff)
	return box(typ, append([][]byte{vf}, parts...)...)
}
