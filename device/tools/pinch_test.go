package tools

import (
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/emulator/android"
)

// helperTouches are the gestures the phone's helper injected.
func helperTouches(ph *android.Device) []android.Touch {
	var out []android.Touch
	for _, c := range ph.Commands() {
		if c.Touch != nil && c.Touch.Node == "helper:injectInputEvent" {
			out = append(out, *c.Touch)
		}
	}
	return out
}

func TestPinchThroughHelper(t *testing.T) {
	e := newToolsEnvHelper(t, adbtest.Options{Devices: 1}, adb.Limits{}, true, nil)
	ph := e.device(0).Android()
	ch := devChannel(0)
	var got pinchResult
	mustOK(t, e.call(t, t.Context(), ch, "android_pinch", `{"scale":2,"x":360,"y":640,"verify":true}`, "", nil), &got)
	if got.Center != (TapPoint{360, 640}) || got.Scale != 2 || got.Verified == nil {
		t.Errorf("pinch %+v", got)
	}
	// Two fingers: the phone sees one multi-touch gesture, which acts on
	// nothing there (no tap, no swipe).
	if ts := helperTouches(ph); len(ts) != 1 || ts[0].Kind != "" {
		t.Errorf("helper touches %+v, want one two-finger gesture", ts)
	}
	mustOK(t, e.call(t, t.Context(), ch, "android_pinch", `{"scale":0.5,"text":"Settings","match":"contains"}`, "", nil), &got)
	if got.Element == nil || got.Scale != 0.5 {
		t.Errorf("pinch on an element %+v", got)
	}

	ph.ClearCommands()
	for _, tc := range []struct{ args, field string }{
		{`{"x":10,"y":10}`, "scale"},
		{`{"scale":9,"x":10,"y":10}`, "scale"},
		{`{"scale":0.1,"x":10,"y":10}`, "scale"},
		{`{"scale":2,"x":10}`, "y"},
		{`{"scale":2}`, ""},
		{`{"scale":2,"x":99999,"y":10}`, "x"},
		{`{"scale":2,"x":10,"y":10,"duration_ms":10}`, "duration_ms"},
	} {
		a := e.call(t, t.Context(), ch, "android_pinch", tc.args, "", nil)
		if a.Err == nil || a.Err.Code != connector.CodeInvalidArguments || !strings.Contains(a.Err.Message, tc.field) {
			t.Errorf("%s: %+v, want invalid_arguments on %q", tc.args, a, tc.field)
		}
	}
	if ts := helperTouches(ph); len(ts) != 0 {
		t.Errorf("bad arguments touched the phone: %+v", ts)
	}
}

func TestPinchWithoutHelper(t *testing.T) {
	e := newToolsEnv(t, 1, nil)
	a := e.call(t, t.Context(), devChannel(0), "android_pinch", `{"scale":2,"x":100,"y":100}`, "", nil)
	if a.Err == nil || a.Err.Code != codeNotSupported || !strings.Contains(a.Err.Message, "multi-touch") {
		t.Fatalf("%+v, want not_supported", a)
	}
	if got := inputCommands(e.device(0)); len(got) != 0 {
		t.Errorf("the phone ran %v", got)
	}
}
