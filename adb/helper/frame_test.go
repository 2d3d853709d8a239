package helper

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func hello() Hello {
	return Hello{Protocol: 1, Version: "1.0.0+0123456789abcdef", SDK: 34, Features: FeatureTree | FeatureInject | FeatureText | FeatureClipboard | FeatureScreenshot}
}

func rawFrame(length uint32, rest ...byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, length), rest...)
}

func TestReadFrameRoundTrip(t *testing.T) {
	t.Parallel()
	var stream []byte
	stream = AppendHello(stream, hello())
	stream = AppendFrame(stream, KindRequest, 7, Tap(10, -1, 0, 2).Body)
	big := bytes.Repeat([]byte{0xAB}, preallocMax+10)
	stream = AppendFrame(stream, KindOK, 8, big)
	r := bytes.NewReader(stream)
	f, err := ReadFrame(r)
	if err != nil {
		t.Fatal(err)
	}
	h, err := ParseHello(f)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(hello(), h); diff != "" {
		t.Fatalf("hello (-want +got):\n%s", diff)
	}
	f, err = ReadFrame(r)
	if err != nil || f.Kind != KindRequest || f.ID != 7 || !bytes.Equal(f.Body, Tap(10, -1, 0, 2).Body) {
		t.Fatalf("request frame %+v, %v", f, err)
	}
	f, err = ReadFrame(r)
	if err != nil || !bytes.Equal(f.Body, big) {
		t.Fatalf("big frame: %d bytes, %v", len(f.Body), err)
	}
	if _, err := ReadFrame(r); err != io.EOF {
		t.Fatalf("after the last frame: %v, want io.EOF", err)
	}
}

// TestBadFrames: every malformed input is an ErrFrame, never a panic nor a
// frame.
func TestBadFrames(t *testing.T) {
	t.Parallel()
	okHello := AppendHello(nil, hello())
	badMagic := bytes.Clone(okHello)
	copy(badMagic[9:], "XDBH")
	badVersion := AppendHello(nil, Hello{Protocol: 2, Version: "x"})
	longStr := append([]byte(Magic), 0, 1)
	longStr = binary.BigEndian.AppendUint32(longStr, MaxString+1)
	longStr = append(longStr, make([]byte, MaxString+1)...)
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"too long", rawFrame(MaxFrame+1, KindOK, 0, 0, 0, 1), "out of"},
		{"too short", rawFrame(4, KindOK, 0, 0, 0), "out of"},
		{"cut in the length", []byte{0, 0}, "inside the length"},
		{"cut in the header", rawFrame(9, KindOK, 0), "cut short"},
		{"cut in the body", rawFrame(9, KindOK, 0, 0, 0, 1, 'a'), "cut short"},
		{"cut in a big body", rawFrame(MaxFrame, append([]byte{KindOK, 0, 0, 0, 1}, make([]byte, preallocMax+1)...)...), "cut short"},
		{"bad kind", rawFrame(5, 0x13, 0, 0, 0, 1), "unknown kind"},
		{"bad kind zero", rawFrame(5, 0, 0, 0, 0, 0), "unknown kind"},
		{"bad magic", badMagic, "bad magic"},
		{"bad protocol version", badVersion, "protocol version"},
		{"hello not first", AppendFrame(nil, KindOK, 1, nil), "want HELLO"},
		{"hello with an id", AppendFrame(nil, KindHello, 3, okHello[9:]), "want HELLO"},
		{"hello cut", AppendFrame(nil, KindHello, 0, okHello[9:len(okHello)-2]), "body ends"},
		{"hello with extra bytes", AppendFrame(nil, KindHello, 0, append(bytes.Clone(okHello[9:]), 0)), "after the last field"},
		{"string over cap", AppendFrame(nil, KindHello, 0, longStr), "at most"},
		{"string not utf-8", AppendHello(nil, Hello{Protocol: 1, Version: "\xff"}), "not UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, err := ReadFrame(bytes.NewReader(tc.in))
			if err == nil {
				_, err = ParseHello(f)
			}
			if !errors.Is(err, ErrFrame) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrFrame with %q", err, tc.want)
			}
		})
	}
}

func TestBadBodies(t *testing.T) {
	t.Parallel()
	shot := func(w, h uint32, secure uint8, n uint32, img []byte) []byte {
		e := (&Encoder{}).U32(w).U32(h).U32(1080).U32(2400).U8(secure).U32(n)
		return append(e.Bytes(), img...)
	}
	for _, tc := range []struct {
		name  string
		parse func() error
		want  string
	}{
		{"empty ok with bytes", func() error { return ParseEmpty(OpTap, []byte{1}) }, "after the last field"},
		{"tree cut", func() error { _, err := ParseTree([]byte{0, 0, 0, 3, 0, 0, 0, 9, '<'}); return err }, "body ends"},
		{"text bad method", func() error {
			_, err := ParseText((&Encoder{}).Str("type").Bool(true).Str("x").Bytes())
			return err
		}, "method"},
		{"text bad bool", func() error {
			_, err := ParseText((&Encoder{}).Str("paste").U8(2).Str("x").Bytes())
			return err
		}, "boolean"},
		{"shot zero size", func() error { _, err := ParseShot(shot(0, 10, 0, 1, []byte{1})); return err }, "size"},
		{"shot image cut", func() error { _, err := ParseShot(shot(10, 10, 0, 5, []byte{1})); return err }, "body ends"},
		{"error cut", func() error { _, err := ParseError(OpTree, (&Encoder{}).Str("busy").Bytes()); return err }, "body ends"},
		{"clip over cap", func() error {
			_, err := ParseClip(binary.BigEndian.AppendUint32(nil, MaxString+1))
			return err
		}, "at most"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if err := tc.parse(); !errors.Is(err, ErrFrame) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrFrame with %q", err, tc.want)
			}
		})
	}
}

func TestGoodBodies(t *testing.T) {
	t.Parallel()
	tr, err := ParseTree((&Encoder{}).U32(2).Str("<hierarchy/>").Bytes())
	if err != nil || tr.Nodes != 2 || string(tr.XML) != "<hierarchy/>" {
		t.Fatalf("tree %+v %v", tr, err)
	}
	tx, err := ParseText((&Encoder{}).Str("paste").Bool(true).Str("名前").Bytes())
	if err != nil || tx != (TextResult{Method: "paste", ReadBackOK: true, ReadBack: "名前"}) {
		t.Fatalf("text %+v %v", tx, err)
	}
	re, err := ParseError(OpTree, (&Encoder{}).Str(CodeBusy).Str("uiautomation busy").Bytes())
	if err != nil || re.Code != CodeBusy || !re.NotDone() {
		t.Fatalf("error %+v %v", re, err)
	}
	sh, err := ParseShot(append((&Encoder{}).U32(512).U32(1138).U32(1080).U32(2400).Bool(true).U32(3).Bytes(), 1, 2, 3))
	if err != nil || sh.Width != 512 || !sh.Secure || len(sh.Image) != 3 {
		t.Fatalf("shot %+v %v", sh, err)
	}
	if got := (FeatureTree | FeatureScreenshot).String(); got != "tree,screenshot" {
		t.Fatalf("features %q", got)
	}
	if !OpTree.Reads() || OpTap.Reads() || OpText.Reads() {
		t.Fatal("Reads")
	}
}

// FuzzReadFrame feeds arbitrary bytes to the frame reader and every body
// decoder: no panic, no frame out of bounds, and a frame read re-encodes
// to the bytes it came from.
func FuzzReadFrame(f *testing.F) {
	f.Add(AppendHello(nil, hello()))
	f.Add(AppendFrame(nil, KindOK, 1, (&Encoder{}).U32(1).Str("<hierarchy/>").Bytes()))
	f.Add(AppendFrame(nil, KindError, 2, (&Encoder{}).Str("busy").Str("uiautomation busy").Bytes()))
	f.Add(AppendFrame(nil, KindOK, 3, (&Encoder{}).Str("set_text").Bool(true).Str("abc").Bytes()))
	f.Add(rawFrame(MaxFrame+1, KindOK))
	f.Add(rawFrame(5, 0x13, 0, 0, 0, 1))
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bytes.NewReader(in)
		for {
			fr, err := ReadFrame(r)
			if err != nil {
				if err != io.EOF && !errors.Is(err, ErrFrame) {
					t.Fatalf("error %v is neither io.EOF nor ErrFrame", err)
				}
				return
			}
			if len(fr.Body) > MaxFrame-MinFrame {
				t.Fatalf("body of %d bytes", len(fr.Body))
			}
			enc := AppendFrame(nil, fr.Kind, fr.ID, fr.Body)
			if back, err := ReadFrame(bytes.NewReader(enc)); err != nil || !bytes.Equal(back.Body, fr.Body) {
				t.Fatalf("re-encoded frame does not read back: %v", err)
			}
			_, _ = ParseHello(fr)
			_, _ = ParseError(OpTree, fr.Body)
			_ = ParseEmpty(OpTap, fr.Body)
			_, _ = ParseTree(fr.Body)
			_, _ = ParseText(fr.Body)
			_, _ = ParseClip(fr.Body)
			if s, err := ParseShot(fr.Body); err == nil && (s.Width <= 0 || s.Width > maxSide) {
				t.Fatalf("shot width %d", s.Width)
			}
		}
	})
}
