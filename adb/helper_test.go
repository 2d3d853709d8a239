package adb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest/adbserver"
	"github.com/adb-connector/adb-connector/adb/helper"
	"github.com/adb-connector/adb-connector/adb/parse"
)

// These tests drive the host side of the phone helper through the real adb
// server against a scripted phone whose app_process is a scripted helper:
// one that speaks the protocol, or one that misbehaves in the ways a real
// phone's can (not found, crashing, hanging, garbage, a busy UiAutomation
// slot). The real helper's own code runs in the end-to-end tests.

// testJar stands for the helper's jar: a zip's first bytes, so it is not
// the placeholder.
var testJar = append([]byte("PK\x03\x04"), bytes.Repeat([]byte("adbc-helper-test "), 64)...)

const testUIXML = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">` +
	`<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.example" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]">` +
	`<node index="0" text="From the helper" resource-id="com.example:id/t" class="android.widget.TextView" package="com.example" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,200]" />` +
	`</node></hierarchy>`

const stockUIXML = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">` +
	`<node index="0" text="From uiautomator" resource-id="" class="android.widget.TextView" package="com.example" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,200]" /></hierarchy>`

// helperConn is the scripted helper's side of one helper stream.
type helperConn struct {
	t      *testing.T
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

func (c *helperConn) flush(w io.Writer) {
	if f, ok := w.(interface{ Flush() error }); ok {
		f.Flush()
	}
}

func (c *helperConn) write(b []byte) {
	c.stdout.Write(b)
	c.flush(c.stdout)
}

// hello sends HELLO for testJar with features and reason.
func (c *helperConn) hello(f helper.Feature, reason string) {
	c.write(helper.AppendHello(nil, helper.Hello{Protocol: 1, Version: "1.0.0+" + helper.Hash16Of(testJar), SDK: 34, Features: f, Reason: reason}))
}

func (c *helperConn) next() (helper.Frame, bool) {
	f, err := helper.ReadFrame(c.stdin)
	return f, err == nil
}

func (c *helperConn) ok(id uint32, body []byte) {
	c.write(helper.AppendFrame(nil, helper.KindOK, id, body))
}

func (c *helperConn) fail(id uint32, code, msg string) {
	c.write(helper.AppendFrame(nil, helper.KindError, id, (&helper.Encoder{}).Str(code).Str(msg).Bytes()))
}

// answer gives the usual answer to f: a tree, an empty OK, a text result.
func (c *helperConn) answer(f helper.Frame) {
	switch helper.Op(f.Body[0]) {
	case helper.OpTree:
		c.ok(f.ID, (&helper.Encoder{}).U32(2).Str(testUIXML).Bytes())
	case helper.OpText:
		c.ok(f.ID, (&helper.Encoder{}).Str("set_text").Bool(true).Str("x").Bytes())
	case helper.OpShot:
		d := helper.NewDecoder(f.Body[1:])
		side, format := d.U32(), d.U8()
		w, h := 1080, 2400
		if side > 0 {
			w, h = int(side)*1080/2400, int(side)
		}
		var img bytes.Buffer
		if format == helper.FormatJPEG {
			jpeg.Encode(&img, image.NewRGBA(image.Rect(0, 0, w, h)), nil)
		} else {
			png.Encode(&img, image.NewRGBA(image.Rect(0, 0, w, h)))
		}
		c.ok(f.ID, (&helper.Encoder{}).U32(uint32(w)).U32(uint32(h)).U32(1080).U32(2400).Bool(false).Str(img.String()).Bytes())
	default:
		c.ok(f.ID, nil)
	}
}

// allFeatures is what a helper with its UiAutomation connected offers.
const allFeatures = helper.FeatureTree | helper.FeatureInject | helper.FeatureText | helper.FeatureClipboard | helper.FeatureScreenshot

// goOn is what a serveLoop handler returns to read the next request.
const goOn = -1

// serveLoop is a scripted helper: HELLO with features and reason, then
// each request to handle, which answers it (or not) and returns goOn or
// the exit status to end with; stdin's end exits 0.
func serveLoop(features helper.Feature, reason string, handle func(c *helperConn, f helper.Frame) int) func(c *helperConn) int {
	return func(c *helperConn) int {
		c.hello(features, reason)
		for {
			f, ok := c.next()
			if !ok {
				return 0
			}
			if code := handle(c, f); code != goOn {
				return code
			}
		}
	}
}

// answerAll answers every request as a well-behaved helper, and exits
// after QUIT.
func answerAll(c *helperConn, f helper.Frame) int {
	c.answer(f)
	if helper.Op(f.Body[0]) == helper.OpQuit {
		return 0
	}
	return goOn
}

// serveAll is a well-behaved helper with every feature.
var serveAll = serveLoop(allFeatures, "", answerAll)

// misbehaveOn is a helper with every feature that answers every request
// but those of op, which it hands to bad.
func misbehaveOn(op helper.Op, bad func(c *helperConn, f helper.Frame) int) func(c *helperConn) int {
	return serveLoop(allFeatures, "", func(c *helperConn, f helper.Frame) int {
		if helper.Op(f.Body[0]) == op {
			return bad(c, f)
		}
		return answerAll(c, f)
	})
}

// helperPhone is a scripted phone (fakeBackend) whose app_process runs
// serve; it records the requests' ops and the stock commands run.
type helperPhone struct {
	*fakeBackend
	t     *testing.T
	serve func(c *helperConn) int

	mu     sync.Mutex
	starts int
	ops    []helper.Op
	cmds   []string
	ended  chan struct{} // a helper run ended (buffered)
}

func (p *helperPhone) Run(ctx context.Context, cmdline string, stdin io.Reader, stdout, stderr io.Writer) int {
	if !strings.Contains(cmdline, "app_process") {
		return p.fakeBackend.Run(ctx, cmdline, stdin, stdout, stderr)
	}
	p.mu.Lock()
	p.starts++
	serve := p.serve
	p.mu.Unlock()
	defer func() {
		select {
		case p.ended <- struct{}{}:
		default:
		}
	}()
	return serve(&helperConn{t: p.t, stdin: &opRecorder{r: stdin, p: p}, stdout: stdout, stderr: stderr})
}

// opRecorder notes the op of each request frame read through it.
type opRecorder struct {
	r   io.Reader
	p   *helperPhone
	buf []byte
}

func (o *opRecorder) Read(b []byte) (int, error) {
	n, err := o.r.Read(b)
	o.buf = append(o.buf, b[:n]...)
	for {
		f, ferr := helper.ReadFrame(bytes.NewReader(o.buf))
		if ferr != nil {
			break
		}
		o.buf = o.buf[9+len(f.Body):]
		if f.Kind == helper.KindRequest && len(f.Body) > 0 {
			o.p.mu.Lock()
			o.p.ops = append(o.p.ops, helper.Op(f.Body[0]))
			o.p.mu.Unlock()
		}
	}
	return n, err
}

func (p *helperPhone) counts() (starts int, ops []helper.Op, cmds []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.starts, slices.Clone(p.ops), slices.Clone(p.cmds)
}

// ranStock reports whether a stock command line starting with prefix ran.
func (p *helperPhone) ranStock(prefix string) bool {
	_, _, cmds := p.counts()
	return slices.ContainsFunc(cmds, func(c string) bool { return strings.HasPrefix(c, prefix) })
}

// helperEnv starts a scripted phone of sdk whose helper is serve, and a
// Client whose helper is testJar with deadlines short enough for a test.
func helperEnv(t *testing.T, sdk int, serve func(c *helperConn) int) (*helperPhone, *Device) {
	t.Helper()
	srv := adbserver.Start(t)
	c := newTestClient(t, Config{NoTracking: true, NoTouchEvents: true, StreamIdle: -1}, srv)
	c.helperCfg.jar, c.helperCfg.hash16 = testJar, helper.Hash16Of(testJar)
	c.helperCfg.path = helper.PathFor(c.helperCfg.hash16)
	c.helperCfg.start, c.helperCfg.tree, c.helperCfg.act, c.helperCfg.text = 3*time.Second, time.Second, time.Second, time.Second
	be := newFakeBackend()
	p := &helperPhone{fakeBackend: be, t: t, serve: serve, ended: make(chan struct{}, 16)}
	be.files["/data/local/tmp"] = fakeFile{mode: 0o040771}
	be.setHandler(func(_ context.Context, cmdline string, stdout, _ io.Writer) int {
		p.mu.Lock()
		p.cmds = append(p.cmds, cmdline)
		p.mu.Unlock()
		switch {
		case cmdline == "getprop":
			fmt.Fprintf(stdout, "[ro.build.version.sdk]: [%d]\n[ro.product.cpu.abi]: [arm64-v8a]\n", sdk)
		case strings.HasPrefix(cmdline, "uiautomator dump"):
			fmt.Fprint(stdout, "UI hierchary dumped to: /data/local/tmp/x.xml\n"+stockUIXML)
		case cmdline == "screencap -p":
			png.Encode(stdout, image.NewRGBA(image.Rect(0, 0, 108, 240)))
		case strings.HasPrefix(cmdline, "rm -f "):
			be.mu.Lock()
			for name := range be.files {
				if strings.HasPrefix(name, "/data/local/tmp/adbc-") {
					delete(be.files, name)
				}
			}
			be.mu.Unlock()
		}
		return 0
	})
	td := startBackend(t, c, srv, be, p)
	d, err := c.Device(td.Key)
	if err != nil {
		t.Fatal(err)
	}
	return p, d
}

func dumpText(t *testing.T, d *Device) string {
	t.Helper()
	root, err := d.UIDump(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range parse.Flatten(root) {
		if n.Text != "" {
			return n.Text
		}
	}
	return ""
}

// The helper serves the tree, taps, keys and text; the jar is pushed once
// and found by its name and size the next time.
func TestHelperServes(t *testing.T) {
	t.Parallel()
	p, d := helperEnv(t, 34, serveAll)
	if got := dumpText(t, d); got != "From the helper" {
		t.Fatalf("tree from %q, want the helper's", got)
	}
	if err := d.Tap(t.Context(), 10, 20); err != nil {
		t.Fatal(err)
	}
	if err := d.KeyEvent(t.Context(), "KEYCODE_HOME", "4"); err != nil {
		t.Fatal(err)
	}
	if err := d.Text(t.Context(), "名前 Zoë"); err != nil {
		t.Fatal(err)
	}
	if err := d.Swipe(t.Context(), 1, 2, 3, 4, 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	starts, ops, _ := p.counts()
	want := []helper.Op{helper.OpTree, helper.OpTap, helper.OpKey, helper.OpKey, helper.OpText, helper.OpSwipe}
	if starts != 1 || !slices.Equal(ops, want) {
		t.Fatalf("starts %d ops %v, want 1 and %v", starts, ops, want)
	}
	for _, stock := range []string{"uiautomator", "input"} {
		if p.ranStock(stock) {
			t.Fatalf("%s ran on the phone", stock)
		}
	}
	data, err := p.fakeBackend.Files().ReadFile(helper.PathFor(helper.Hash16Of(testJar)))
	if err != nil || !bytes.Equal(data, testJar) {
		t.Fatalf("jar on the phone: %d bytes, %v", len(data), err)
	}
	st := d.HelperStatus()
	if !st.Running || st.Version != "1.0.0+"+helper.Hash16Of(testJar) || st.SDK != 34 || st.Features != allFeatures {
		t.Fatalf("status %+v", st)
	}
	// Stopped (QUIT) and started again: the jar is not pushed again.
	d.StopHelper(t.Context())
	if st := d.HelperStatus(); st.Running {
		t.Fatalf("running after StopHelper: %+v", st)
	}
	p.fakeBackend.mu.Lock()
	f := p.fakeBackend.files[helper.PathFor(helper.Hash16Of(testJar))]
	f.mtime = timeZero
	p.fakeBackend.files[helper.PathFor(helper.Hash16Of(testJar))] = f
	p.fakeBackend.mu.Unlock()
	if got := dumpText(t, d); got != "From the helper" {
		t.Fatalf("tree from %q after a restart", got)
	}
	p.fakeBackend.mu.Lock()
	again := p.fakeBackend.files[helper.PathFor(helper.Hash16Of(testJar))].mtime
	p.fakeBackend.mu.Unlock()
	if !again.Equal(timeZero) {
		t.Fatal("the jar was pushed again though the phone had it")
	}
	counts := d.c.HelperCounts()
	if counts.Starts != 2 || counts.Calls[HelperCall{Op: "tree", Path: PathHelper}] != 2 || counts.Calls[HelperCall{Op: "tap", Path: PathHelper}] != 1 {
		t.Fatalf("counts %+v", counts)
	}
}

// A file of the helper's name but another size (a cut push, another
// build's leftover) is pushed over.
func TestHelperRepushesWrongSize(t *testing.T) {
	t.Parallel()
	p, d := helperEnv(t, 34, serveAll)
	path := helper.PathFor(helper.Hash16Of(testJar))
	p.fakeBackend.Files().WriteFile(path, testJar[:10], 0o644, timeZero)
	if got := dumpText(t, d); got != "From the helper" {
		t.Fatalf("tree from %q", got)
	}
	if data, _ := p.fakeBackend.Files().ReadFile(path); !bytes.Equal(data, testJar) {
		t.Fatalf("jar on the phone is %d bytes, want %d", len(data), len(testJar))
	}
}

// Each failure of the helper leaves the call to the stock path, which
// succeeds; a read is asked again of it, an action the helper may have
// applied is not.
func TestHelperFallbacks(t *testing.T) {
	t.Parallel()
	notFound := func(c *helperConn) int {
		fmt.Fprintln(c.stderr, "/system/bin/sh: app_process: inaccessible or not found")
		return 127
	}
	noHello := func(c *helperConn) int {
		io.Copy(io.Discard, c.stdin) // says nothing until the stream closes
		return 0
	}
	crashOn := func(op helper.Op) func(c *helperConn) int {
		return misbehaveOn(op, func(c *helperConn, _ helper.Frame) int {
			fmt.Fprintln(c.stderr, "java.lang.NullPointerException")
			return 1
		})
	}
	hangOn := func(op helper.Op) func(c *helperConn) int {
		return misbehaveOn(op, func(*helperConn, helper.Frame) int { return goOn })
	}
	garbageOn := func(op helper.Op) func(c *helperConn) int {
		return misbehaveOn(op, func(c *helperConn, _ helper.Frame) int {
			c.write([]byte{0, 0, 0, 5, 0x77, 0, 0, 0, 9})
			return goOn
		})
	}
	busyHello := serveLoop(helper.FeatureInject|helper.FeatureClipboard|helper.FeatureScreenshot, "uiautomation busy", answerAll)
	busyError := misbehaveOn(helper.OpTree, func(c *helperConn, f helper.Frame) int {
		c.fail(f.ID, helper.CodeBusy, "UiAutomationService android.accessibilityservice.IAccessibilityServiceClient already registered")
		return goOn
	})
	badHello := func(c *helperConn) int {
		c.write(helper.AppendFrame(nil, helper.KindHello, 0, []byte("ADBX")))
		io.Copy(io.Discard, c.stdin)
		return 0
	}
	otherJar := func(c *helperConn) int {
		c.write(helper.AppendHello(nil, helper.Hello{Protocol: 1, Version: "1.0.0+ffffffffffffffff", SDK: 34, Features: allFeatures}))
		io.Copy(io.Discard, c.stdin)
		return 0
	}
	for _, tc := range []struct {
		name  string
		sdk   int
		serve func(c *helperConn) int
		// tap: the call is a tap (else a tree); wantErr: it fails (an
		// action the helper took and lost), else it succeeds.
		tap     bool
		text    bool // the call is Text("abc")
		wantErr error
		stock   string // the stock command that must (or, with wantErr, must not) run
		why     string // HelperStatus.Why after
		starts  int
		noStart bool
	}{
		{name: "unsupported sdk", sdk: 28, serve: serveAll, stock: "uiautomator dump", why: HelperWhySDK, noStart: true},
		{name: "app_process not found", sdk: 34, serve: notFound, stock: "uiautomator dump", why: HelperWhyStart},
		{name: "no hello before the start deadline", sdk: 34, serve: noHello, stock: "uiautomator dump", why: HelperWhyStart},
		{name: "bad hello", sdk: 34, serve: badHello, stock: "uiautomator dump", why: HelperWhyStart},
		{name: "hello of another jar", sdk: 34, serve: otherJar, stock: "uiautomator dump", why: HelperWhyStart},
		{name: "crash on tree", sdk: 34, serve: crashOn(helper.OpTree), stock: "uiautomator dump", why: HelperWhyCrashed},
		{name: "hang on tree", sdk: 34, serve: hangOn(helper.OpTree), stock: "uiautomator dump", why: HelperWhyHung},
		{name: "garbage on tree", sdk: 34, serve: garbageOn(helper.OpTree), stock: "uiautomator dump", why: HelperWhyGarbage},
		{name: "uiautomation busy at hello", sdk: 34, serve: busyHello, stock: "uiautomator dump"},
		{name: "uiautomation busy error", sdk: 34, serve: busyError, stock: "uiautomator dump"},
		{name: "tap on a helper that cannot start", sdk: 34, serve: notFound, tap: true, stock: "input tap", why: HelperWhyStart},
		{name: "tap on a busy helper", sdk: 34, serve: busyHello, tap: true},
		{name: "crash on tap", sdk: 34, serve: crashOn(helper.OpTap), tap: true, wantErr: ErrProtocol, stock: "input tap", why: HelperWhyCrashed},
		{name: "hang on tap", sdk: 34, serve: hangOn(helper.OpTap), tap: true, wantErr: ErrTimeout, stock: "input tap", why: HelperWhyHung},
		{name: "garbage on tap", sdk: 34, serve: garbageOn(helper.OpTap), tap: true, wantErr: ErrProtocol, stock: "input tap", why: HelperWhyGarbage},
		{name: "hang on text", sdk: 34, serve: hangOn(helper.OpText), text: true, wantErr: ErrTimeout, stock: "input text", why: HelperWhyHung},
		{name: "crash on text", sdk: 34, serve: crashOn(helper.OpText), text: true, wantErr: ErrProtocol, stock: "input text", why: HelperWhyCrashed},
		{name: "text refused", sdk: 34, serve: misbehaveOn(helper.OpText, func(c *helperConn, f helper.Frame) int {
			c.fail(f.ID, helper.CodeRefused, "set text refused and paste failed")
			return goOn
		}), text: true, stock: "input text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, d := helperEnv(t, tc.sdk, tc.serve)
			var err error
			switch {
			case tc.tap:
				err = d.Tap(t.Context(), 5, 6)
			case tc.text:
				err = d.Text(t.Context(), "abc")
			default:
				_, err = d.UIDump(t.Context())
			}
			switch {
			case tc.wantErr != nil:
				if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), "not repeated") {
					t.Fatalf("err = %v, want %v saying it is not repeated", err, tc.wantErr)
				}
				if p.ranStock(tc.stock) {
					t.Fatalf("%s ran after the helper took the tap: it would run twice", tc.stock)
				}
			case err != nil:
				t.Fatalf("the call failed instead of falling back: %v", err)
			case tc.stock != "" && !p.ranStock(tc.stock):
				_, _, cmds := p.counts()
				t.Fatalf("%s did not run (ran %q)", tc.stock, cmds)
			}
			st := d.HelperStatus()
			if tc.why != "" && (st.Running || st.Why != tc.why) {
				t.Fatalf("status %+v, want not running because %q", st, tc.why)
			}
			starts, _, _ := p.counts()
			if tc.noStart != (starts == 0) {
				t.Fatalf("%d helper starts (noStart %v)", starts, tc.noStart)
			}
			if tc.why != "" && tc.why != HelperWhySDK {
				// Backoff: the next call does not start it again.
				if _, err := d.UIDump(t.Context()); err != nil {
					t.Fatal(err)
				}
				if again, _, _ := p.counts(); again != starts {
					t.Fatalf("started again during the backoff (%d starts)", again)
				}
				if n := d.c.HelperCounts().Failures[tc.why]; n != 1 {
					t.Fatalf("%d failures %q counted, want 1", n, tc.why)
				}
			}
		})
	}
}

// The helper stops once unused for StreamIdle, and RemoveTempFiles stops
// it and deletes its jar; SetHelper(false) sends everything to the stock
// path.
func TestHelperIdleResetOff(t *testing.T) {
	t.Parallel()
	p, d := helperEnv(t, 34, serveAll)
	d.c.cfg.StreamIdle = 50 * time.Millisecond
	dumpText(t, d)
	select {
	case <-p.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the helper was not stopped after StreamIdle")
	}
	if _, ops, _ := p.counts(); ops[len(ops)-1] != helper.OpQuit {
		t.Fatalf("ops %v, want a QUIT last", ops)
	}
	dumpText(t, d)
	if err := d.RemoveTempFiles(t.Context()); err != nil {
		t.Fatal(err)
	}
	<-p.ended
	if _, err := p.fakeBackend.Files().ReadFile(helper.PathFor(helper.Hash16Of(testJar))); err == nil {
		t.Fatal("the jar is still on the phone after RemoveTempFiles")
	}
	d.SetHelper(false)
	if got := dumpText(t, d); got != "From uiautomator" {
		t.Fatalf("tree from %q with the helper off", got)
	}
	if st := d.HelperStatus(); st.Why != HelperWhyOff {
		t.Fatalf("status %+v", st)
	}
	d.SetHelper(true)
	if got := dumpText(t, d); got != "From the helper" {
		t.Fatalf("tree from %q with the helper back on", got)
	}
}

// SHOT is a capture mode for images made to measure: pinned, it serves
// UseEncoded with the image as asked, and never UsePixels; a helper that
// fails on it leaves the capture to the next mode, which succeeds.
func TestHelperShot(t *testing.T) {
	t.Parallel()
	p, d := helperEnv(t, 34, serveAll)
	d.SetCaptureMode(CaptureHelper)
	shot, err := d.ScreenshotFor(t.Context(), ShotRequest{Use: UseEncoded, MaxSide: 1000, Format: "jpeg", Quality: 80})
	if err != nil {
		t.Fatal(err)
	}
	if shot.Mode != CaptureHelper || shot.JPEG == nil || shot.Height != 1000 || shot.ScreenHeight != 2400 {
		t.Fatalf("shot %v %dx%d of %dx%d jpeg %d bytes", shot.Mode, shot.Width, shot.Height, shot.ScreenWidth, shot.ScreenHeight, len(shot.JPEG))
	}
	shot, err = d.Screenshot(t.Context(), UsePixels)
	if err != nil || shot.Mode == CaptureHelper {
		t.Fatalf("pixels from %v, %v", shot.Mode, err)
	}
	if st := d.CaptureStats(); st.Helper.Samples != 1 || st.Encoded != CaptureHelper {
		t.Fatalf("stats %+v", st)
	}

	p2, d2 := helperEnv(t, 34, misbehaveOn(helper.OpShot, func(c *helperConn, f helper.Frame) int {
		c.ok(f.ID, []byte("not a shot"))
		return goOn
	}))
	d2.SetCaptureMode(CaptureHelper)
	shot, err = d2.ScreenshotFor(t.Context(), ShotRequest{Use: UseEncoded, MaxSide: 1000, Format: "png"})
	if err != nil || shot.Mode != CapturePNG {
		t.Fatalf("after a bad SHOT: %v, %v; want the PNG mode's capture", shot, err)
	}
	if st := d2.HelperStatus(); st.Why != HelperWhyGarbage {
		t.Fatalf("status %+v", st)
	}
	if !p2.ranStock("screencap -p") || !p.ranStock("screencap -p") {
		t.Fatal("screencap -p did not run")
	}
}

// The caller's own deadline ends the call: a helper still working on it is
// closed, no stock command runs in the time left (there is none), and no
// failure is counted against the helper.
func TestHelperCallerDeadline(t *testing.T) {
	t.Parallel()
	p, d := helperEnv(t, 34, misbehaveOn(helper.OpTree, func(*helperConn, helper.Frame) int { return goOn }))
	d.c.helperCfg.tree = time.Minute
	if err := d.Tap(t.Context(), 1, 1); err != nil { // started, answering
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	defer cancel()
	_, err := d.UIDump(ctx)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if p.ranStock("uiautomator") {
		t.Fatal("uiautomator ran after the caller's deadline")
	}
	if st := d.HelperStatus(); st.Failures != 0 || st.Running {
		t.Fatalf("status %+v, want stopped with no failure", st)
	}
}
