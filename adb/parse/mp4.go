package parse

import (
	"encoding/binary"
	"time"
)

// MP4Info is what a tool reports of an MP4 video (screenrecord's output):
// the file's major brand, its first video track's size and the movie's
// duration.
type MP4Info struct {
	Brand    string        `json:"brand"`
	Width    int           `json:"width"`
	Height   int           `json:"height"`
	Duration time.Duration `json:"duration"`
}

// maxMP4Boxes bounds the boxes MP4 visits, so a file of tiny boxes cannot
// make it loop for long.
const maxMP4Boxes = 100000

// MP4 reads the box structure of an MP4 file (ISO/IEC 14496-12, the ISO base
// media file format; Android's MediaMuxer writes it for screenrecord): an
// ftyp box first, a moov box with the movie header (mvhd: timescale and
// duration) and a track whose handler (mdia/hdlr) is 'vide', whose track
// header (tkhd) has the width and height (16.16 fixed point). The media
// data (mdat) is not read: b may hold only the boxes before and after it,
// as MP4Head keeps them. A file without those boxes, or with a box that
// runs past its parent, is an ErrFormat.
func MP4(b []byte) (MP4Info, error) {
	var info MP4Info
	n := 0
	top, err := mp4Boxes(b, &n)
	if err != nil {
		return info, err
	}
	if len(top) == 0 || top[0].typ != "ftyp" || len(top[0].body) < 4 {
		return info, formatErr("mp4", "no ftyp box first")
	}
	info.Brand = string(top[0].body[:4])
	moov, ok := firstBox(top, "moov")
	if !ok {
		return info, formatErr("mp4", "no moov box (recording not finished?)")
	}
	kids, err := mp4Boxes(moov, &n)
	if err != nil {
		return info, err
	}
	mvhd, ok := firstBox(kids, "mvhd")
	if !ok {
		return info, formatErr("mp4", "no mvhd box")
	}
	if info.Duration, err = movieDuration(mvhd); err != nil {
		return info, err
	}
	for _, k := range kids {
		if k.typ != "trak" {
			continue
		}
		w, h, video, err := videoTrack(k.body, &n)
		if err != nil {
			return info, err
		}
		if video {
			info.Width, info.Height = w, h
			return info, nil
		}
	}
	return info, formatErr("mp4", "no video track")
}

type mp4Box struct {
	typ  string
	body []byte
}

func firstBox(bs []mp4Box, typ string) ([]byte, bool) {
	for _, x := range bs {
		if x.typ == typ {
			return x.body, true
		}
	}
	return nil, false
}

// mp4Boxes splits b into boxes: a 32-bit size (1: a 64-bit size follows
// the type; 0: up to the end) and a four-character type.
func mp4Boxes(b []byte, n *int) ([]mp4Box, error) {
	var out []mp4Box
	for len(b) > 0 {
		if *n++; *n > maxMP4Boxes {
			return nil, formatErr("mp4", "too many boxes")
		}
		if len(b) < 8 {
			return nil, formatErr("mp4", "truncated box header")
		}
		size, hdr := uint64(binary.BigEndian.Uint32(b)), uint64(8)
		typ := string(b[4:8])
		switch size {
		case 0:
			size = uint64(len(b))
		case 1:
			if len(b) < 16 {
				return nil, formatErr("mp4", "truncated box header")
			}
			size, hdr = binary.BigEndian.Uint64(b[8:]), 16
		}
		if size < hdr || size > uint64(len(b)) {
			return nil, formatErr("mp4", "box "+printable(typ)+" runs past its parent")
		}
		out = append(out, mp4Box{typ: typ, body: b[hdr:size]})
		b = b[size:]
	}
	return out, nil
}

// movieDuration reads mvhd: version and flags, then (version 1: 64-bit)
// creation and modification times, a 32-bit timescale and the duration.
func movieDuration(mvhd []byte) (time.Duration, error) {
	var scale uint32
	var dur uint64
	switch {
	case len(mvhd) >= 20 && mvhd[0] == 0:
		scale, dur = binary.BigEndian.Uint32(mvhd[12:]), uint64(binary.BigEndian.Uint32(mvhd[16:]))
		if dur == 0xffffffff {
			dur = 0 // unknown
		}
	case len(mvhd) >= 32 && mvhd[0] == 1:
		scale, dur = binary.BigEndian.Uint32(mvhd[20:]), binary.BigEndian.Uint64(mvhd[24:])
	default:
		return 0, formatErr("mp4", "bad mvhd box")
	}
	if scale == 0 {
		return 0, formatErr("mp4", "mvhd timescale 0")
	}
	secs, frac := dur/uint64(scale), dur%uint64(scale)
	if secs > uint64(time.Duration(1<<62)/time.Second) {
		return 0, formatErr("mp4", "mvhd duration out of range")
	}
	return time.Duration(secs)*time.Second + time.Duration(frac*uint64(time.Second)/uint64(scale)), nil
}

// videoTrack reads a trak: whether its mdia/hdlr handler_type is 'vide',
// and its tkhd width and height (the last 8 bytes, 16.16 fixed point).
func videoTrack(trak []byte, n *int) (w, h int, video bool, err error) {
	kids, err := mp4Boxes(trak, n)
	if err != nil {
		return 0, 0, false, err
	}
	if mdia, ok := firstBox(kids, "mdia"); ok {
		mk, err := mp4Boxes(mdia, n)
		if err != nil {
			return 0, 0, false, err
		}
		// hdlr: version and flags, pre_defined, handler_type.
		hdlr, ok := firstBox(mk, "hdlr")
		video = ok && len(hdlr) >= 12 && string(hdlr[8:12]) == "vide"
	}
	if !video {
		return 0, 0, false, nil
	}
	tkhd, ok := firstBox(kids, "tkhd")
	size := map[byte]int{0: 84, 1: 96}[tkhdVersion(tkhd)]
	if !ok || size == 0 || len(tkhd) < size {
		return 0, 0, false, formatErr("mp4", "bad tkhd box")
	}
	w = int(binary.BigEndian.Uint32(tkhd[size-8:]) >> 16)
	h = int(binary.BigEndian.Uint32(tkhd[size-4:]) >> 16)
	return w, h, true, nil
}

func tkhdVersion(tkhd []byte) byte {
	if len(tkhd) == 0 {
		return 0xff
	}
	return tkhd[0]
}

// MP4Head keeps what MP4 needs of an MP4 file streamed through Write: the
// top-level boxes other than the media data (ftyp, moov, ...: at most
// Max bytes in all), and only the headers of mdat, free and skip. A
// screenrecord file holds its moov after the media data (MediaMuxer writes
// it when the recording stops), so the whole stream passes through. Info
// parses what was kept. Not safe for concurrent use.
type MP4Head struct {
	// Max bounds the bytes kept; beyond it Write fails. Default 16 MiB.
	Max int

	kept   []byte
	hdr    []byte // the current box's header, while incomplete
	remain uint64 // bytes of the current box still to come
	keep   bool   // the current box is kept
	toEnd  bool   // the current box runs to the end of the stream
	err    error
}

// mp4Skipped are the top-level boxes MP4Head does not keep: media data and
// padding.
var mp4Skipped = map[string]bool{"mdat": true, "free": true, "skip": true, "wide": true}

// Write follows the box structure of p; it never fails on the stream's
// content (Info reports that), only when the kept boxes exceed Max.
func (m *MP4Head) Write(p []byte) (int, error) {
	total := len(p)
	for len(p) > 0 && m.err == nil {
		if m.remain == 0 && !m.toEnd {
			m.header(&p)
			continue
		}
		k := len(p)
		if !m.toEnd && uint64(k) > m.remain {
			k = int(m.remain)
		}
		if m.keep {
			m.add(p[:k])
		}
		if !m.toEnd {
			m.remain -= uint64(k)
		}
		p = p[k:]
	}
	if m.err != nil && m.err != errMP4Stream {
		return 0, m.err
	}
	return total, nil
}

// errMP4Stream marks a stream that is not a box sequence: Write keeps
// accepting it, Info reports it.
var errMP4Stream = formatErr("mp4", "not a sequence of boxes")

// header reads the next box header from p.
func (m *MP4Head) header(p *[]byte) {
	need := 8
	if len(m.hdr) >= 4 && binary.BigEndian.Uint32(m.hdr) == 1 {
		need = 16
	}
	k := min(need-len(m.hdr), len(*p))
	m.hdr = append(m.hdr, (*p)[:k]...)
	*p = (*p)[k:]
	if len(m.hdr) < need {
		return
	}
	if need == 8 && binary.BigEndian.Uint32(m.hdr) == 1 {
		return // a 64-bit size follows
	}
	size := uint64(binary.BigEndian.Uint32(m.hdr))
	if need == 16 {
		size = binary.BigEndian.Uint64(m.hdr[8:])
	}
	typ := string(m.hdr[4:8])
	m.keep = !mp4Skipped[typ]
	switch {
	case size == 0:
		m.toEnd = true
	case size < uint64(need):
		m.err = errMP4Stream
		return
	default:
		m.remain = size - uint64(need)
	}
	if m.keep {
		m.add(m.hdr)
	} else {
		// A skipped box is kept as an empty box of its type, so the
		// structure MP4 walks stays whole.
		m.add(append(binary.BigEndian.AppendUint32(nil, 8), typ...))
	}
	m.hdr = m.hdr[:0]
}

func (m *MP4Head) add(b []byte) {
	limit := m.Max
	if limit <= 0 {
		limit = 16 << 20
	}
	if len(m.kept)+len(b) > limit {
		m.err = formatErr("mp4", "boxes other than mdat larger than the limit")
		return
	}
	m.kept = append(m.kept, b...)
}

// Info parses the boxes kept so far; a stream that ended inside a box is
// an ErrFormat.
func (m *MP4Head) Info() (MP4Info, error) {
	switch {
	case m.err != nil:
		return MP4Info{}, m.err
	case m.remain > 0 || len(m.hdr) > 0:
		return MP4Info{}, formatErr("mp4", "file ends inside a box")
	}
	return MP4(m.kept)
}
