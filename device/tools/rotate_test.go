package tools

import (
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/connector"
)

func TestRotateOnVirtualPhone(t *testing.T) {
	e := newToolsEnv(t, 1, nil)
	ph := e.device(0).Android()
	setting := func(k string) string { v, _ := ph.Setting(k); return v }
	for _, tc := range []struct {
		orientation string
		want        rotateResult
		rotation    int
	}{
		{"landscape", rotateResult{"landscape", 1280, 720}, 1},
		{"reverse_portrait", rotateResult{"reverse_portrait", 720, 1280}, 2},
		{"reverse_landscape", rotateResult{"reverse_landscape", 1280, 720}, 3},
		{"portrait", rotateResult{"portrait", 720, 1280}, 0},
	} {
		t.Run(tc.orientation, func(t *testing.T) {
			var got rotateResult
			mustOK(t, e.call(t, t.Context(), devChannel(0), "android_rotate", `{"orientation":"`+tc.orientation+`"}`, "", nil), &got)
			if got != tc.want {
				t.Errorf("result %+v, want %+v", got, tc.want)
			}
			if ph.Rotation() != tc.rotation || setting("system/accelerometer_rotation") != "0" {
				t.Errorf("phone rotation %d accelerometer %q, want %d locked", ph.Rotation(), setting("system/accelerometer_rotation"), tc.rotation)
			}
		})
	}
	t.Run("auto", func(t *testing.T) {
		mustOK(t, e.call(t, t.Context(), devChannel(0), "android_rotate", `{"orientation":"landscape"}`, "", nil), nil)
		var got rotateResult
		mustOK(t, e.call(t, t.Context(), devChannel(0), "android_rotate", `{"orientation":"auto"}`, "", nil), &got)
		// The virtual phone lies upright: the sensor says portrait.
		if got != (rotateResult{"portrait", 720, 1280}) || setting("system/accelerometer_rotation") != "1" {
			t.Errorf("auto: %+v, accelerometer %q", got, setting("system/accelerometer_rotation"))
		}
	})
	t.Run("bad arguments run nothing", func(t *testing.T) {
		for _, args := range []string{`{}`, `{"orientation":"sideways"}`, `{"orientation":1}`, `{"orientation":"auto","x":1}`} {
			ph.ClearCommands()
			a := e.call(t, t.Context(), devChannel(0), "android_rotate", args, "", nil)
			if a.Err == nil || a.Err.Code != connector.CodeInvalidArguments {
				t.Errorf("%s: %+v, want invalid_arguments", args, a)
			}
			for _, c := range ph.Commands() {
				if strings.Contains(c.Line, "settings") {
					t.Errorf("%s ran %q", args, c.Line)
				}
			}
		}
	})
}

func TestRotationOfNaturalLandscape(t *testing.T) {
	t.Parallel()
	// A tablet's panel is landscape at rotation 0 (DisplayRotation.configure).
	for o, r := range map[string]int{"landscape": 0, "reverse_portrait": 1, "reverse_landscape": 2, "portrait": 3} {
		if got := rotationOf(o, 1920, 1200); got != r {
			t.Errorf("%s: rotation %d, want %d", o, got, r)
		}
		if got := orientationOf(r, 1920, 1200); got != o {
			t.Errorf("rotation %d: %s, want %s", r, got, o)
		}
	}
}
