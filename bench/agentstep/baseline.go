package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/jpeg"
	"image/png"
	"os/exec"
	"slices"
	"strconv"

	"github.com/disintegration/imaging"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/adb/parse"
)

// The baseline does what typical phone-driving tools for agents do: one
// `adb` CLI process per device operation (the adb server is shared, each
// process connects to it, asks for the transport, runs one service and
// exits), the screenshot decoded, resized and re-encoded on the host:
//
//	adb -s SERIAL exec-out screencap -p          -> PNG decode, resize, JPEG q75
//	adb -s SERIAL exec-out uiautomator dump /dev/tty -> XML parse
//	adb -s SERIAL shell input tap X Y | input text T | input swipe ...
//	adb -s SERIAL shell am start -a android.intent.action.VIEW -d URL
//
// Its host-side image work is fixed here (stdlib PNG and JPEG, imaging's
// Catmull-Rom resize, as PIL's bicubic thumbnail), so it does not move
// when our server's own image code changes.

// Screenshot and gesture parameters shared by both sides.
const (
	maxSide     = 1024
	jpegQuality = 75
	swipeMS     = 300
)

// baseline runs each operation as one adb CLI process.
type baseline struct {
	// adb returns the unstarted `adb -P PORT args...` (adbtest.Env.AdbCmd).
	adb    func(ctx context.Context, args ...string) *exec.Cmd
	serial string
	// maxScroll bounds the scroll-to loop.
	maxScroll int
}

// newBaseline drives serial through env's adb server.
func newBaseline(env *adbtest.Env, serial string) *baseline {
	return &baseline{adb: env.AdbCmd, serial: serial, maxScroll: 40}
}

func (b *baseline) name() string { return "baseline" }

// run runs `adb -s SERIAL args...` and returns its standard output.
func (b *baseline) run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := b.adb(ctx, append([]string{"-s", b.serial}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("adb %v: %w: %s", redact(args), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return out, nil
}

// redact hides typed text (`input text T`) from errors, as the server
// keeps it out of its logs: only its length shows.
func redact(args []string) []string {
	out := slices.Clone(args)
	for i := 2; i < len(out); i++ {
		if out[i-2] == "input" && out[i-1] == "text" {
			out[i] = fmt.Sprintf("<%d characters>", len(out[i]))
		}
	}
	return out
}

// shell runs `adb shell ARGS` (one device command, no output wanted).
func (b *baseline) shell(ctx context.Context, args ...string) error {
	_, err := b.run(ctx, append([]string{"shell"}, args...)...)
	return err
}

// screenshot captures a PNG and makes the model's JPEG of it; it returns
// the screen's size in device pixels.
func (b *baseline) screenshot(ctx context.Context) (w, h int, err error) {
	raw, err := b.run(ctx, "exec-out", "screencap", "-p")
	if err != nil {
		return 0, 0, err
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		return 0, 0, fmt.Errorf("screencap -p: %w", err)
	}
	w, h = img.Bounds().Dx(), img.Bounds().Dy()
	if max(w, h) > maxSide {
		img = imaging.Fit(img, maxSide, maxSide, imaging.CatmullRom)
	}
	var out bytes.Buffer
	if err := jpeg.Encode(&out, img, &jpeg.Options{Quality: jpegQuality}); err != nil {
		return 0, 0, err
	}
	if out.Len() == 0 || max(img.Bounds().Dx(), img.Bounds().Dy()) > maxSide {
		return 0, 0, errors.New("no JPEG of at most 1024 pixels")
	}
	return w, h, nil
}

// dump reads the UI tree with uiautomator and parses it.
func (b *baseline) dump(ctx context.Context) ([]parse.UINode, error) {
	out, err := b.run(ctx, "exec-out", "uiautomator", "dump", "/dev/tty")
	if err != nil {
		return nil, err
	}
	root, err := parse.UIDump(out)
	if err != nil {
		return nil, err
	}
	return parse.Flatten(root), nil
}

// observe is a screenshot then a dump, one after the other, as the tools
// do.
func (b *baseline) observe(ctx context.Context) (view, error) {
	w, h, err := b.screenshot(ctx)
	if err != nil {
		return view{}, err
	}
	nodes, err := b.dump(ctx)
	if err != nil {
		return view{}, err
	}
	v := view{W: w, H: h}
	for _, n := range nodes {
		if v.Package == "" {
			v.Package = n.Package
		}
		v.Elems = append(v.Elems, elem{Text: n.Text, ResourceID: n.ResourceID, ContentDesc: n.ContentDesc,
			Checkable: n.Checkable, Checked: n.Checked, X: n.Center.X, Y: n.Center.Y})
	}
	return v, nil
}

func (b *baseline) act(ctx context.Context, s step, v view) (int, error) {
	switch s.Act {
	case actTap, actType:
		e, ok := v.find(s.Target)
		if !ok {
			return 0, fmt.Errorf("no element with %s", s.Target)
		}
		if err := b.tap(ctx, e.X, e.Y); err != nil {
			return 0, err
		}
		if s.Act == actType {
			return 0, b.typeText(ctx, s.Text)
		}
		return 0, nil
	case actScrollTo:
		// Swipe, look again, until it shows: each round one swipe, one
		// screenshot and one dump.
		for n := 0; n < b.maxScroll; n++ {
			if _, ok := v.find(s.Target); ok {
				return n, nil
			}
			if err := b.swipe(ctx, v.W/2, v.H*4/5, v.W/2, v.H/5); err != nil {
				return n, err
			}
			var err error
			if v, err = b.observe(ctx); err != nil {
				return n + 1, err
			}
		}
		return b.maxScroll, fmt.Errorf("no element with %s after %d swipes", s.Target, b.maxScroll)
	case actOpenURL:
		return 0, b.shell(ctx, "am", "start", "-a", "android.intent.action.VIEW", "-d", s.URL)
	}
	return 0, fmt.Errorf("unknown act %q", s.Act)
}

func (b *baseline) uiElements(ctx context.Context) error {
	_, err := b.dump(ctx)
	return err
}

func (b *baseline) tap(ctx context.Context, x, y int) error {
	return b.shell(ctx, "input", "tap", strconv.Itoa(x), strconv.Itoa(y))
}

// typeText types ASCII without spaces or shell metacharacters (what the
// tasks type): `adb shell input text` passes it through the phone's shell.
func (b *baseline) typeText(ctx context.Context, text string) error {
	return b.shell(ctx, "input", "text", text)
}

func (b *baseline) swipe(ctx context.Context, x1, y1, x2, y2 int) error {
	return b.shell(ctx, "input", "swipe", strconv.Itoa(x1), strconv.Itoa(y1), strconv.Itoa(x2), strconv.Itoa(y2), strconv.Itoa(swipeMS))
}
