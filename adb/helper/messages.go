package helper

import (
	"fmt"
	"strings"
)

// Feature is HELLO's feature bits: what the helper can serve.
type Feature uint32

// Feature bits.
const (
	FeatureTree       Feature = 1
	FeatureInject     Feature = 2
	FeatureText       Feature = 4
	FeatureClipboard  Feature = 8
	FeatureScreenshot Feature = 16
)

// String lists the set bits by name ("tree,inject"), "none" for none.
func (f Feature) String() string {
	var s []string
	for _, b := range []struct {
		f    Feature
		name string
	}{{FeatureTree, "tree"}, {FeatureInject, "inject"}, {FeatureText, "text"}, {FeatureClipboard, "clipboard"}, {FeatureScreenshot, "screenshot"}} {
		if f&b.f != 0 {
			s = append(s, b.name)
		}
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ",")
}

// Hello is the helper's first message.
type Hello struct {
	Protocol uint16
	// Version is the helper's own ("1.0.0+<hash16>").
	Version string
	// SDK is Build.VERSION.SDK_INT as the helper saw it.
	SDK      uint32
	Features Feature
	// Reason says why a feature is missing ("": none), e.g.
	// "uiautomation busy".
	Reason string
}

// ParseHello decodes a HELLO frame: kind, id 0, magic, protocol version
// ProtocolVersion and the fields after.
func ParseHello(f Frame) (Hello, error) {
	if f.Kind != KindHello || f.ID != 0 {
		return Hello{}, fmt.Errorf("%w: want HELLO first, got kind 0x%02x id %d", ErrFrame, f.Kind, f.ID)
	}
	d := NewDecoder(f.Body)
	magic := d.take(len(Magic), "the magic")
	if d.err == nil && string(magic) != Magic {
		return Hello{}, fmt.Errorf("%w: bad magic %q", ErrFrame, magic)
	}
	h := Hello{Protocol: d.U16()}
	if d.err == nil && h.Protocol != ProtocolVersion {
		return Hello{}, fmt.Errorf("%w: protocol version %d (want %d)", ErrFrame, h.Protocol, ProtocolVersion)
	}
	h.Version, h.SDK, h.Features, h.Reason = d.Str(), d.U32(), Feature(d.U32()), d.Str()
	if err := d.End(); err != nil {
		return Hello{}, fmt.Errorf("hello: %w", err)
	}
	return h, nil
}

// AppendHello encodes h as a HELLO frame (for tests and fuzz seeds: the
// helper is the one that sends it).
func AppendHello(dst []byte, h Hello) []byte {
	var e Encoder
	e.b = append(e.b, Magic...)
	e.U16(h.Protocol).Str(h.Version).U32(h.SDK).U32(uint32(h.Features)).Str(h.Reason)
	return AppendFrame(dst, KindHello, 0, e.Bytes())
}

// Op is a request's operation.
type Op uint8

// Operations.
const (
	OpPing    Op = 1
	OpTree    Op = 2
	OpTap     Op = 3
	OpSwipe   Op = 4
	OpKey     Op = 5
	OpText    Op = 6
	OpClipGet Op = 7
	OpClipSet Op = 8
	OpShot    Op = 9
	OpPinch   Op = 10
	OpQuit    Op = 11
)

var opNames = [...]string{OpPing: "ping", OpTree: "tree", OpTap: "tap", OpSwipe: "swipe", OpKey: "key", OpText: "text",
	OpClipGet: "clip_get", OpClipSet: "clip_set", OpShot: "shot", OpPinch: "pinch", OpQuit: "quit"}

// String is the op's name in lower case (a metrics label value).
func (o Op) String() string {
	if int(o) < len(opNames) && opNames[o] != "" {
		return opNames[o]
	}
	return fmt.Sprintf("op%d", uint8(o))
}

// Reads reports whether the op only reads the phone: one whose answer was
// lost may be asked again, or of the stock path, without acting twice.
func (o Op) Reads() bool {
	switch o {
	case OpPing, OpTree, OpClipGet, OpShot:
		return true
	}
	return false
}

// Request is one request body: the op and its fields.
type Request struct {
	Op   Op
	Body []byte
}

func req(op Op, fill func(e *Encoder)) Request {
	var e Encoder
	e.U8(uint8(op))
	if fill != nil {
		fill(&e)
	}
	return Request{Op: op, Body: e.Bytes()}
}

// Ping asks for an empty answer.
func Ping() Request { return req(OpPing, nil) }

// Quit asks the helper to answer and exit 0.
func Quit() Request { return req(OpQuit, nil) }

// ClipGet asks for the clipboard's text.
func ClipGet() Request { return req(OpClipGet, nil) }

// ClipSet sets the clipboard's text.
func ClipSet(text string) Request { return req(OpClipSet, func(e *Encoder) { e.Str(text) }) }

// Tree asks for the UI hierarchy once the screen has had no
// accessibility event for idleMS, waiting at most timeoutMS.
func Tree(idleMS, timeoutMS uint32) Request {
	return req(OpTree, func(e *Encoder) { e.U32(idleMS).U32(timeoutMS) })
}

// Tap taps at (x, y): held holdMS (0 a tap, >= 500 a long press), count
// 1 or 2 (a double tap).
func Tap(x, y int32, holdMS uint32, count uint8) Request {
	return req(OpTap, func(e *Encoder) { e.I32(x).I32(y).U32(holdMS).U8(count) })
}

// Swipe moves from (x1, y1) to (x2, y2) over durationMS.
func Swipe(x1, y1, x2, y2 int32, durationMS uint32) Request {
	return req(OpSwipe, func(e *Encoder) { e.I32(x1).I32(y1).I32(x2).I32(y2).U32(durationMS) })
}

// Key presses an Android key code, long or not.
func Key(code uint32, long bool) Request {
	return req(OpKey, func(e *Encoder) { e.U32(code).Bool(long) })
}

// Text types text into the focused field ((-1, -1)) or the field at
// (x, y), emptied first when clear.
func Text(text string, clear bool, x, y int32) Request {
	return req(OpText, func(e *Encoder) { e.Str(text).Bool(clear).Bool(false).I32(x).I32(y) })
}

// Image formats of Shot.
const (
	FormatJPEG uint8 = 1
	FormatPNG  uint8 = 2
)

// Shot asks for a screenshot scaled to maxSide (0: full size), encoded as
// format at quality (JPEG).
func Shot(maxSide uint32, format, quality uint8) Request {
	return req(OpShot, func(e *Encoder) { e.U32(maxSide).U8(format).U8(quality) })
}

// Pinch scales around (cx, cy) by scaleMilli/1000 over durationMS.
func Pinch(cx, cy int32, scaleMilli, durationMS uint32) Request {
	return req(OpPinch, func(e *Encoder) { e.I32(cx).I32(cy).U32(scaleMilli).U32(durationMS) })
}

// Error codes of KindError.
const (
	CodeBadRequest  = "bad_request"
	CodeUnsupported = "unsupported"
	CodeBusy        = "busy"
	CodeTimeout     = "timeout"
	CodeNotFound    = "not_found"
	CodeRefused     = "refused"
	CodeInternal    = "internal"
)

// RemoteError is a KindError answer.
type RemoteError struct {
	Op      Op
	Code    string
	Message string
}

func (e *RemoteError) Error() string {
	return fmt.Sprintf("helper %s: %s: %s", e.Op, e.Code, e.Message)
}

// NotDone reports whether the code says the helper did nothing on the
// phone for the request: the request was refused before it acted, so the
// stock path may do it instead. timeout and internal may come after an
// injection began.
func (e *RemoteError) NotDone() bool {
	switch e.Code {
	case CodeBadRequest, CodeUnsupported, CodeBusy, CodeNotFound, CodeRefused:
		return true
	}
	return false
}

// ParseError decodes a KindError body.
func ParseError(op Op, body []byte) (*RemoteError, error) {
	d := NewDecoder(body)
	e := &RemoteError{Op: op, Code: d.Str(), Message: d.Str()}
	if err := d.End(); err != nil {
		return nil, fmt.Errorf("helper %s error: %w", op, err)
	}
	return e, nil
}

// ParseEmpty checks an ok body with no fields (PING, TAP, SWIPE, KEY,
// CLIP_SET, PINCH, QUIT).
func ParseEmpty(op Op, body []byte) error {
	if err := NewDecoder(body).End(); err != nil {
		return fmt.Errorf("helper %s: %w", op, err)
	}
	return nil
}

// TreeResult is TREE's answer.
type TreeResult struct {
	Nodes uint32
	// XML is the hierarchy as `uiautomator dump` writes it (aliases the
	// frame's body).
	XML []byte
}

// ParseTree decodes TREE's ok body.
func ParseTree(body []byte) (TreeResult, error) {
	d := NewDecoder(body)
	r := TreeResult{Nodes: d.U32(), XML: d.Blob(MaxFrame, "the xml")}
	if err := d.End(); err != nil {
		return TreeResult{}, fmt.Errorf("helper tree: %w", err)
	}
	return r, nil
}

// TextResult is TEXT's answer.
type TextResult struct {
	// Method is "set_text" or "paste".
	Method     string
	ReadBackOK bool
	// ReadBack is the field's text after ("" for a password field).
	ReadBack string
}

// ParseText decodes TEXT's ok body.
func ParseText(body []byte) (TextResult, error) {
	d := NewDecoder(body)
	r := TextResult{Method: d.Str(), ReadBackOK: d.Bool(), ReadBack: d.Str()}
	if err := d.End(); err != nil {
		return TextResult{}, fmt.Errorf("helper text: %w", err)
	}
	if r.Method != "set_text" && r.Method != "paste" {
		return TextResult{}, fmt.Errorf("helper text: %w: method %q", ErrFrame, r.Method)
	}
	return r, nil
}

// ParseClip decodes CLIP_GET's ok body.
func ParseClip(body []byte) (string, error) {
	d := NewDecoder(body)
	s := d.Str()
	if err := d.End(); err != nil {
		return "", fmt.Errorf("helper clip_get: %w", err)
	}
	return s, nil
}

// ShotResult is SHOT's answer.
type ShotResult struct {
	// Width and Height are the image's; DeviceWidth and DeviceHeight the
	// screen's.
	Width, Height             int
	DeviceWidth, DeviceHeight int
	// Secure: a window forbids captures (FLAG_SECURE), shown black.
	Secure bool
	// Image is the encoded image (aliases the frame's body).
	Image []byte
}

// maxSide bounds the sizes SHOT may declare.
const maxSide = 1 << 15

// ParseShot decodes SHOT's ok body.
func ParseShot(body []byte) (ShotResult, error) {
	d := NewDecoder(body)
	w, h, dw, dh := d.U32(), d.U32(), d.U32(), d.U32()
	r := ShotResult{Secure: d.Bool(), Image: d.Blob(MaxFrame, "the image")}
	if err := d.End(); err != nil {
		return ShotResult{}, fmt.Errorf("helper shot: %w", err)
	}
	for _, v := range []uint32{w, h, dw, dh} {
		if v == 0 || v > maxSide {
			return ShotResult{}, fmt.Errorf("helper shot: %w: size %dx%d of %dx%d", ErrFrame, w, h, dw, dh)
		}
	}
	r.Width, r.Height, r.DeviceWidth, r.DeviceHeight = int(w), int(h), int(dw), int(dh)
	return r, nil
}
