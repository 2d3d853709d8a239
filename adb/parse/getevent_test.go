package parse

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestGeteventHexAndAmbiguous(t *testing.T) {
	t.Parallel()
	// getevent -p without -l prints codes as hex (getevent.c
	// print_possible_events); a second qualifying node makes the choice
	// ambiguous.
	block := func(path string) string {
		return "add device 1: " + path + "\n  name:     \"ts\"\n  events:\n    KEY (0001): 0145  014a\n" +
			"    ABS (0003): 002f  : value 0, min 0, max 9, fuzz 0, flat 0, resolution 0\n" +
			"                0035  : value 0, min 0, max 1079, fuzz 0, flat 0, resolution 0\n" +
			"                0036  : value 0, min 0, max 2279, fuzz 0, flat 0, resolution 0\n" +
			"                0039  : value 0, min 0, max 65535, fuzz 0, flat 0, resolution 0\n" +
			"                003a  : value 0, min 0, max 255, fuzz 0, flat 0, resolution 0\n" +
			"  input props:\n    INPUT_PROP_DIRECT\n"
	}
	devs, err := Getevent(block("/dev/input/event1"))
	if err != nil {
		t.Fatal(err)
	}
	ts, err := FindTouchscreen(devs)
	if err != nil || ts.Path != "/dev/input/event1" || ts.X.Max != 1079 || ts.Slots != 10 || !ts.BtnTouch || ts.Pressure == nil || ts.Pressure.Max != 255 {
		t.Fatalf("got %+v, %v", ts, err)
	}
	devs, err = Getevent(block("/dev/input/event1") + block("/dev/input/event2"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := FindTouchscreen(devs); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "2 touchscreens") {
		t.Fatalf("two touchscreens: %v", err)
	}
	// A node path the shell would have to quote is never chosen.
	devs, _ = Getevent(block("/dev/input/event1;reboot"))
	if _, err := FindTouchscreen(devs); !errors.Is(err, ErrNotFound) {
		t.Fatalf("odd path: %v", err)
	}
}

func TestGeteventErrors(t *testing.T) {
	t.Parallel()
	// getevent.c open_device: "could not open %s, %s\n" for each node the
	// shell may not open.
	if _, err := Getevent("could not open /dev/input/event0, Permission denied\n"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("no device: %v", err)
	}
	b, err := os.ReadFile("testdata/getevent/ilp_nubia_atmel.txt")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(b), "max 1079, fuzz", "max 1O79, fuzz", 1)
	if _, err := Getevent(bad); !errors.Is(err, ErrFormat) {
		t.Fatalf("bad ABS line: %v", err)
	}
}

func TestGeteventDownMarker(t *testing.T) {
	t.Parallel()
	// getevent.c print_possible_events prints each code as " %.20s%c" with
	// '*' for a key whose state is down at the moment of the listing (a
	// finger on the panel, a held key), with or without labels.
	for _, keys := range []string{"BTN_TOOL_FINGER*      BTN_TOUCH*", "0145*  014a*"} {
		in := "add device 1: /dev/input/event2\n  name:     \"ts\"\n  events:\n    KEY (0001): " + keys + "\n" +
			"    ABS (0003): ABS_MT_SLOT           : value 0, min 0, max 9, fuzz 0, flat 0, resolution 0\n" +
			"                ABS_MT_POSITION_X     : value 0, min 0, max 1079, fuzz 0, flat 0, resolution 0\n" +
			"                ABS_MT_POSITION_Y     : value 0, min 0, max 2399, fuzz 0, flat 0, resolution 0\n" +
			"                ABS_MT_TRACKING_ID    : value 0, min 0, max 65535, fuzz 0, flat 0, resolution 0\n" +
			"  input props:\n    INPUT_PROP_DIRECT\n"
		devs, err := Getevent(in)
		if err != nil {
			t.Fatal(err)
		}
		ts, err := FindTouchscreen(devs)
		if err != nil || !ts.BtnTouch {
			t.Errorf("%q: BtnTouch=%v, %v", keys, ts.BtnTouch, err)
		}
	}
}
