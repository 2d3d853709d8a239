package tools

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/adb/parse"
	"github.com/adb-connector/adb-connector/emulator"
	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/files"
	"github.com/adb-connector/adb-connector/store"
)

func TestRecordSize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		si      adb.ScreenInfo
		maxSide int
		w, h    int
	}{
		{adb.ScreenInfo{Width: 720, Height: 1280}, 640, 352, 640},
		{adb.ScreenInfo{Width: 720, Height: 1280, Rotation: 1}, 640, 640, 352},
		{adb.ScreenInfo{Width: 1080, Height: 2400}, 1000, 448, 1000 / 16 * 16},
		{adb.ScreenInfo{Width: 720, Height: 1280}, 1280, 0, 0},
		{adb.ScreenInfo{Width: 720, Height: 1280}, 4096, 0, 0},
		{adb.ScreenInfo{Width: 200, Height: 4000}, 128, 16, 128},
		{adb.ScreenInfo{}, 128, 0, 0},
	} {
		if w, h := recordSize(tc.si, tc.maxSide); w != tc.w || h != tc.h {
			t.Errorf("recordSize(%+v, %d) = %dx%d, want %dx%d", tc.si, tc.maxSide, w, h, tc.w, tc.h)
		}
	}
}

// recordings returns the screenrecord commands a phone ran, without the
// file name, and forgets them.
func recordings(d *emulator.Device) []string {
	var out []string
	for _, c := range d.Android().Commands() {
		for _, argv := range c.Argv {
			if len(argv) > 0 && argv[0] == "screenrecord" {
				out = append(out, strings.Join(argv[:len(argv)-1], " "))
			}
		}
	}
	d.Android().ClearCommands()
	return out
}

// leftRecordings fails if a recording is still on the phone.
func leftRecordings(t *testing.T, d *emulator.Device) {
	t.Helper()
	infos, err := d.Android().FS().ReadDir("/data/local/tmp")
	if err != nil {
		t.Fatal(err)
	}
	for _, fi := range infos {
		if strings.HasSuffix(fi.Name, ".mp4") {
			t.Errorf("left on the phone: %s", fi.Name)
		}
	}
}

func TestScreenRecordOnVirtualPhone(t *testing.T) {
	e := newToolsEnv(t, 1, func(c *Config) { c.MaxRecordDuration = 5 * time.Second })
	dev := e.device(0)

	t.Run("shrunk", func(t *testing.T) {
		var res recordResult
		mustOK(t, e.call(t, t.Context(), devChannel(0), "android_screen_record", `{"duration_ms": 1500, "max_side": 640}`, "", nil), &res)
		b := e.download(t, res.FileRef, devChannel(0))
		info, err := parse.MP4(b)
		if err != nil {
			t.Fatal(err)
		}
		if res.MIMEType != "video/mp4" || !strings.HasSuffix(res.Filename, ".mp4") || res.ByteSize != int64(len(b)) ||
			res.Width != 352 || res.Height != 640 || info.Width != 352 || info.Height != 640 ||
			res.DurationMS != 2000 || info.Duration != 2*time.Second || res.DownloadURL != files.DownloadPrefix+res.FileRef {
			t.Errorf("result %+v, file %+v", res, info)
		}
		if got := recordings(dev); len(got) != 1 || got[0] != "screenrecord --time-limit 2 --size 352x640 --bit-rate 4000000" {
			t.Errorf("ran %q", got)
		}
		leftRecordings(t, dev)
	})
	t.Run("full size", func(t *testing.T) {
		var res recordResult
		mustOK(t, e.call(t, t.Context(), devChannel(0), "android_screen_record", `{"duration_ms": 1000, "max_side": 2000, "bit_rate": 100000}`, "", nil), &res)
		if res.Width != 720 || res.Height != 1280 || res.DurationMS != 1000 {
			t.Errorf("result %+v", res)
		}
		if got := recordings(dev); len(got) != 1 || got[0] != "screenrecord --time-limit 1 --bit-rate 100000" {
			t.Errorf("ran %q", got)
		}
	})
	t.Run("bad arguments run nothing", func(t *testing.T) {
		for _, tc := range []struct{ args, field string }{
			{`{}`, "duration_ms"},
			{`{"duration_ms": 999}`, "duration_ms"},
			{`{"duration_ms": 5001}`, "duration_ms"}, // over the operator's cap
			{`{"duration_ms": 1000.5}`, "duration_ms"},
			{`{"duration_ms": 1000, "max_side": 127}`, "max_side"},
			{`{"duration_ms": 1000, "max_side": 4097}`, "max_side"},
			{`{"duration_ms": 1000, "bit_rate": 99999}`, "bit_rate"},
			{`{"duration_ms": 1000, "bit_rate": 200000001}`, "bit_rate"},
			{`{"duration_ms": 1000, "fps": 30}`, "fps"},
		} {
			a := e.call(t, t.Context(), devChannel(0), "android_screen_record", tc.args, "", nil)
			if a.Err == nil || a.Err.Code != "invalid_arguments" || !strings.Contains(a.Err.Message, tc.field) {
				t.Errorf("%s: %+v", tc.args, a.Err)
			}
		}
		if n := len(dev.Android().Commands()); n != 0 {
			t.Errorf("%d commands ran", n)
		}
	})
	t.Run("screenrecord fails", func(t *testing.T) {
		dev.Android().FailNext(1)
		a := e.call(t, t.Context(), devChannel(0), "android_screen_record", `{"duration_ms": 1000}`, "", nil)
		if a.Err == nil || a.Err.Code != "tool_invoke_failed" {
			t.Errorf("ack %+v", a)
		}
		leftRecordings(t, dev)
		dev.Android().FailNextWithStatus(1, 127)
		a = e.call(t, t.Context(), devChannel(0), "android_screen_record", `{"duration_ms": 1000}`, "", nil)
		if a.Err == nil || a.Err.Code != codeNotSupported {
			t.Errorf("ack %+v", a)
		}
	})
	t.Run("same tool_call_id records once", func(t *testing.T) {
		recordings(dev)
		var first, again recordResult
		mustOK(t, e.call(t, t.Context(), devChannel(0), "android_screen_record", `{"duration_ms": 1000}`, "rec-1", nil), &first)
		mustOK(t, e.call(t, t.Context(), devChannel(0), "android_screen_record", `{"duration_ms": 1000}`, "rec-1", nil), &again)
		if first != again || len(recordings(dev)) != 1 {
			t.Errorf("repeated call: %+v then %+v", first, again)
		}
	})
}

// TestScreenRecordTooLarge: a video over the store's limit is refused with
// a message saying what to change, and nothing stays on the phone.
func TestScreenRecordTooLarge(t *testing.T) {
	e := newToolsEnv(t, 1, nil)
	db, err := store.Open(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	small, err := files.Open(t.Context(), db, files.Config{JanitorInterval: -1, MaxFileBytes: 512})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { small.Close() })
	_, reg := registerTools(t, Config{Resolver: e.resolver, Files: small, DB: db})
	a := invokeTool(t, t.Context(), reg, devChannel(0), "android_screen_record", `{"duration_ms": 2000}`, "", nil)
	if a.Err == nil || a.Err.Code != "tool_invoke_failed" || a.Err.Message != msgRecordTooLarge {
		t.Errorf("ack %+v", a)
	}
	leftRecordings(t, e.device(0))
}

// TestScreenRecordCancelled: a call cancelled mid-recording leaves no file
// on the phone, even though the phone's screenrecord finishes its file
// when the stream closes.
func TestScreenRecordCancelled(t *testing.T) {
	e := newToolsEnvOpts(t, adbtest.Options{Devices: 1, RealTimeRecord: true}, adb.Limits{}, nil)
	ph := e.device(0).Android()
	ctx, cancel := context.WithCancel(t.Context())
	// The cancel point only needs to fall inside the 10 s recording.
	stop := time.AfterFunc(1500*time.Millisecond, cancel)
	defer stop.Stop()
	a := e.call(t, ctx, devChannel(0), "android_screen_record", `{"duration_ms": 10000}`, "", nil)
	if a.Err == nil {
		t.Fatalf("ack %s", a.Result)
	}
	// The phone logs screenrecord once it has ended (and written its file).
	wctx, wcancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer wcancel()
	if _, err := ph.WaitCommand(wctx, func(c android.Command) bool { return strings.HasPrefix(c.Line, "screenrecord") }); err != nil {
		t.Fatal(err)
	}
	leftRecordings(t, e.device(0))
}
