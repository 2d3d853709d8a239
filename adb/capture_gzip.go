package adb

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
)

// The compressed raw capture: `screencap | gzip -1` through exec-out. A
// UI screen is mostly flat colour, so deflate's fastest level shrinks the
// 10 MB of a 1080x2400 frame to a few hundred KB, and the phone spends
// far less CPU on it than on a PNG encode (no filtering, no Huffman tuning
// per row: AOSP external/toybox toys/lsb/gzip.c hands the stream to zlib's
// deflate). It needs nothing installed: toybox gzip is on stock Android 9
// and later; an older phone's shell answers "gzip: inaccessible or not
// found" (status 127), checked once per connection with `command -v gzip`.
//
// The host inflates as it reads, bounded by the frame's own header: the
// raw reader takes exactly the pixels the header declares (itself bounded
// by maxRawFrame) and one byte more to prove the end, so a stream that
// inflates to more (a gzip bomb) stops there as ErrProtocol; a corrupt or
// cut stream, a bad checksum or data after the gzip member are ErrProtocol
// too, and Screenshot serves the call from another mode.

// errNoGzip marks the compressed capture as unavailable on the device: it
// has no gzip (before Android 9).
var errNoGzip = errors.New("adb: no gzip on the device (toybox gzip is Android 9+)")

// errSilent marks a compressed capture whose pipeline wrote nothing: with
// gzip present, gzip writes at least its header whatever screencap does.
var errSilent = errors.New("no output")

// gzipMagic starts every gzip member (RFC 1952 section 2.3.1).
var gzipMagic = []byte{0x1f, 0x8b}

// gzipSource is the compressed stream as the gzip reader reads it: it
// counts the bytes taken and keeps the transport's own error apart from
// the decoder's.
type gzipSource struct {
	br  *bufio.Reader
	n   int64
	err error // the underlying read error, other than io.EOF
}

func (s *gzipSource) Read(p []byte) (int, error) {
	n, err := s.br.Read(p)
	s.n += int64(n)
	s.note(err)
	return n, err
}

func (s *gzipSource) ReadByte() (byte, error) {
	b, err := s.br.ReadByte()
	if err == nil {
		s.n++
	}
	s.note(err)
	return b, err
}

func (s *gzipSource) note(err error) {
	if err != nil && !errors.Is(err, io.EOF) && s.err == nil {
		s.err = err
	}
}

// inflater reads the inflated frame: a decoder error is ErrProtocol
// (malformed output), the transport's error is returned as it is.
type inflater struct {
	zr  *gzip.Reader
	src *gzipSource
}

func (r inflater) Read(p []byte) (int, error) {
	n, err := r.zr.Read(p)
	switch {
	case err == nil, err == io.EOF:
		return n, err
	case r.src.err != nil:
		return n, r.src.err
	}
	return n, fmt.Errorf("%w: gzip: %v", ErrProtocol, err)
}

// readRawGzip reads one `screencap | gzip -1` stream from br: a single
// gzip member holding a raw screencap, read as readRawScreencap does
// (pooled likewise). The frame's n is the compressed size; it is complete
// when the gzip trailer checked out (its CRC and length prove the frame
// whole, whichever header it has). Output that is not gzip wraps
// ErrProtocol (and errNoGzip when the shell says gzip is not found,
// errSilent when there is none at all); an error reading br is returned
// as is.
func readRawGzip(br *bufio.Reader, pooled bool) (rawFrame, error) {
	src := &gzipSource{br: br}
	head, err := br.Peek(len(gzipMagic))
	if !bytes.Equal(head, gzipMagic) {
		if err != nil && !errors.Is(err, io.EOF) {
			return rawFrame{}, err
		}
		if len(head) == 0 {
			return rawFrame{}, fmt.Errorf("%w: raw-gzip: %w", ErrProtocol, errSilent)
		}
		b, _ := br.Peek(64)
		if bytes.Contains(b, []byte("not found")) {
			return rawFrame{}, fmt.Errorf("%w: raw-gzip: %q: %w", ErrProtocol, b, errNoGzip)
		}
		return rawFrame{}, fmt.Errorf("%w: raw-gzip: not a gzip stream (%q)", ErrProtocol, b)
	}
	zr, err := gzip.NewReader(src)
	if err != nil {
		if src.err != nil {
			return rawFrame{}, src.err
		}
		return rawFrame{}, fmt.Errorf("%w: raw-gzip: %v", ErrProtocol, err)
	}
	// One member: toybox writes one, and a second would be unbounded.
	zr.Multistream(false)
	f, err := readRawScreencap(inflater{zr: zr, src: src}, pooled)
	if err != nil {
		return rawFrame{}, err
	}
	// The raw reader saw the end of the inflated data, so the trailer was
	// checked; nothing may follow the member.
	if _, err := src.ReadByte(); err == nil {
		f.release()
		return rawFrame{}, fmt.Errorf("%w: raw-gzip: data after the gzip stream", ErrProtocol)
	} else if !errors.Is(err, io.EOF) {
		f.release()
		return rawFrame{}, err
	}
	f.n, f.complete = src.n, true
	return f, nil
}

// gzipMissing reports whether the device lacks gzip: `command -v gzip`
// (mksh's builtin, on every Android) fails. An error running it is
// returned; the answer is then unknown.
func (d *Device) gzipMissing(ctx context.Context) (bool, error) {
	_, err := d.shortScript(ctx, "command -v gzip")
	var ee *ExitError
	switch {
	case err == nil:
		return false, nil
	case errors.As(err, &ee):
		return true, nil
	}
	return false, err
}
