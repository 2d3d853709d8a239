package adb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/adb/parse"
	"github.com/adb-connector/adb-connector/emulator"
	"github.com/adb-connector/adb-connector/emulator/android"
)

// touchEnv starts one virtual phone and a Client on it (events on unless
// cfg says otherwise).
func touchEnv(t *testing.T, opts adbtest.Options, cfg Config) (*emulator.Device, *Device) {
	t.Helper()
	// The phone helper would serve the gestures these tests play.
	cfg.NoHelper = true
	return phoneEnv(t, opts, cfg)
}

// phoneEnv starts one virtual phone and a Client on it.
func phoneEnv(t *testing.T, opts adbtest.Options, cfg Config) (*emulator.Device, *Device) {
	t.Helper()
	env := adbtest.Start(t, opts)
	cfg.Endpoints = []string{env.ServerAddr}
	c := newTestClient(t, cfg)
	vd := env.Devices[0]
	d, err := c.Device(DeviceKey(env.ServerAddr, vd.Serial()))
	if err != nil {
		t.Fatal(err)
	}
	return vd, d
}

// centerOf is the display point of the first node with text.
func centerOf(t *testing.T, d *Device, text string) (x, y int) {
	t.Helper()
	root, err := d.UIDump(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range parse.Flatten(root) {
		if n.Text == text {
			return n.Center.X, n.Center.Y
		}
	}
	t.Fatalf("no %q on screen", text)
	return 0, 0
}

// touches are the gestures the phone's touchscreen decoded.
func touches(vd *emulator.Device) []android.Touch {
	var out []android.Touch
	for _, c := range vd.Android().Commands() {
		if c.Touch != nil {
			out = append(out, *c.Touch)
		}
	}
	return out
}

// waitTouches waits until the touchscreen has decoded n gestures: a write
// returns once the bytes are on their way, as on a phone.
func waitTouches(t *testing.T, vd *emulator.Device, n int) []android.Touch {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	seen := 0
	if _, err := vd.Android().WaitCommand(ctx, func(c android.Command) bool {
		if c.Touch != nil {
			seen++
		}
		return seen >= n
	}); err != nil {
		t.Fatalf("waiting for %d touches: %v (got %+v)", n, err, touches(vd))
	}
	return touches(vd)
}

// ran lists the simple commands the phone ran with argv[0] name.
func ran(vd *emulator.Device, name string) []string {
	var out []string
	for _, c := range vd.Android().Commands() {
		for _, a := range c.Argv {
			if a[0] == name {
				out = append(out, strings.Join(a, " "))
			}
		}
	}
	return out
}

// streams counts the touch streams the phone ran (logged when they end).
func streams(vd *emulator.Device) int {
	n := 0
	for _, c := range vd.Android().Commands() {
		if strings.Contains(c.Line, "tee /dev/input/event2") {
			n++
		}
	}
	return n
}

// waitStreams waits until n touch streams have ended on the phone.
func waitStreams(t *testing.T, vd *emulator.Device, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	seen := 0
	if _, err := vd.Android().WaitCommand(ctx, func(c android.Command) bool {
		if strings.Contains(c.Line, "tee /dev/input/event2") {
			seen++
		}
		return seen >= n
	}); err != nil {
		t.Fatalf("waiting for %d streams to end: %v", n, err)
	}
}

func foreground(vd *emulator.Device) string {
	pkg, _ := vd.Android().Foreground()
	return pkg
}

// TestTouchEventsTap: where the shell may write the touchscreen's node
// (Android 9, or adb root on Android 13), taps, double taps, long presses
// and swipes go to it over one stream; no input command runs.
func TestTouchEventsTap(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string]adbtest.Options{"sdk 28": {SDK: 28}, "sdk 33 rooted": {Rooted: true}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testTouchEventsTap(t, opts)
		})
	}
}

func testTouchEventsTap(t *testing.T, opts adbtest.Options) {
	vd, d := touchEnv(t, opts, Config{NoTracking: true})
	ctx := context.Background()
	x, y := centerOf(t, d, "Settings")
	if err := d.LongPress(ctx, x, y, 600*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if got := waitTouches(t, vd, 1); got[0].Kind != "long_press" || got[0].From.X != x || got[0].From.Y != y {
		t.Fatalf("long press: %+v", got)
	}
	if err := d.Tap(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	if got := waitTouches(t, vd, 2); got[1].Kind != "tap" || got[1].From.X != x || got[1].From.Y != y {
		t.Fatalf("tap: %+v", got)
	}
	if fg := foreground(vd); fg != "com.android.settings" {
		t.Fatalf("foreground %s", fg)
	}
	if err := d.DoubleTap(ctx, 100, 100); err != nil {
		t.Fatal(err)
	}
	if err := d.Swipe(ctx, 300, 900, 300, 300, 150*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	got := waitTouches(t, vd, 5)
	kinds := []string{got[2].Kind, got[3].Kind, got[4].Kind}
	if !slices.Equal(kinds, []string{"tap", "tap", "swipe"}) || got[4].To.Y != 300 || got[4].Held < 150*time.Millisecond {
		t.Fatalf("double tap and swipe: %+v", got[2:])
	}
	if in := ran(vd, "input"); len(in) != 0 {
		t.Fatalf("input ran: %v", in)
	}
	d.c.Close()
	waitStreams(t, vd, 1)
	if n := streams(vd); n != 1 {
		t.Fatalf("%d touch streams, want 1", n)
	}
}

// TestTouchEventsMatchInput: on the same scenario, the events path leaves
// the phone as the input path does (the list scrolled, a row opened).
func TestTouchEventsMatchInput(t *testing.T) {
	t.Parallel()
	opts := adbtest.Options{Scenario: "list", Rooted: true}
	evVD, ev := touchEnv(t, opts, Config{NoTracking: true})
	inVD, in := touchEnv(t, opts, Config{NoTracking: true, NoTouchEvents: true})
	ctx := context.Background()
	for _, d := range []*Device{ev, in} {
		if err := d.Swipe(ctx, 360, 1100, 360, 300, 200*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	waitTouches(t, evVD, 1)
	dump := func(d *Device) string {
		root, err := d.UIDump(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var texts []string
		for _, n := range parse.Flatten(root) {
			texts = append(texts, n.Text)
		}
		return strings.Join(texts, "|")
	}
	if a, b := dump(ev), dump(in); a != b || !strings.Contains(a, "Item 12") || strings.Contains(a, "Item 1|") {
		t.Fatalf("after the swipe, events %q\ninput %q", a, b)
	}
	x, y := centerOf(t, ev, "Item 12")
	for _, d := range []*Device{ev, in} {
		if err := d.Tap(ctx, x, y); err != nil {
			t.Fatal(err)
		}
	}
	waitTouches(t, evVD, 2)
	if a, b := evVD.Android().ScreenID(), inVD.Android().ScreenID(); a != "detail" || a != b {
		t.Fatalf("after the tap: events %s, input %s", a, b)
	}
	if len(ran(evVD, "input")) != 0 || len(touches(inVD)) != 0 || len(ran(inVD, "input")) != 2 {
		t.Fatalf("paths: events ran %v; input ran %v with touches %v", ran(evVD, "input"), ran(inVD, "input"), touches(inVD))
	}
}

// TestTouchEventsRotation: on a rotated display the point reaches the
// panel turned as InputReader turns it back.
func TestTouchEventsRotation(t *testing.T) {
	t.Parallel()
	for _, rot := range []int{1, 2, 3} {
		vd, d := touchEnv(t, adbtest.Options{Rooted: true}, Config{NoTracking: true})
		if err := vd.Android().SetRotation(rot); err != nil {
			t.Fatal(err)
		}
		x, y := centerOf(t, d, "Settings")
		if err := d.Tap(context.Background(), x, y); err != nil {
			t.Fatal(err)
		}
		if got := waitTouches(t, vd, 1); got[0].From.X != x || got[0].From.Y != y {
			t.Fatalf("rotation %d: tap at %d,%d decoded as %+v", rot, x, y, got[0])
		}
		if fg := foreground(vd); fg != "com.android.settings" {
			t.Fatalf("rotation %d: foreground %s", rot, fg)
		}
	}
}

// TestTouchEventsStockAndroid10: on stock Android 10 and later SELinux
// keeps the shell from writing /dev/input (the phone refuses the stream
// once, "Permission denied"); every gesture then goes through input and
// works.
func TestTouchEventsStockAndroid10(t *testing.T) {
	t.Parallel()
	for name, sdk := range map[string]int{"sdk 29": 29, "sdk 33": 33} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testTouchEventsRefusedNode(t, sdk)
		})
	}
}

func testTouchEventsRefusedNode(t *testing.T, sdk int) {
	vd, d := touchEnv(t, adbtest.Options{SDK: sdk}, Config{NoTracking: true})
	ctx := context.Background()
	x, y := centerOf(t, d, "Settings")
	if err := d.Tap(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	if fg := foreground(vd); fg != "com.android.settings" {
		t.Fatalf("foreground %s", fg)
	}
	if err := d.KeyEvent(ctx, "HOME"); err != nil {
		t.Fatal(err)
	}
	if err := d.Swipe(ctx, 300, 900, 300, 300, 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if got := ran(vd, "input"); len(got) != 3 || got[0] != fmt.Sprintf("input tap %d %d", x, y) || !strings.HasPrefix(got[2], "input swipe") {
		t.Fatalf("input commands %v", got)
	}
	if n, tt := streams(vd), touches(vd); n != 1 || len(tt) != 0 {
		t.Fatalf("%d stream attempts, touches %+v", n, tt)
	}
	for _, c := range vd.Android().Commands() {
		if strings.Contains(c.Line, "tee /dev/input/event2") && c.Exit != 1 {
			t.Fatalf("stream %q exit %d", c.Line, c.Exit)
		}
	}
}

// TestTouchEventsStreamBroken: a stream that breaks between gestures is
// opened again and the next gesture still goes through it.
func TestTouchEventsStreamBroken(t *testing.T) {
	t.Parallel()
	vd, d := touchEnv(t, adbtest.Options{Rooted: true}, Config{NoTracking: true})
	ctx := context.Background()
	if err := d.Tap(ctx, 10, 10); err != nil {
		t.Fatal(err)
	}
	waitTouches(t, vd, 1)
	d.touch.mu.Lock()
	s := d.touch.s
	d.touch.mu.Unlock()
	s.hc.Close() // as when the adb server drops the stream
	<-s.done
	x, y := centerOf(t, d, "Settings")
	if err := d.Tap(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	if got := waitTouches(t, vd, 2); got[1].Kind != "tap" {
		t.Fatalf("touches %+v", got)
	}
	if fg := foreground(vd); fg != "com.android.settings" {
		t.Fatalf("foreground %s", fg)
	}
	if in := ran(vd, "input"); len(in) != 0 {
		t.Fatalf("input ran: %v", in)
	}
	d.c.Close()
	waitStreams(t, vd, 2)
	if n := streams(vd); n != 2 {
		t.Fatalf("%d streams, want 2", n)
	}
}

// TestTouchEventsRefused: bad coordinates are refused before anything
// runs; a gesture longer than the time left is refused before a byte is
// written; a point off the screen (which the panel cannot express) keeps
// its input behaviour.
func TestTouchEventsRefused(t *testing.T) {
	t.Parallel()
	vd, d := touchEnv(t, adbtest.Options{Rooted: true}, Config{NoTracking: true})
	ctx := context.Background()
	if err := d.Tap(ctx, 10, 10); err != nil { // opens the stream
		t.Fatal(err)
	}
	waitTouches(t, vd, 1)
	vd.Android().ClearCommands()
	for _, err := range []error{d.Tap(ctx, -1, 10), d.Swipe(ctx, 0, 0, 10, 1<<16, time.Second), d.DoubleTap(ctx, 5, -3)} {
		if err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Fatalf("bad point: %v", err)
		}
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := d.LongPress(short, 10, 10, time.Second); !errors.Is(err, ErrBusy) {
		t.Fatalf("long press past the deadline: %v", err)
	}
	if cmds, tt := vd.Android().Commands(), touches(vd); len(cmds) != 0 || len(tt) != 0 {
		t.Fatalf("ran %+v", cmds)
	}
	if err := d.Tap(ctx, 5000, 10); err != nil {
		t.Fatal(err)
	}
	if got := ran(vd, "input"); !slices.Equal(got, []string{"input tap 5000 10"}) {
		t.Fatalf("off screen: %v", got)
	}
}

// TestTouchEventsReconnect: after the phone's link drops and comes back,
// the stream is opened again on the new transport and the panel is read
// again; gestures keep going to the touchscreen.
func TestTouchEventsReconnect(t *testing.T) {
	t.Parallel()
	env := adbtest.Start(t, adbtest.Options{Rooted: true})
	c := newTestClient(t, Config{Endpoints: []string{env.ServerAddr}, NoHelper: true})
	vd := env.Devices[0]
	d, _ := c.Device(DeviceKey(env.ServerAddr, vd.Serial()))
	ctx := context.Background()
	if err := d.Tap(ctx, 10, 10); err != nil {
		t.Fatal(err)
	}
	vd.DropLink()
	env.WaitState(vd, "device")
	for i := range 2 {
		err := d.Tap(ctx, 10, 10)
		for errors.Is(err, ErrDeviceOffline) && i == 0 {
			// The tap raced the adb server's reconnect: the device was
			// not back on its transport yet.
			env.WaitState(vd, "device")
			err = d.Tap(ctx, 10, 10)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	waitTouches(t, vd, 3)
	if got := ran(vd, "getevent"); len(got) != 2 {
		t.Fatalf("getevent ran %d times, want once per transport: %v", len(got), got)
	}
	if in := ran(vd, "input"); len(in) != 0 {
		t.Fatalf("input ran: %v", in)
	}
}

// TestTouchEventsReopenFails: a stream that breaks and cannot be opened
// again leaves the device on input, for good (no new attempt per tap).
func TestTouchEventsReopenFails(t *testing.T) {
	t.Parallel()
	vd, d := touchEnv(t, adbtest.Options{Rooted: true}, Config{NoTracking: true})
	ctx := context.Background()
	if err := d.Tap(ctx, 10, 10); err != nil {
		t.Fatal(err)
	}
	d.touch.mu.Lock()
	s := d.touch.s
	d.touch.mu.Unlock()
	vd.FailNext(1) // the reopening command fails
	s.hc.Close()
	<-s.done
	for range 2 {
		if err := d.Tap(ctx, 20, 20); err != nil {
			t.Fatal(err)
		}
	}
	if got := ran(vd, "input"); !slices.Equal(got, []string{"input tap 20 20", "input tap 20 20"}) {
		t.Fatalf("input commands %v", got)
	}
	if got := touches(vd); len(got) != 1 {
		t.Fatalf("touches %+v", got)
	}
	reopen := 0
	for _, c := range vd.Android().Commands() {
		if strings.Contains(c.Line, "tee /dev/input/event2") && c.Exit == 1 {
			reopen++
		}
	}
	if reopen != 1 {
		t.Fatalf("%d failed reopenings, want 1", reopen)
	}
}

// TestTouchEventsCancelLifts: a long press whose context ends midway lifts
// the contact, so no finger is left down on the panel.
func TestTouchEventsCancelLifts(t *testing.T) {
	t.Parallel()
	vd, d := touchEnv(t, adbtest.Options{Rooted: true}, Config{NoTracking: true})
	ctx, cancel := context.WithCancel(context.Background())
	stop := time.AfterFunc(200*time.Millisecond, cancel) // the caller gives up
	defer stop.Stop()
	if err := d.LongPress(ctx, 10, 10, 5*time.Second); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled long press: %v", err)
	}
	if got := waitTouches(t, vd, 1); got[0].Held >= 5*time.Second {
		t.Fatalf("touches %+v", got)
	}
	x, y := centerOf(t, d, "Settings")
	if err := d.Tap(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	if fg := foreground(vd); fg != "com.android.settings" {
		t.Fatalf("after the canceled long press a tap does not open Settings: %s", fg)
	}
}

// TestTouchEventsNoTouchscreen: when getevent finds no touchscreen (here
// it fails outright), taps go through input, and the panel is not looked
// for again.
func TestTouchEventsNoTouchscreen(t *testing.T) {
	t.Parallel()
	vd, d := touchEnv(t, adbtest.Options{Rooted: true}, Config{NoTracking: true})
	ctx := context.Background()
	if _, err := d.Properties(ctx, false); err != nil {
		t.Fatal(err)
	}
	x, y := centerOf(t, d, "Settings")
	vd.FailNext(1) // getevent -lp
	for range 2 {
		if err := d.Tap(ctx, x, y); err != nil {
			t.Fatal(err)
		}
	}
	if fg := foreground(vd); fg != "com.android.settings" {
		t.Fatalf("foreground %s", fg)
	}
	if got := ran(vd, "input"); len(got) != 2 || len(touches(vd)) != 0 || streams(vd) != 0 {
		t.Fatalf("input %v, touches %v, %d streams", got, touches(vd), streams(vd))
	}
	getevents := 0
	for _, c := range vd.Android().Commands() {
		if c.Line == "getevent -lp" {
			getevents++
		}
	}
	if getevents != 1 {
		t.Fatalf("getevent -lp ran %d times", getevents)
	}
}

// TestTouchGeometryHeldUntilAction: the geometry a UI dump or ScreenInfo
// read serves the touch path past geometryTTL while no action went
// to the phone since (an agent that looked, thought, then acts: no
// `dumpsys input` before its tap); after an action, a tap past the TTL
// asks the rotation again.
func TestTouchGeometryHeldUntilAction(t *testing.T) {
	t.Parallel()
	vd, d := touchEnv(t, adbtest.Options{Rooted: true}, Config{NoTracking: true})
	ctx := context.Background()
	if _, err := d.ScreenInfo(ctx); err != nil {
		t.Fatal(err)
	}
	x, y := centerOf(t, d, "Settings")
	rotationQueries := func() int {
		return len(slices.DeleteFunc(ran(vd, "dumpsys"), func(s string) bool { return s != "dumpsys input" }))
	}
	time.Sleep(geometryTTL + 100*time.Millisecond)
	if err := d.Tap(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	waitTouches(t, vd, 1)
	if n := rotationQueries(); n != 0 {
		t.Fatalf("%d dumpsys input before a tap with no action since the geometry was read", n)
	}
	time.Sleep(geometryTTL + 100*time.Millisecond)
	if err := d.Tap(ctx, 10, 10); err != nil {
		t.Fatal(err)
	}
	waitTouches(t, vd, 2)
	if n := rotationQueries(); n != 1 {
		t.Fatalf("%d dumpsys input before a tap past the TTL after an action, want 1", n)
	}
}

// TestStreamsClosedWhenIdle: the shell session and the touch stream close
// once unused for Config.StreamIdle (a shelf of idle phones holds no
// stream for them), and open again on the next use.
func TestStreamsClosedWhenIdle(t *testing.T) {
	t.Parallel()
	vd, d := touchEnv(t, adbtest.Options{Rooted: true}, Config{NoTracking: true, StreamIdle: 200 * time.Millisecond})
	ctx := t.Context()
	if _, err := d.Shell(ctx, "echo", "first-short"); err != nil || !ranAs(t, vd, "first-short", true) {
		t.Fatalf("first short command: %v, or not on the session", err)
	}
	if err := d.Tap(ctx, 10, 10); err != nil {
		t.Fatal(err)
	}
	waitTouches(t, vd, 1)
	waitStreams(t, vd, 1) // the touch stream ended, unused
	deadline := time.Now().Add(10 * time.Second)
	for {
		d.smu.Lock()
		open := d.sess != nil
		d.smu.Unlock()
		if !open {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the shell session is still open, unused")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := d.Shell(ctx, "echo", "after-idle"); err != nil || !ranAs(t, vd, "after-idle", true) {
		t.Fatalf("short command after the idle close: %v, or not on a session", err)
	}
	if err := d.Tap(ctx, 10, 10); err != nil {
		t.Fatal(err)
	}
	if got := waitTouches(t, vd, 2); got[1].Kind != "tap" {
		t.Fatalf("tap after the idle close: %+v", got)
	}
	if in := ran(vd, "input"); len(in) != 0 {
		t.Fatalf("input ran: %v", in)
	}
}
