package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/adb/parse"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/audit"
	"github.com/adb-connector/adb-connector/store"
)

// launcherIcon returns the centre of the launcher icon labelled label, from
// the phone's own UI dump.
func (e *toolsEnv) launcherIcon(t *testing.T, i int, label string) parse.Point {
	t.Helper()
	d, err := e.resolver.client.Device(adb.DeviceKey(e.adb.ServerAddr, e.device(i).Serial()))
	if err != nil {
		t.Fatal(err)
	}
	root, err := d.UIDump(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range parse.Flatten(root) {
		if n.Text == label || n.ContentDesc == label {
			return n.Center
		}
	}
	t.Fatalf("no %q on the launcher", label)
	return parse.Point{}
}

func TestTapOnVirtualPhone(t *testing.T) {
	e := newToolsEnv(t, 1, func(c *Config) { c.ProgressAfter = 5 * time.Millisecond })
	dev := e.device(0)
	ph := dev.Android()
	home := func(t *testing.T) {
		t.Helper()
		if _, err := e.adb.Adb("-s", dev.Serial(), "shell", "input", "keyevent", "KEYCODE_HOME"); err != nil {
			t.Fatal(err)
		}
		ph.ClearCommands()
	}

	t.Run("tap launcher icon once, duplicate replays", func(t *testing.T) {
		home(t)
		c := e.launcherIcon(t, 0, "Settings")
		ph.ClearCommands()
		args := fmt.Sprintf(`{"x":%d,"y":%d}`, c.X, c.Y)
		first := e.call(t, t.Context(), devChannel(0), "android_tap", args, "call_tap_1", nil)
		var res TapResult
		mustOK(t, first, &res)
		if diff := cmp.Diff(TapResult{Tapped: TapPoint{X: c.X, Y: c.Y}}, res); diff != "" {
			t.Errorf("result (-want +got):\n%s", diff)
		}
		if pkg, _ := ph.Foreground(); pkg != "com.android.settings" {
			t.Errorf("foreground = %q, want com.android.settings", pkg)
		}
		again := e.call(t, t.Context(), devChannel(0), "android_tap", args, "call_tap_1", nil)
		if diff := cmp.Diff(first, again); diff != "" {
			t.Errorf("replayed ack differs (-first +again):\n%s", diff)
		}
		// Stock Android 13: SELinux keeps the shell from writing touch
		// events, so the tap goes through input.
		want := []string{fmt.Sprintf("input tap %d %d", c.X, c.Y)}
		if diff := cmp.Diff(want, inputCommands(dev)); diff != "" {
			t.Errorf("input commands (-want +got):\n%s", diff)
		}
		recs, err := audit.Read(t.Context(), e.db.Read, audit.Query{ChannelID: devChannel(0), Limit: 2})
		if err != nil || len(recs) != 2 {
			t.Fatalf("audit = %+v, %v", recs, err)
		}
		hint := hintOf(dev.Serial())
		for i, r := range recs {
			wantArgs := fmt.Sprintf(`{"x":%d,"y":%d}`, c.X, c.Y)
			if r.ToolID != "android_tap" || r.DeviceHint != hint && !r.Replayed || string(r.Args) != wantArgs ||
				r.Outcome != "ok" || r.ToolCallID != "call_tap_1" || r.Replayed != (i == 0) {
				t.Errorf("audit row %d = %+v", i, r)
			}
		}
	})

	t.Run("concurrent duplicates act once", func(t *testing.T) {
		home(t)
		c := e.launcherIcon(t, 0, "Chrome")
		ph.ClearCommands()
		ph.SetLatency(300 * time.Millisecond) // the first call is still running when the others arrive
		t.Cleanup(func() { ph.SetLatency(0) })
		args := fmt.Sprintf(`{"x":%d,"y":%d}`, c.X, c.Y)
		const n = 6
		acks := make([]ackOf, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				acks[i] = e.call(t, t.Context(), devChannel(0), "android_tap", args, "call_tap_concurrent", nil)
			})
		}
		wg.Wait()
		mustOK(t, acks[0], nil)
		for i := 1; i < n; i++ {
			if diff := cmp.Diff(acks[0], acks[i]); diff != "" {
				t.Errorf("ack %d differs (-0 +%d):\n%s", i, i, diff)
			}
		}
		if got := inputCommands(dev); len(got) != 1 {
			t.Errorf("input commands = %q, want exactly one tap", got)
		}
		if pkg, _ := ph.Foreground(); pkg != "com.android.chrome" {
			t.Errorf("foreground = %q, want com.android.chrome", pkg)
		}
	})

	t.Run("long press", func(t *testing.T) {
		home(t)
		a := e.call(t, t.Context(), devChannel(0), "android_tap", `{"x":10,"y":20,"duration_ms":600}`, "", nil)
		var res TapResult
		mustOK(t, a, &res)
		if !res.LongPress {
			t.Errorf("long_press = false")
		}
		if diff := cmp.Diff([]string{"input swipe 10 20 10 20 600"}, inputCommands(dev)); diff != "" {
			t.Errorf("input commands (-want +got):\n%s", diff)
		}
	})

	t.Run("progress while slow", func(t *testing.T) {
		home(t)
		ph.SetLatency(200 * time.Millisecond)
		t.Cleanup(func() { ph.SetLatency(0) })
		var mu sync.Mutex
		var msgs []string
		returned := false
		a := e.call(t, t.Context(), devChannel(0), "android_tap", `{"x":5,"y":5}`, "", func(msg string, f float64) {
			mu.Lock()
			defer mu.Unlock()
			if returned {
				t.Errorf("progress after the ack: %q", msg)
			}
			msgs = append(msgs, msg)
		})
		mu.Lock()
		returned = true
		mu.Unlock()
		mustOK(t, a, nil)
		if len(msgs) == 0 {
			t.Error("no tool.progress.push for a call slower than ProgressAfter")
		}
	})
}

// badArgCases send every argument of every tool wrong: wrong type, out of
// range, missing, extra, outside the screen (720x1280 portrait).
var badArgCases = []struct {
	tool, args, field string
}{
	{"android_device_status", `{"verbose":true}`, "verbose"},
	{"android_device_status", `{"serial":"R58M123ABC"}`, "serial"},
	{"android_screenshot", `{"max_side":"640"}`, "max_side"},
	{"android_screenshot", `{"max_side":63}`, "max_side"},
	{"android_screenshot", `{"max_side":4097}`, "max_side"},
	{"android_screenshot", `{"max_side":100.5}`, "max_side"},
	{"android_screenshot", `{"format":"gif"}`, "format"},
	{"android_screenshot", `{"format":1}`, "format"},
	{"android_screenshot", `{"format":"jpeg","quality":0}`, "quality"},
	{"android_screenshot", `{"format":"jpeg","quality":101}`, "quality"},
	{"android_screenshot", `{"format":"jpeg","quality":"high"}`, "quality"},
	{"android_screenshot", `{"quality":50}`, "quality"},
	{"android_screenshot", `{"path":"/sdcard/x.png"}`, "path"},
	{"android_tap", `{"y":10}`, "x"},
	{"android_tap", `{"x":10}`, "y"},
	{"android_tap", `{"x":"10","y":10}`, "x"},
	{"android_tap", `{"x":10,"y":null}`, "y"},
	{"android_tap", `{"x":-1,"y":10}`, "x"},
	{"android_tap", `{"x":10,"y":-5}`, "y"},
	{"android_tap", `{"x":1.5,"y":10}`, "x"},
	{"android_tap", `{"x":10,"y":10,"duration_ms":-1}`, "duration_ms"},
	{"android_tap", `{"x":10,"y":10,"duration_ms":10001}`, "duration_ms"},
	{"android_tap", `{"x":10,"y":10,"duration_ms":"long"}`, "duration_ms"},
	{"android_tap", `{"x":10,"y":10,"serial":"R58M123ABC"}`, "serial"},
	{"android_tap", `{"x":720,"y":10}`, "x"},
	{"android_tap", `{"x":10,"y":1280}`, "y"},
	{"android_tap", `{"x":100000,"y":10}`, "x"},
	{"android_tap", `{"x":1e400,"y":10}`, "x"}, // valid for the schema, beyond an int
}

func TestBadArgumentsLeaveDeviceUntouched(t *testing.T) {
	e := newToolsEnv(t, 1, nil)
	dev := e.device(0)
	dev.Android().ClearCommands()
	for _, tc := range badArgCases {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			a := e.call(t, t.Context(), devChannel(0), tc.tool, tc.args, "", nil)
			if a.Err == nil || a.Err.Code != "invalid_arguments" {
				t.Fatalf("ack = %+v, want invalid_arguments", a)
			}
			if !strings.Contains(a.Err.Message, tc.field) {
				t.Errorf("message %q does not name %q", a.Err.Message, tc.field)
			}
			if strings.Contains(a.Err.Message, "R58M123ABC") {
				t.Errorf("message %q echoes the value", a.Err.Message)
			}
		})
	}
	for _, c := range dev.Android().Commands() {
		for _, argv := range c.Argv {
			if len(argv) > 0 && (argv[0] == "input" || argv[0] == "screencap") {
				t.Errorf("device ran %q for invalid arguments", c.Line)
			}
		}
		if c.Touch != nil {
			t.Errorf("device was touched (%v) for invalid arguments", c.Touch)
		}
	}
}

// With a device queue of one, taps beyond the one running and the one
// waiting are refused with device_busy, never queued without bound.
func TestTapBusyDevice(t *testing.T) {
	e := newToolsEnvLimits(t, 1, adb.Limits{MaxQueue: 1}, nil)
	ph := e.device(0).Android()
	// Fill the screen cache first, so the taps below only queue for input.
	mustOK(t, e.call(t, t.Context(), devChannel(0), "android_device_status", `{}`, "", nil), nil)
	ph.SetLatency(500 * time.Millisecond)
	t.Cleanup(func() { ph.SetLatency(0) })
	const n = 5
	acks := make([]ackOf, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			acks[i] = e.call(t, t.Context(), devChannel(0), "android_tap", fmt.Sprintf(`{"x":%d,"y":5}`, i+1), "", nil)
		})
	}
	wg.Wait()
	codes := map[string]int{}
	for _, a := range acks {
		if a.Err != nil {
			codes[a.Err.Code]++
		} else {
			codes["ok"]++
		}
	}
	if codes["ok"] < 1 || codes[CodeDeviceBusy] < 1 || codes["ok"]+codes[CodeDeviceBusy] != n {
		t.Errorf("outcomes = %v, want some ok and the rest device_busy", codes)
	}
	if got := len(inputCommands(e.device(0))); got != codes["ok"] {
		t.Errorf("%d input commands for %d successful taps", got, codes["ok"])
	}
}

// BenchmarkTapOnVirtualPhone compares android_tap through the pipeline
// (validation, idempotency, rate limit, resolver, cached bounds check,
// audit) with adb.Device.Tap alone, on the same virtual phone.
func BenchmarkTapOnVirtualPhone(b *testing.B) {
	env := adbtest.Start(b, adbtest.Options{Devices: 1})
	db, err := store.Open(b.Context(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	client, err := adb.New(b.Context(), adb.Config{Endpoints: []string{env.ServerAddr}, NoTracking: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { client.Close() })
	key := adb.DeviceKey(env.ServerAddr, env.Devices[0].Serial())
	res := &testResolver{client: client, m: map[string]string{"cch_bench": key}}
	_, reg := registerTools(b, Config{Resolver: res, DB: db, RatePerMinute: 1 << 30})
	tap, _ := reg.Lookup("android_tap")
	d, _ := client.Device(key)
	args := json.RawMessage(`{"connector_channel_id":"cch_bench","x":700,"y":5}`) // status bar: no screen change
	b.Run("pipeline", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			if _, err := tap.Handler(b.Context(), connector.ToolCall{Channel: connector.Channel{ID: "cch_bench"},
				ToolID: "android_tap", Arguments: args, ToolCallID: fmt.Sprint("c", i), Progress: func(string, float64) {}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("adb.Device.Tap", func(b *testing.B) {
		for b.Loop() {
			if err := d.Tap(b.Context(), 700, 5); err != nil {
				b.Fatal(err)
			}
		}
	})
}
