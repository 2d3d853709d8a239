package devices_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"image"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/emulator/android/devices"
	"github.com/adb-connector/adb-connector/emulator/android/internal/phonekit"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
	"github.com/adb-connector/adb-connector/emulator/android/vfs"
)

// ev is one input event for the tests' own encoder.
type ev struct {
	typ, code uint16
	value     int32
}

// encode lays events out as struct input_event (Linux
// include/uapi/linux/input.h): a zero timeval (16 bytes on a 64-bit ABI,
// 8 on a 32-bit one), then type, code and value, little-endian.
func encode(abi64 bool, evs ...ev) []byte {
	tv := 8
	if abi64 {
		tv = 16
	}
	var b []byte
	for _, e := range evs {
		b = append(b, make([]byte, tv)...)
		b = binary.LittleEndian.AppendUint16(b, e.typ)
		b = binary.LittleEndian.AppendUint16(b, e.code)
		b = binary.LittleEndian.AppendUint32(b, uint32(e.value))
	}
	return b
}

func down(slot, id int32, p image.Point) []ev {
	return []ev{{devices.EvAbs, devices.AbsMTSlot, slot}, {devices.EvAbs, devices.AbsMTTrack, id}, {devices.EvAbs, devices.AbsMTPosX, int32(p.X)}, {devices.EvAbs, devices.AbsMTPosY, int32(p.Y)},
		{devices.EvAbs, devices.AbsMTPress, 50}, {devices.EvKey, devices.BtnTouch, 1}, {devices.EvSyn, devices.SynReport, 0}}
}

func move(slot int32, p image.Point) []ev {
	return []ev{{devices.EvAbs, devices.AbsMTSlot, slot}, {devices.EvAbs, devices.AbsMTPosX, int32(p.X)}, {devices.EvAbs, devices.AbsMTPosY, int32(p.Y)}, {devices.EvSyn, devices.SynReport, 0}}
}

func up(slot int32) []ev {
	return []ev{{devices.EvAbs, devices.AbsMTSlot, slot}, {devices.EvAbs, devices.AbsMTTrack, -1}, {devices.EvKey, devices.BtnTouch, 0}, {devices.EvSyn, devices.SynReport, 0}}
}

func tapEvents(p image.Point) []ev { return append(down(0, 1, p), up(0)...) }

// writeNode runs `cat > /dev/input/event2` with data as its stdin.
func writeNode(t *testing.T, d *android.Device, data []byte) (stderr string, status int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var o, e bytes.Buffer
	status = d.Run(ctx, "cat > "+vfs.TouchNode, bytes.NewReader(data), &o, &e)
	return e.String(), status
}

func touches(d *android.Device) []android.Touch {
	var out []android.Touch
	for _, c := range d.Commands() {
		if c.Touch != nil {
			out = append(out, *c.Touch)
		}
	}
	return out
}

func center(t *testing.T, d *android.Device, pred func(*ui.Element) bool) image.Point {
	t.Helper()
	n := phonekit.FindNode(t, d, pred)
	if n == nil {
		t.Fatalf("node not on screen (%s)", d.ScreenID())
	}
	return n.B.Min.Add(n.B.Max).Div(2)
}

// TestTouchscreenTap: a tap written to the node opens Settings as `input
// tap` does, is logged as a touch, and runs no input command.
func TestTouchscreenTap(t *testing.T) {
	t.Parallel()
	d := newDevice(t, android.Config{Rooted: true})
	p := center(t, d, phonekit.ByText("Settings"))
	if e, st := writeNode(t, d, encode(true, tapEvents(p)...)); st != 0 {
		t.Fatalf("write: %d %q", st, e)
	}
	phonekit.WantForeground(t, d, "com.android.settings")
	got := touches(d)
	if len(got) != 1 || got[0].Kind != "tap" || got[0].From != p || got[0].Node != vfs.TouchNode {
		t.Fatalf("touches %+v", got)
	}
	for _, c := range d.Commands() {
		for _, a := range c.Argv {
			if a[0] == "input" {
				t.Fatalf("input ran: %v", c.Argv)
			}
		}
	}
}

// TestTouchscreenSwipeMatchesInput: a swipe written to the node scrolls
// the list as far as `input swipe` with the same end points, including
// when the events arrive split across writes.
func TestTouchscreenSwipeMatchesInput(t *testing.T) {
	t.Parallel()
	viaInput := newDevice(t, android.Config{Scenario: "list"})
	mustRun(t, viaInput, "input swipe 360 1100 360 300 300")
	viaEvents := newDevice(t, android.Config{Scenario: "list", Rooted: true})
	var evs []ev
	evs = append(evs, down(0, 7, image.Pt(360, 1100))...)
	for y := 1000; y > 300; y -= 100 {
		evs = append(evs, move(0, image.Pt(360, y))...)
	}
	evs = append(evs, move(0, image.Pt(360, 300))...)
	evs = append(evs, up(0)...)
	data := encode(true, evs...)
	// Split mid-event: the panel waits for whole events.
	w, err := viaEvents.OpenShellFile(context.Background(), vfs.TouchNode, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range [][]byte{data[:5], data[5:100], data[100:]} {
		if _, err := w.Write(part); err != nil {
			t.Fatal(err)
		}
	}
	if len(viaInput.Model().State.Scroll) == 0 || !maps.Equal(viaEvents.Model().State.Scroll, viaInput.Model().State.Scroll) {
		t.Fatalf("scroll via events %v, via input %v", viaEvents.Model().State.Scroll, viaInput.Model().State.Scroll)
	}
	if got := touches(viaEvents); len(got) != 1 || got[0].Kind != "swipe" || got[0].To != image.Pt(360, 300) {
		t.Fatalf("touches %+v", got)
	}
}

// TestTouchscreenLongPressAndHover: a still contact held from 500 ms is a
// long press; one without pressure hovers and touches nothing.
func TestTouchscreenLongPressAndHover(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := phonekit.FixedNow()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	d := newDevice(t, android.Config{Now: clock, Rooted: true})
	p := center(t, d, phonekit.ByText("Settings"))
	writeNode(t, d, encode(true, down(0, 1, p)...))
	mu.Lock()
	now = now.Add(800 * time.Millisecond)
	mu.Unlock()
	writeNode(t, d, encode(true, up(0)...))
	if got := touches(d); len(got) != 1 || got[0].Kind != "long_press" || got[0].Held != 800*time.Millisecond {
		t.Fatalf("touches %+v", got)
	}
	if fg, _ := d.Foreground(); fg == "com.android.settings" {
		t.Fatal("a long press on an icon opened it")
	}
	hover := []ev{{devices.EvAbs, devices.AbsMTTrack, 2}, {devices.EvAbs, devices.AbsMTPosX, int32(p.X)}, {devices.EvAbs, devices.AbsMTPosY, int32(p.Y)}, {devices.EvAbs, devices.AbsMTPress, 0},
		{devices.EvKey, devices.BtnTouch, 1}, {devices.EvSyn, devices.SynReport, 0}}
	writeNode(t, d, encode(true, append(hover, up(0)...)...))
	if got := touches(d); len(got) != 1 {
		t.Fatalf("hover touched: %+v", got)
	}
}

// TestTouchscreenRotation: the panel's axes stay portrait; on a rotated
// display the point is turned as InputReader turns it.
func TestTouchscreenRotation(t *testing.T) {
	t.Parallel()
	for rot := 0; rot < 4; rot++ {
		d := newDevice(t, android.Config{Rooted: true})
		if err := d.SetRotation(rot); err != nil {
			t.Fatal(err)
		}
		p := center(t, d, phonekit.ByText("Settings")) // display point
		w, h := d.Model().Screen.Width, d.Model().Screen.Height
		ds := d.Model().DisplaySize()
		// The panel point for display point p (the converse of
		// panelToDisplay, with w == natural display width).
		var panel image.Point
		switch rot {
		case 0:
			panel = p
		case 1:
			panel = image.Pt(w-1-p.Y, p.X)
		case 2:
			panel = image.Pt(w-1-p.X, h-1-p.Y)
		case 3:
			panel = image.Pt(p.Y, h-1-p.X)
		}
		if ds.X*ds.Y != w*h {
			t.Fatalf("display %v vs panel %dx%d", ds, w, h)
		}
		writeNode(t, d, encode(true, tapEvents(panel)...))
		if got := touches(d); len(got) != 1 || got[0].From != p {
			t.Fatalf("rotation %d: touches %+v, want a tap at %v", rot, got, p)
		}
		phonekit.WantForeground(t, d, "com.android.settings")
	}
}

// TestTouchscreenNode: the node is a character device the shell user's
// group input may write (where SELinux lets it: here adb root), and a
// 32-bit device takes 16-byte events.
func TestTouchscreenNode(t *testing.T) {
	t.Parallel()
	d := newDevice(t, android.Config{Rooted: true, Properties: map[string]string{"ro.product.cpu.abi": "armeabi-v7a"}})
	out := mustRun(t, d, "ls -l /dev/input")
	for _, want := range []string{"crw-rw---- 1 root input 13,  66", "event2", "event0"} {
		if !strings.Contains(out, want) {
			t.Fatalf("ls -l /dev/input lacks %q:\n%s", want, out)
		}
	}
	if id := mustRun(t, d, "id"); !strings.Contains(id, "1004(input)") {
		t.Fatalf("id: %s", id)
	}
	p := center(t, d, phonekit.ByText("Settings"))
	writeNode(t, d, encode(false, tapEvents(p)...))
	phonekit.WantForeground(t, d, "com.android.settings")
}

// FuzzTouchscreen: any bytes written to the panel's node decode without a
// panic, whole events only, and leave the panel's state in range.
func FuzzTouchscreen(f *testing.F) {
	p := image.Pt(100, 200)
	f.Add(encode(true, tapEvents(p)...), true)
	f.Add(encode(false, tapEvents(p)...), false)
	f.Add(encode(true, append(append(down(3, 9, p), move(3, image.Pt(100, 900))...), up(3)...)...), true)
	f.Add(encode(true, ev{devices.EvSyn, devices.SynDropped, 0}, ev{devices.EvAbs, devices.AbsMTSlot, 99}, ev{devices.EvAbs, devices.AbsMTTrack, -7}, ev{devices.EvSyn, devices.SynReport, 0}), true)
	d := newDevice(f, android.Config{})
	f.Fuzz(func(t *testing.T, data []byte, abi64 bool) {
		w := devices.NewEvdevWriter(d.Devices(), abi64)
		if n, err := w.Write(data); err != nil || n != len(data) {
			t.Fatalf("write: %d, %v", n, err)
		}
		size := 16
		if abi64 {
			size = 24
		}
		if w.Pending() != len(data)%size {
			t.Fatalf("%d bytes pending of %d", w.Pending(), len(data))
		}
		if slot := d.Devices().PanelSlot(); slot < 0 || slot >= devices.PanelSlots {
			t.Fatalf("slot %d", slot)
		}
	})
}
