package helper

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// Frame kinds.
const (
	KindHello   byte = 0x01
	KindRequest byte = 0x10
	KindOK      byte = 0x11
	KindError   byte = 0x12
)

// Bounds of the framing.
const (
	// MinFrame is the smallest length: kind and id.
	MinFrame = 5
	// MaxFrame is the largest length a frame may declare (16 MiB): a
	// full-size PNG of a 1440x3200 screen fits, a corrupt length does not
	// make the host allocate gigabytes.
	MaxFrame = 16 << 20
	// MaxString bounds a string's byte length (1 MiB).
	MaxString = 1 << 20
)

// ProtocolVersion is the version this package speaks (HELLO's u16).
const ProtocolVersion = 1

// Magic opens HELLO's body.
const Magic = "ADBH"

// ErrFrame is wrapped by every error about the bytes received: a length
// out of bounds, a frame cut short, an unknown kind, a body that does not
// hold its op's fields. The stream cannot be trusted after it.
var ErrFrame = errors.New("helper: bad frame")

// Frame is one message. Body excludes kind and id.
type Frame struct {
	Kind byte
	ID   uint32
	Body []byte
}

// preallocMax is how much of a declared length is allocated before any of
// it has arrived: a frame that claims 16 MiB and stops after a few bytes
// costs what it sent, not what it claimed.
const preallocMax = 64 << 10

// ReadFrame reads one frame from r. A length out of bounds, a kind this
// protocol does not define, or an end of r inside a frame is an error
// wrapping ErrFrame; an end of r between frames is io.EOF.
func ReadFrame(r io.Reader) (Frame, error) {
	var hdr [9]byte
	if _, err := io.ReadFull(r, hdr[:4]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return Frame{}, fmt.Errorf("%w: cut inside the length", ErrFrame)
		}
		return Frame{}, err
	}
	n := binary.BigEndian.Uint32(hdr[:4])
	if n < MinFrame || n > MaxFrame {
		return Frame{}, fmt.Errorf("%w: length %d out of %d..%d", ErrFrame, n, MinFrame, MaxFrame)
	}
	if _, err := io.ReadFull(r, hdr[4:]); err != nil {
		return Frame{}, cut(err)
	}
	f := Frame{Kind: hdr[4], ID: binary.BigEndian.Uint32(hdr[5:])}
	switch f.Kind {
	case KindHello, KindRequest, KindOK, KindError:
	default:
		return Frame{}, fmt.Errorf("%w: unknown kind 0x%02x", ErrFrame, f.Kind)
	}
	body := int(n) - MinFrame
	if body <= preallocMax {
		f.Body = make([]byte, body)
		if _, err := io.ReadFull(r, f.Body); err != nil {
			return Frame{}, cut(err)
		}
		return f, nil
	}
	var buf bytes.Buffer
	buf.Grow(preallocMax)
	if k, err := io.CopyN(&buf, r, int64(body)); k < int64(body) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return Frame{}, cut(err)
	}
	f.Body = buf.Bytes()
	return f, nil
}

// cut is the error of a frame whose bytes stopped coming.
func cut(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: cut short", ErrFrame)
	}
	return err
}

// AppendFrame appends the encoding of a frame to dst.
func AppendFrame(dst []byte, kind byte, id uint32, body []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(MinFrame+len(body)))
	dst = append(dst, kind)
	dst = binary.BigEndian.AppendUint32(dst, id)
	return append(dst, body...)
}

// Encoder builds a body. The zero value is ready.
type Encoder struct{ b []byte }

// U8 appends a byte.
func (e *Encoder) U8(v uint8) *Encoder { e.b = append(e.b, v); return e }

// Bool appends a boolean (u8 0 or 1).
func (e *Encoder) Bool(v bool) *Encoder {
	if v {
		return e.U8(1)
	}
	return e.U8(0)
}

// U16 appends a big-endian u16.
func (e *Encoder) U16(v uint16) *Encoder { e.b = binary.BigEndian.AppendUint16(e.b, v); return e }

// U32 appends a big-endian u32.
func (e *Encoder) U32(v uint32) *Encoder { e.b = binary.BigEndian.AppendUint32(e.b, v); return e }

// I32 appends a big-endian two's complement i32.
func (e *Encoder) I32(v int32) *Encoder { return e.U32(uint32(v)) }

// Str appends a string: u32 length and its bytes.
func (e *Encoder) Str(s string) *Encoder {
	e.U32(uint32(len(s)))
	e.b = append(e.b, s...)
	return e
}

// Bytes returns the body built so far.
func (e *Encoder) Bytes() []byte { return e.b }

// Decoder reads a body's fields in order. The first field that does not
// fit sets an error wrapping ErrFrame, and every later read returns zero;
// End reports it, or the bytes left over.
type Decoder struct {
	b   []byte
	err error
}

// NewDecoder reads body.
func NewDecoder(body []byte) *Decoder { return &Decoder{b: body} }

func (d *Decoder) take(n int, what string) []byte {
	if d.err != nil {
		return nil
	}
	if len(d.b) < n {
		d.err = fmt.Errorf("%w: body ends inside %s", ErrFrame, what)
		return nil
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p
}

// U8 reads a byte.
func (d *Decoder) U8() uint8 {
	if p := d.take(1, "a u8"); p != nil {
		return p[0]
	}
	return 0
}

// Bool reads a boolean: 0 or 1, anything else is an error.
func (d *Decoder) Bool() bool {
	v := d.U8()
	if v > 1 && d.err == nil {
		d.err = fmt.Errorf("%w: boolean %d", ErrFrame, v)
	}
	return v == 1
}

// U16 reads a big-endian u16.
func (d *Decoder) U16() uint16 {
	if p := d.take(2, "a u16"); p != nil {
		return binary.BigEndian.Uint16(p)
	}
	return 0
}

// U32 reads a big-endian u32.
func (d *Decoder) U32() uint32 {
	if p := d.take(4, "a u32"); p != nil {
		return binary.BigEndian.Uint32(p)
	}
	return 0
}

// I32 reads a big-endian i32.
func (d *Decoder) I32() int32 { return int32(d.U32()) }

// Blob reads a u32 length and that many bytes (at most max), aliasing the
// body.
func (d *Decoder) Blob(max int, what string) []byte {
	n := d.U32()
	if d.err != nil {
		return nil
	}
	if int64(n) > int64(max) {
		d.err = fmt.Errorf("%w: %s of %d bytes (at most %d)", ErrFrame, what, n, max)
		return nil
	}
	return d.take(int(n), what)
}

// Str reads a string of valid UTF-8 of at most MaxString bytes.
func (d *Decoder) Str() string {
	p := d.Blob(MaxString, "a string")
	if d.err == nil && !utf8.Valid(p) {
		d.err = fmt.Errorf("%w: string is not UTF-8", ErrFrame)
	}
	return string(p)
}

// End returns the first error, or one when bytes are left over.
func (d *Decoder) End() error {
	if d.err == nil && len(d.b) > 0 {
		d.err = fmt.Errorf("%w: %d bytes after the last field", ErrFrame, len(d.b))
	}
	return d.err
}
