package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/adbtest"
)

// TestObserveOnVirtualPhone: one call returns the screenshot, the elements
// with their screen_id, the foreground app and the screen state, and they
// agree with what the separate tools say.
func TestObserveOnVirtualPhone(t *testing.T) {
	e := newToolsEnv(t, 1, nil)
	var obs observeResult
	mustOK(t, e.call(t, t.Context(), devChannel(0), "android_observe", `{"max_side":360}`, "obs1", nil), &obs)
	var ui uiElementsResult
	mustOK(t, e.call(t, t.Context(), devChannel(0), "android_ui_elements", `{}`, "ui1", nil), &ui)
	switch {
	case obs.Screenshot.FileRef == "" || max(obs.Screenshot.Width, obs.Screenshot.Height) != 360 || obs.Screenshot.Scale <= 1:
		t.Errorf("screenshot %+v", obs.Screenshot)
	case obs.ScreenID != ui.ScreenID || len(obs.Elements) != len(ui.Elements):
		t.Errorf("observe elements %d on %s, ui_elements %d on %s", len(obs.Elements), obs.ScreenID, len(ui.Elements), ui.ScreenID)
	case obs.Foreground != ui.Foreground || obs.Foreground.Package == "":
		t.Errorf("foreground %+v vs %+v", obs.Foreground, ui.Foreground)
	case obs.Screen.Width != 720 || obs.Screen.Height != 1280 || !obs.Screen.On || obs.Secure || obs.KeyboardShown:
		t.Errorf("screen %+v secure %v keyboard %v", obs.Screen, obs.Secure, obs.KeyboardShown)
	}
	var none observeResult
	mustOK(t, e.call(t, t.Context(), devChannel(0), "android_observe", `{"elements":"none"}`, "obs2", nil), &none)
	if none.Elements != nil || none.ScreenID != "" {
		t.Errorf("elements none still listed %d elements", len(none.Elements))
	}
}

// TestObserveDefaults: android_observe with no arguments returns a JPEG
// of at most observeMaxSide at quality observeJPEGQuality; each argument
// given replaces its default only; android_screenshot keeps the full-size
// PNG.
func TestObserveDefaults(t *testing.T) {
	e := newToolsEnv(t, 1, nil)
	for _, tc := range []struct {
		tool, args string
		mime       string
		side       int
	}{
		{"android_observe", `{"elements":"none"}`, "image/jpeg", observeMaxSide},
		{"android_observe", `{"elements":"none","quality":60}`, "image/jpeg", observeMaxSide},
		{"android_observe", `{"elements":"none","format":"png"}`, "image/png", observeMaxSide},
		{"android_observe", `{"elements":"none","max_side":4096}`, "image/jpeg", 1280},
		{"android_screenshot", `{}`, "image/png", 1280},
	} {
		var shot ScreenshotResult
		if tc.tool == "android_observe" {
			var obs observeResult
			mustOK(t, e.call(t, t.Context(), devChannel(0), tc.tool, tc.args, "", nil), &obs)
			shot = obs.Screenshot
		} else {
			mustOK(t, e.call(t, t.Context(), devChannel(0), tc.tool, tc.args, "", nil), &shot)
		}
		if shot.MIMEType != tc.mime || max(shot.Width, shot.Height) != tc.side {
			t.Errorf("%s %s: %s %dx%d, want %s with longest side %d", tc.tool, tc.args, shot.MIMEType, shot.Width, shot.Height, tc.mime, tc.side)
		}
	}
	if side, format, q := (screenshotArgs{}).resolve(observeDefaults); side != 1024 || format != "jpeg" || q != 75 {
		t.Errorf("observe defaults: %d %s %d, want 1024 jpeg 75", side, format, q)
	}
	if err := (screenshotArgs{Quality: new(60)}).check(observeDefaults); err != nil {
		t.Errorf("observe quality without format: %v", err)
	}
	if err := (screenshotArgs{Quality: new(60)}).check(screenshotDefaults); err == nil {
		t.Error("screenshot quality without jpeg accepted")
	}
}

// BenchmarkObserve compares one android_observe with the three calls it
// replaces made one after another (android_screenshot, android_ui_elements,
// android_device_status) on the virtual phone, alternating the two in each
// iteration so machine noise hits both alike; the ratio is reported as
// observe/sequential.
func BenchmarkObserve(b *testing.B) {
	e := newToolsEnv(b, 1, func(c *Config) { c.RatePerMinute = 1 << 30 })
	ch := devChannel(0)
	var obs, seq time.Duration
	i := 0
	for b.Loop() {
		i++
		start := time.Now()
		mustOK(b, e.call(b, b.Context(), ch, "android_observe", `{}`, fmt.Sprint("o", i), nil), nil)
		obs += time.Since(start)
		start = time.Now()
		// The image observe returns by default, so both sides do the same work.
		mustOK(b, e.call(b, b.Context(), ch, "android_screenshot", `{"max_side":1024,"format":"jpeg","quality":75}`, fmt.Sprint("s", i), nil), nil)
		mustOK(b, e.call(b, b.Context(), ch, "android_ui_elements", `{}`, fmt.Sprint("u", i), nil), nil)
		mustOK(b, e.call(b, b.Context(), ch, "android_device_status", `{}`, fmt.Sprint("d", i), nil), nil)
		seq += time.Since(start)
	}
	b.ReportMetric(float64(obs.Nanoseconds())/float64(i), "ns/observe")
	b.ReportMetric(float64(seq.Nanoseconds())/float64(i), "ns/sequential")
	b.ReportMetric(float64(obs)/float64(seq), "observe/sequential")
}

// BenchmarkObserveParts times each part observe runs in parallel, through
// the pipeline, to see which one bounds it.
func BenchmarkObserveParts(b *testing.B) {
	e := newToolsEnv(b, 1, func(c *Config) { c.RatePerMinute = 1 << 30 })
	for _, tool := range []string{"android_screenshot", "android_ui_elements", "android_device_status", "android_observe"} {
		b.Run(tool, func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				mustOK(b, e.call(b, b.Context(), devChannel(0), tool, `{}`, fmt.Sprint(tool, i), nil), nil)
			}
		})
	}
}

// TestDumpNotIdle: a screen that is not idle for uiautomator ("could not
// get idle state") is asked again within the call's time; one that never
// settles is ui_unavailable with the reason.
func TestDumpNotIdle(t *testing.T) {
	e := newToolsEnv(t, 1, nil)
	phone := e.device(0).Android()
	phone.FailDumpNotIdle(2, 10*time.Millisecond)
	var ui uiElementsResult
	mustOK(t, e.call(t, t.Context(), devChannel(0), "android_ui_elements", `{}`, "busy1", nil), &ui)
	if len(ui.Elements) == 0 {
		t.Fatal("no elements after the screen settled")
	}
	phone.FailDumpNotIdle(-1, 10*time.Millisecond)
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	a := e.call(t, ctx, devChannel(0), "android_ui_elements", `{}`, "busy2", nil)
	if a.Err == nil || a.Err.Code != codeUIUnavailable || !strings.Contains(a.Err.Message, "animating") {
		t.Fatalf("a screen that never settles: %+v", a.Err)
	}
}

// TestSecureWindow: a phone whose focused window has FLAG_SECURE (a real
// dumpsys window of that shape, pinned on the virtual phone) is reported
// secure by android_ui_elements and android_observe, with observe's note.
func TestSecureWindow(t *testing.T) {
	window, err := os.ReadFile(filepath.Join("..", "..", "adb", "parse", "testdata", "screenstate", "secure_window_api33.txt"))
	if err != nil {
		t.Fatal(err)
	}
	dir := shippedScenarioWith(t, "login", func(sc map[string]any) {
		sc["pinned"] = []any{map[string]any{"command": "dumpsys window", "stdout": string(window)}}
	})
	e := newToolsEnvOpts(t, adbtest.Options{Devices: 1, Scenario: dir}, adb.Limits{}, nil)
	var ui uiElementsResult
	mustOK(t, e.call(t, t.Context(), devChannel(0), "android_ui_elements", `{}`, "sec1", nil), &ui)
	if !ui.Secure || ui.Foreground.Package != "com.example.bank" {
		t.Errorf("ui_elements: secure %v, foreground %+v", ui.Secure, ui.Foreground)
	}
	var obs observeResult
	mustOK(t, e.call(t, t.Context(), devChannel(0), "android_observe", `{"elements":"none"}`, "sec2", nil), &obs)
	if !obs.Secure || !strings.Contains(obs.Note, "forbids capture") {
		t.Errorf("observe: secure %v, note %q", obs.Secure, obs.Note)
	}
}
