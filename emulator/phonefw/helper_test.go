package phonefw

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/internal/testkit"
)

// The helper's own code (the committed adb/helper/helper.jar, the bytes
// the binary ships) runs on the host JVM against the fake framework of
// each modeled SDK, driven through its framed protocol by an independent
// client written here from the protocol's text.

func helperJar(t testing.TB) []byte {
	t.Helper()
	if err := Tools(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../../adb/helper/helper.jar")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// canned is a Phone with one screen: a login form whose field text the
// helper can set, a clipboard, a frame, and a log of what was injected.
type canned struct {
	mu      sync.Mutex
	busy    bool
	dump    []byte // when set, served as is
	field   string
	clip    string
	held    bool
	w, h    int
	rot     int
	motions []Motion
	keys    []Key
	actions []string
}

func (c *canned) Connect(flags int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.busy || c.held {
		return ErrBusy
	}
	c.held = true
	return nil
}

func (c *canned) Disconnect() { c.mu.Lock(); c.held = false; c.mu.Unlock() }

func (c *canned) WaitIdle(ctx context.Context, idle, timeout time.Duration) bool { return true }

func (c *canned) Display() (int, int, int) { return c.w, c.h, c.rot }

const loginXML = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.example" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]"><node index="0" text="Name &amp; &quot;title&quot;" resource-id="com.example:id/label" class="android.widget.TextView" package="com.example" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[40,100][1040,200]" /><node index="1" text="%s" resource-id="com.example:id/name" class="android.widget.EditText" package="com.example" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="true" scrollable="false" long-clickable="true" password="false" selected="false" bounds="[40,220][1040,340]" /><node index="2" text="" resource-id="com.example:id/go" class="android.widget.ImageButton" package="com.example" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[40,400][1040,3000]" /></node></hierarchy>`

func (c *canned) Dump() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dump != nil {
		return c.dump
	}
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
	return fmt.Appendf(nil, loginXML, r.Replace(c.field))
}

func (c *canned) Motion(ctx context.Context, m Motion) bool {
	c.mu.Lock()
	c.motions = append(c.motions, m)
	c.mu.Unlock()
	return true
}

func (c *canned) Key(ctx context.Context, k Key) bool {
	c.mu.Lock()
	c.keys = append(c.keys, k)
	c.mu.Unlock()
	return true
}

func (c *canned) Action(path []int, action int, arg, arg2 string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.actions = append(c.actions, fmt.Sprint(path, action))
	if fmt.Sprint(path) != "[0 1]" {
		return false
	}
	switch action {
	case ActionSetText:
		c.field = arg
	case ActionPaste:
		c.field += c.clip
	}
	return true
}

func (c *canned) ClipGet() string  { c.mu.Lock(); defer c.mu.Unlock(); return c.clip }
func (c *canned) ClipSet(s string) { c.mu.Lock(); c.clip = s; c.mu.Unlock() }

// snapshot copies what the helper did so far.
func (c *canned) snapshot() *canned {
	c.mu.Lock()
	defer c.mu.Unlock()
	return &canned{held: c.held, motions: append([]Motion(nil), c.motions...), keys: append([]Key(nil), c.keys...), actions: append([]string(nil), c.actions...)}
}

func (c *canned) Encode(ctx context.Context, format string, w, h int) {}

func (c *canned) Screenshot(ctx context.Context) []byte {
	img := image.NewRGBA(image.Rect(0, 0, c.w, c.h))
	for y := 0; y < c.h; y++ {
		for x := 0; x < c.w; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 200, 255})
		}
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

// client speaks the helper protocol v1 over the VM's stdin and stdout.
type client struct {
	t      testing.TB
	stderr *testkit.LogBuffer
	in     io.WriteCloser
	out    *bufio.Reader
	next   uint32
	done   chan result
}

type result struct {
	code int
	err  error
}

type frame struct {
	kind byte
	id   uint32
	body []byte
}

// NewClient speaks the protocol over a helper's stdin (in) and stdout
// (out): for the end-to-end test through the real adb server.
func NewClient(t *testing.T, in io.WriteCloser, out io.Reader) *Client {
	return &client{t: t, in: in, out: bufio.NewReader(out), done: make(chan result, 1)}
}

// Client is the test client, for the external test package.
type Client = client

// Hello reads HELLO and returns its sdk, features and reason.
func (c *client) Hello() (sdk, features int, reason string) {
	h := c.hello()
	return h.sdk, h.features, h.reason
}

// Call sends one request; see call.
func (c *client) Call(op byte, fields ...any) (body []byte, errCode, errMsg string) {
	c.t.Helper()
	return c.call(op, fields...)
}

// Str, U8 and U32 read an answer's fields in order.
func Fields(body []byte) *Decoder { return &decoder{b: body} }

// Decoder reads answer fields.
type Decoder = decoder

func (d *decoder) Str() string { return d.str() }
func (d *decoder) U8() int     { return int(d.u8()) }
func (d *decoder) U32() int    { return d.u32() }

func start(t testing.TB, sdk int, p Phone) *client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr testkit.LogBuffer
	c := &client{t: t, stderr: &stderr, in: inW, out: bufio.NewReader(outR), done: make(chan result, 1)}
	go func() {
		code, err := Run(ctx, Spec{Jar: helperJar(t), Main: "com.adbconnector.helper.Main", SDK: sdk,
			Env:   []string{"CLASSPATH=/data/local/tmp/adbc-helper-0123456789abcdef.jar"},
			Stdin: inR, Stdout: outW, Stderr: &stderr, Phone: p})
		outW.Close()
		c.done <- result{code, err}
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		if t.Failed() {
			t.Logf("helper stderr:\n%s", stderr.String())
		}
	})
	return c
}

func (c *client) read() frame {
	c.t.Helper()
	var hdr [9]byte
	if _, err := io.ReadFull(c.out, hdr[:]); err != nil {
		c.t.Fatalf("read frame: %v", err)
	}
	n := binary.BigEndian.Uint32(hdr[:4])
	if n < 5 || n > 16<<20 {
		c.t.Fatalf("frame length %d", n)
	}
	body := make([]byte, n-5)
	if _, err := io.ReadFull(c.out, body); err != nil {
		c.t.Fatalf("read body: %v", err)
	}
	return frame{hdr[4], binary.BigEndian.Uint32(hdr[5:9]), body}
}

func (c *client) send(kind byte, body []byte) uint32 {
	c.next++
	var b []byte
	b = binary.BigEndian.AppendUint32(b, uint32(len(body)+5))
	b = append(b, kind)
	b = binary.BigEndian.AppendUint32(b, c.next)
	b = append(b, body...)
	if _, err := c.in.Write(b); err != nil {
		c.t.Fatalf("write: %v", err)
	}
	return c.next
}

// call sends one request (op then fields) and returns the answer's body;
// errCode is "" for OK.
func (c *client) call(op byte, fields ...any) (body []byte, errCode, errMsg string) {
	c.t.Helper()
	req := []byte{op}
	for _, f := range fields {
		switch v := f.(type) {
		case uint8:
			req = append(req, v)
		case int32:
			req = binary.BigEndian.AppendUint32(req, uint32(v))
		case uint32:
			req = binary.BigEndian.AppendUint32(req, v)
		case string:
			req = binary.BigEndian.AppendUint32(req, uint32(len(v)))
			req = append(req, v...)
		case []byte:
			req = append(req, v...)
		default:
			c.t.Fatalf("field %T", f)
		}
	}
	id := c.send(0x10, req)
	f := c.read()
	if f.id != id {
		c.t.Fatalf("answer id %d, want %d", f.id, id)
	}
	switch f.kind {
	case 0x11:
		return f.body, "", ""
	case 0x12:
		d := decoder{b: f.body}
		return nil, d.str(), d.str()
	}
	c.t.Fatalf("answer kind %#x", f.kind)
	return nil, "", ""
}

func (c *client) wait() result {
	c.t.Helper()
	select {
	case r := <-c.done:
		return r
	case <-time.After(time.Minute):
		c.t.Fatal("helper did not exit")
	}
	return result{}
}

type decoder struct{ b []byte }

func (d *decoder) u8() byte    { v := d.b[0]; d.b = d.b[1:]; return v }
func (d *decoder) u16() int    { v := binary.BigEndian.Uint16(d.b); d.b = d.b[2:]; return int(v) }
func (d *decoder) u32() int    { v := binary.BigEndian.Uint32(d.b); d.b = d.b[4:]; return int(v) }
func (d *decoder) str() string { n := d.u32(); s := string(d.b[:n]); d.b = d.b[n:]; return s }

type hello struct {
	version, sdk, features int
	helper, reason         string
}

func (c *client) hello() hello {
	c.t.Helper()
	f := c.read()
	if f.kind != 0x01 || f.id != 0 || !bytes.HasPrefix(f.body, []byte("ADBH")) {
		c.t.Fatalf("first frame kind %#x id %d body %q: not HELLO", f.kind, f.id, f.body)
	}
	d := decoder{b: f.body[4:]}
	h := hello{version: d.u16(), helper: d.str(), sdk: d.u32(), features: d.u32(), reason: d.str()}
	if len(d.b) != 0 {
		c.t.Fatalf("HELLO has %d extra bytes", len(d.b))
	}
	return h
}

func TestHelperOnEachSDK(t *testing.T) {
	for _, sdk := range Modeled {
		t.Run(fmt.Sprint("sdk", sdk), func(t *testing.T) {
			p := &canned{w: 1080, h: 2400, field: "old"}
			c := start(t, sdk, p)
			h := c.hello()
			if h.version != 1 || h.sdk != sdk || h.features != 31 || h.reason != "" || h.helper != "1.0.0+0123456789abcdef" {
				t.Fatalf("HELLO %+v", h)
			}
			// Each SDK takes its own reflection path: the UiAutomation
			// constructor, the cache, the injector, the clipboard signature.
			paths := map[int]string{
				29: "sdk=29 ui=UiAutomation(Looper) cache=android.view.accessibility.AccessibilityInteractionClient input=android.hardware.input.InputManager clip_args=2",
				33: "sdk=33 ui=UiAutomation(Looper) cache=android.view.accessibility.AccessibilityInteractionClient input=android.hardware.input.InputManager clip_args=3",
				34: "sdk=34 ui=UiAutomation(Context) cache=android.app.UiAutomation input=android.hardware.input.InputManagerGlobal clip_args=4",
			}
			// stderr is a stream of its own: its line may follow HELLO.
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			if !c.stderr.Wait(ctx, "adbc-helper: "+paths[sdk]+"\n") {
				t.Fatalf("stderr %q, want the paths %q", c.stderr.String(), paths[sdk])
			}
			if _, code, msg := c.call(1); code != "" {
				t.Fatalf("PING: %s %s", code, msg)
			}

			// TREE: the dump as served (the canned screen is already what
			// uiautomator writes for it) with the NAF rule applied: the
			// unlabelled clickable ImageButton is NAF, and its bounds are
			// clipped to the display.
			body, code, msg := c.call(2, uint32(50), uint32(1000))
			if code != "" {
				t.Fatalf("TREE: %s %s", code, msg)
			}
			d := decoder{b: body}
			n, xml := d.u32(), d.str()
			want := strings.Replace(string(p.Dump()), `<node index="2"`, `<node NAF="true" index="2"`, 1)
			want = strings.Replace(want, `[40,400][1040,3000]`, `[40,400][1040,2400]`, 1)
			if sdk >= 30 {
				want = strings.ReplaceAll(want, `"[40,400][1040,2400]" />`, `"[40,400][1040,2400]" drawing-order="0" hint="" />`)
				want = strings.ReplaceAll(want, `"[40,220][1040,340]" />`, `"[40,220][1040,340]" drawing-order="0" hint="" />`)
				want = strings.ReplaceAll(want, `"[40,100][1040,200]" />`, `"[40,100][1040,200]" drawing-order="0" hint="" />`)
				want = strings.ReplaceAll(want, `"[0,0][1080,2400]">`, `"[0,0][1080,2400]" drawing-order="0" hint="">`)
			}
			if n != 4 || xml != want {
				t.Fatalf("TREE %d nodes:\n%s\nwant:\n%s", n, xml, want)
			}

			// TEXT: CJK into the focused field, replacing; read back.
			body, code, msg = c.call(6, "张伟 O'Brien", uint8(1), uint8(0), int32(-1), int32(-1))
			if code != "" {
				t.Fatalf("TEXT: %s %s", code, msg)
			}
			d = decoder{b: body}
			if m, ok, back := d.str(), d.u8(), d.str(); m != "set_text" || ok != 1 || back != "张伟 O'Brien" {
				t.Fatalf("TEXT answered %q %d %q", m, ok, back)
			}
			// The tree after it shows the new text: the cache was cleared.
			body, _, _ = c.call(2, uint32(0), uint32(0))
			d = decoder{b: body}
			if d.u32(); !strings.Contains(d.str(), `text="张伟 O&apos;Brien"`) && !strings.Contains(string(body), `张伟 O'Brien`) {
				t.Fatalf("tree after TEXT does not show the text: %s", body)
			}

			// CLIP_SET then CLIP_GET.
			if _, code, _ := c.call(8, "剪贴板 ✓"); code != "" {
				t.Fatalf("CLIP_SET: %s", code)
			}
			body, code, _ = c.call(7)
			if d := (decoder{b: body}); code != "" || d.str() != "剪贴板 ✓" {
				t.Fatalf("CLIP_GET %q %s", body, code)
			}

			// TAP, long press, double tap, SWIPE, KEY, PINCH.
			for _, r := range []struct {
				op     byte
				fields []any
			}{
				{3, []any{int32(100), int32(200), uint32(0), uint8(1)}},
				{3, []any{int32(100), int32(200), uint32(0), uint8(2)}},
				{4, []any{int32(500), int32(1800), int32(500), int32(600), uint32(100)}},
				{5, []any{uint32(4), uint8(0)}},
				{5, []any{uint32(26), uint8(1)}},
				{10, []any{int32(540), int32(1200), uint32(2000), uint32(64)}},
			} {
				if _, code, msg := c.call(r.op, r.fields...); code != "" {
					t.Fatalf("op %d: %s %s", r.op, code, msg)
				}
			}
			s := p.snapshot()
			acts := []int{}
			for _, m := range s.motions {
				acts = append(acts, m.Action)
				if m.Source != SourceTouchscreen {
					t.Fatalf("motion source %#x", m.Source)
				}
			}
			got := fmt.Sprint(acts)
			wantActs := "[0 1 0 1 0 1 0 2 2 2 2 2 2 1 0 261 2 2 2 2 262 1]"
			if got != wantActs {
				t.Fatalf("motions %s, want %s", got, wantActs)
			}
			if m := s.motions[0]; m.X[0] != 100 || m.Y[0] != 200 {
				t.Fatalf("tap at %v,%v", m.X, m.Y)
			}
			if m := s.motions[12]; m.X[0] != 500 || m.Y[0] != 600 {
				t.Fatalf("last swipe move at %v,%v", m.X, m.Y)
			}
			if m := s.motions[19]; len(m.X) != 2 || m.X[0] != 240 || m.X[1] != 840 {
				t.Fatalf("last pinch move %v", m.X)
			}
			keys := fmt.Sprint(s.keys)
			if keys != fmt.Sprint([]Key{
				{Action: 0, Code: 4, DownTime: s.keys[0].DownTime, Event: s.keys[0].Event},
				{Action: 1, Code: 4, DownTime: s.keys[0].DownTime, Event: s.keys[1].Event},
				{Action: 0, Code: 26, DownTime: s.keys[2].DownTime, Event: s.keys[2].Event},
				{Action: 0, Code: 26, Repeat: 1, Flags: 0x80, DownTime: s.keys[2].DownTime, Event: s.keys[2].DownTime + 500},
				{Action: 1, Code: 26, DownTime: s.keys[2].DownTime, Event: s.keys[4].Event},
			}) {
				t.Fatalf("keys %v", s.keys)
			}

			// SHOT: a 1080x2400 frame as a JPEG whose long side is 240.
			body, code, msg = c.call(9, uint32(240), uint8(1), uint8(80))
			if code != "" {
				t.Fatalf("SHOT: %s %s", code, msg)
			}
			d = decoder{b: body}
			w, hh, dw, dh, sec, nimg := d.u32(), d.u32(), d.u32(), d.u32(), d.u8(), d.u32()
			if w != 108 || hh != 240 || dw != 1080 || dh != 2400 || sec != 0 || nimg != len(d.b) || !bytes.HasPrefix(d.b, []byte{0xff, 0xd8}) {
				t.Fatalf("SHOT %dx%d of %dx%d secure %d, %d bytes", w, hh, dw, dh, sec, nimg)
			}

			// Bad requests: refused before anything runs, the link stays up.
			before := len(p.snapshot().motions)
			if _, code, _ := c.call(3, int32(1), int32(2), uint32(0), uint8(1), uint8(9)); code != "bad_request" {
				t.Fatalf("TAP with a trailing byte: %q", code)
			}
			if _, code, _ := c.call(3, int32(1)); code != "bad_request" {
				t.Fatalf("short TAP: %q", code)
			}
			if _, code, _ := c.call(3, int32(1), int32(2), uint32(0), uint8(3)); code != "bad_request" {
				t.Fatalf("TAP count 3: %q", code)
			}
			if _, code, _ := c.call(99); code != "unsupported" {
				t.Fatalf("op 99: %q", code)
			}
			if after := len(p.snapshot().motions); after != before {
				t.Fatalf("bad requests injected %d events", after-before)
			}
			if _, code, _ := c.call(1); code != "" {
				t.Fatalf("PING after bad requests: %s", code)
			}
			if _, code, _ := c.call(11); code != "" {
				t.Fatalf("QUIT: %s", code)
			}
			if r := c.wait(); r.err != nil || r.code != 0 {
				t.Fatalf("exit %d %v", r.code, r.err)
			}
			if p.snapshot().held {
				t.Fatal("the UiAutomation slot is still held after exit")
			}
		})
	}
}

// TestHelperSlotBusy: with the UiAutomation slot held elsewhere the helper
// still starts, says why, serves input and clipboard, and answers `busy`.
func TestHelperSlotBusy(t *testing.T) {
	p := &canned{w: 1080, h: 2400, busy: true}
	c := start(t, 34, p)
	h := c.hello()
	if h.features != 2|8 || h.reason != "uiautomation busy" {
		t.Fatalf("HELLO %+v", h)
	}
	for _, op := range []byte{2, 9} {
		fields := []any{uint32(0), uint32(0)}
		if op == 9 {
			fields = []any{uint32(0), uint8(2), uint8(0)}
		}
		if _, code, _ := c.call(op, fields...); code != "busy" {
			t.Fatalf("op %d while busy: %q", op, code)
		}
	}
	if _, code, _ := c.call(3, int32(1), int32(2), uint32(0), uint8(1)); code != "" {
		t.Fatalf("TAP while busy: %q", code)
	}
	c.in.Close() // stdin EOF: exit 0
	if r := c.wait(); r.err != nil || r.code != 0 {
		t.Fatalf("exit %d %v", r.code, r.err)
	}
}

// TestHelperBadFrames: an unknown kind or a bad length ends the helper
// with status 2.
func TestHelperBadFrames(t *testing.T) {
	for name, raw := range map[string][]byte{
		"kind":   {0, 0, 0, 6, 0x42, 0, 0, 0, 1, 1},
		"length": {0, 0, 0, 4, 0x10, 0, 0, 0},
		"huge":   {0x01, 0, 0, 1, 0x10, 0, 0, 0, 1},
	} {
		t.Run(name, func(t *testing.T) {
			c := start(t, 33, &canned{w: 100, h: 100})
			c.hello()
			if _, err := c.in.Write(raw); err != nil {
				t.Fatal(err)
			}
			if r := c.wait(); r.err != nil || r.code != 2 {
				t.Fatalf("exit %d %v, want 2", r.code, r.err)
			}
		})
	}
}
