package main

import (
	"context"
	be "encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/files"
)

// newMediaFlow is newFlow on a phone whose screenrecord takes its time
// limit, as a phone's does; it also returns the server, for downloads.
func newMediaFlow(t *testing.T, scenario string) (*flow, *serveProc) {
	env := adbtest.Start(t, adbtest.Options{Devices: 1, Scenario: scenario, RealTimeRecord: true})
	p := startServe(t, t.TempDir(), env.ServerAddr, nil)
	a := newAgent(t, p, "")
	ch := a.open(t)
	d := env.Devices[0]
	a.pair(t, p, ch, d.Serial())
	return &flow{t: t, a: a, ch: ch, d: d}, p
}

// download GETs a download_url as the agent's HTTP client does.
func (f *flow) download(p *serveProc, url string) (*http.Response, []byte) {
	f.t.Helper()
	req, err := http.NewRequestWithContext(f.t.Context(), http.MethodGet, p.URL+url, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set(files.ChannelHeader, f.ch)
	resp, err := noKeepAlive.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		f.t.Fatal(err)
	}
	return resp, body
}

// progressPushes takes the tool.progress.push frames received so far.
func (f *flow) progressPushes() []string {
	var out []string
	for {
		ctx, cancel := context.WithTimeout(f.t.Context(), 50*time.Millisecond)
		p, err := f.a.WaitPush(ctx, connector.TypeToolProgressPush)
		cancel()
		if err != nil {
			return out
		}
		out = append(out, string(p.Payload))
	}
}

// mp4Box walks the boxes of b (ISO/IEC 14496-12: a 32-bit big-endian size,
// 1 for a 64-bit size after the type, 0 for "to the end", then a
// four-character type) and returns the body of the first box of typ, or
// fails on a box that runs past b. Written apart from adb/parse, so the
// file is checked by a second reader.
func mp4Box(t *testing.T, b []byte, typ string) []byte {
	t.Helper()
	for len(b) >= 8 {
		size, hdr := uint64(be.BigEndian.Uint32(b)), uint64(8)
		switch size {
		case 0:
			size = uint64(len(b))
		case 1:
			size, hdr = be.BigEndian.Uint64(b[8:]), 16
		}
		if size < hdr || size > uint64(len(b)) {
			t.Fatalf("box %q of %d bytes runs past its parent (%d left)", b[4:8], size, len(b))
		}
		if string(b[4:8]) == typ {
			return b[hdr:size]
		}
		b = b[size:]
	}
	t.Fatalf("no %s box", typ)
	return nil
}

// TestScreenRecordFlow records 3 s through the real server, gets progress
// pushes while it records, downloads the file by its download_url and reads
// it as an MP4.
func TestScreenRecordFlow(t *testing.T) {
	t.Parallel()
	f, p := newMediaFlow(t, "launcher")
	start := time.Now()
	var rec struct {
		FileRef     string `json:"file_ref"`
		DownloadURL string `json:"download_url"`
		MIMEType    string `json:"mime_type"`
		Filename    string `json:"filename"`
		ByteSize    int64  `json:"byte_size"`
		Width       int    `json:"width"`
		Height      int    `json:"height"`
		ExpiresAt   int64  `json:"expires_at"`
		DurationMS  int64  `json:"duration_ms"`
	}
	f.call("android_screen_record", map[string]any{"duration_ms": 3000}, &rec)
	// The virtual phone samples a frame a second and stops after the last
	// one: a 3 s recording takes it about 2 s.
	if took := time.Since(start); took < 2*time.Second {
		t.Errorf("a 3 s recording took %v", took)
	}
	if rec.MIMEType != "video/mp4" || rec.Width != 720 || rec.Height != 1280 || rec.DurationMS != 3000 ||
		!strings.HasSuffix(rec.Filename, ".mp4") || rec.DownloadURL != files.DownloadPrefix+rec.FileRef ||
		time.UnixMilli(rec.ExpiresAt).Before(time.Now()) {
		t.Errorf("result %+v", rec)
	}
	if pushes := f.progressPushes(); len(pushes) == 0 || !strings.Contains(pushes[0], "android_screen_record") {
		t.Errorf("progress pushes during a 3 s recording: %q", pushes)
	}

	resp, body := f.download(p, rec.DownloadURL)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "video/mp4" || int64(len(body)) != rec.ByteSize {
		t.Fatalf("GET %s: %s %v, %d bytes", rec.DownloadURL, resp.Status, resp.Header, len(body))
	}
	if ftyp := body[4:8]; string(ftyp) != "ftyp" {
		t.Fatalf("first box %q, want ftyp", ftyp)
	}
	moov := mp4Box(t, body, "moov")
	mvhd := mp4Box(t, moov, "mvhd")
	var scale, dur uint64
	if mvhd[0] == 1 {
		scale, dur = uint64(be.BigEndian.Uint32(mvhd[20:])), be.BigEndian.Uint64(mvhd[24:])
	} else {
		scale, dur = uint64(be.BigEndian.Uint32(mvhd[12:])), uint64(be.BigEndian.Uint32(mvhd[16:]))
	}
	if scale == 0 || dur*1000/scale != 3000 {
		t.Errorf("mvhd: duration %d at timescale %d, want 3 s", dur, scale)
	}
	tkhd := mp4Box(t, mp4Box(t, moov, "trak"), "tkhd")
	if w, h := be.BigEndian.Uint32(tkhd[len(tkhd)-8:])>>16, be.BigEndian.Uint32(tkhd[len(tkhd)-4:])>>16; w != 720 || h != 1280 {
		t.Errorf("tkhd: %dx%d", w, h)
	}
	if len(mp4Box(t, body, "mdat")) == 0 {
		t.Error("empty mdat")
	}
	// Nothing stays on the phone.
	infos, err := f.d.Android().FS().ReadDir("/data/local/tmp")
	if err != nil {
		t.Fatal(err)
	}
	for _, fi := range infos {
		if strings.HasSuffix(fi.Name, ".mp4") {
			t.Errorf("left on the phone: %s", fi.Name)
		}
	}

	// The same tool_call_id gets the recorded ack: no second recording.
	before := f.commands("screenrecord")
	first := f.a.invokeID(t, f.ch, "android_screen_record", "call_rec_once", map[string]any{"duration_ms": 1000})
	again := f.a.invokeID(t, f.ch, "android_screen_record", "call_rec_once", map[string]any{"duration_ms": 1000})
	if first.Error != nil || string(first.Payload) != string(again.Payload) || f.commands("screenrecord") != before+1 {
		t.Errorf("repeated tool_call_id: %s then %s, %d recordings", first.Payload, again.Payload, f.commands("screenrecord")-before)
	}
}

// commands counts the commands named name the phone ran.
func (f *flow) commands(name string) int {
	n := 0
	for _, c := range f.d.Android().Commands() {
		for _, argv := range c.Argv {
			if len(argv) > 0 && argv[0] == name {
				n++
			}
		}
	}
	return n
}

// logLine is a line of android_logcat's result.
type logLine struct {
	Time    string `json:"time"`
	PID     int    `json:"pid"`
	TID     int    `json:"tid"`
	Level   string `json:"level"`
	Tag     string `json:"tag"`
	Message string `json:"message"`
}

type logResult struct {
	Lines []logLine `json:"lines"`
	Count int       `json:"count"`
	PIDs  []int     `json:"pids"`
	Note  string    `json:"note"`
}

// TestLogcatFlow reads the phone's log through the real server, filtered
// by tag, level, text and package; bad arguments run nothing.
func TestLogcatFlow(t *testing.T) {
	t.Parallel()
	f := newFlow(t, "login")
	ph := f.d.Android()
	ph.Log('I', "E2EMedia", "first line")
	ph.Log('D', "E2EMedia", "a debug line")
	ph.Log('E', "E2EMedia", "an error line")
	ph.Log('E', "SGM:GameManager", "a tag with a colon")

	var res logResult
	f.call("android_logcat", map[string]any{"tag": "E2EMedia"}, &res)
	if len(res.Lines) != 3 || res.Count != 3 || res.Lines[0].Message != "first line" || res.Lines[2].Level != "error" {
		t.Errorf("by tag: %+v", res)
	}
	f.call("android_logcat", map[string]any{"tag": "E2EMedia", "min_level": "warn"}, &res)
	if len(res.Lines) != 1 || res.Lines[0].Message != "an error line" {
		t.Errorf("by tag and level: %+v", res)
	}
	f.call("android_logcat", map[string]any{"tag": "SGM:GameManager"}, &res)
	if len(res.Lines) != 1 || res.Lines[0].Tag != "SGM:GameManager" {
		t.Errorf("by a tag with a colon: %+v", res)
	}
	f.call("android_logcat", map[string]any{"contains": "DEBUG LINE", "since_ms": 60000}, &res)
	if len(res.Lines) != 1 || res.Lines[0].Tag != "E2EMedia" {
		t.Errorf("by text: %+v", res)
	}

	t.Run("by package", func(t *testing.T) {
		var none logResult
		f.call("android_logcat", map[string]any{"package": "com.example.notrunning"}, &none)
		if len(none.Lines) != 0 || len(none.PIDs) != 0 || !strings.Contains(none.Note, "not running") {
			t.Errorf("a package that is not running: %+v", none)
		}
		pkg, _ := ph.Foreground()
		ph.LogAs(pkg, 'I', "E2EApp", "from the app's own process")
		ph.Log('I', "E2EApp", "from another process")
		var got logResult
		f.call("android_logcat", map[string]any{"package": pkg}, &got)
		if len(got.PIDs) == 0 {
			t.Fatalf("%s in front has no process: %+v", pkg, got)
		}
		if !slices.ContainsFunc(got.Lines, func(l logLine) bool { return l.Message == "from the app's own process" }) ||
			slices.ContainsFunc(got.Lines, func(l logLine) bool { return l.Message == "from another process" }) {
			t.Errorf("by package %s: %+v", pkg, got.Lines)
		}
		for _, l := range got.Lines {
			if !slices.Contains(got.PIDs, l.PID) {
				t.Errorf("line of pid %d, not of %s (%v)", l.PID, pkg, got.PIDs)
			}
		}
		asked := false
		for _, c := range ph.Commands() {
			for _, argv := range c.Argv {
				asked = asked || len(argv) > 0 && argv[0] == "logcat" && slices.Contains(argv, "--pid="+strconv.Itoa(got.PIDs[0]))
			}
		}
		if len(got.PIDs) == 1 && !asked {
			t.Errorf("logcat was not asked for pid %d", got.PIDs[0])
		}
	})

	t.Run("bad arguments run nothing", func(t *testing.T) {
		ph.ClearCommands()
		for _, tc := range []struct {
			tool  string
			args  map[string]any
			field string
		}{
			{"android_logcat", map[string]any{"lines": 0}, "lines"},
			{"android_logcat", map[string]any{"lines": 5001}, "lines"},
			{"android_logcat", map[string]any{"min_level": "loud"}, "min_level"},
			{"android_logcat", map[string]any{"package": "com.foo;reboot"}, "package"},
			{"android_logcat", map[string]any{"tag": strings.Repeat("t", 129)}, "tag"},
			{"android_logcat", map[string]any{"contains": strings.Repeat("c", 257)}, "contains"},
			{"android_logcat", map[string]any{"since_ms": -1}, "since_ms"},
			{"android_screen_record", map[string]any{"duration_ms": 999}, "duration_ms"},
			{"android_screen_record", map[string]any{"duration_ms": 30001}, "duration_ms"},
			{"android_screen_record", map[string]any{"duration_ms": 1000, "max_side": 16}, "max_side"},
			{"android_screen_record", map[string]any{"duration_ms": 1000, "bit_rate": 1}, "bit_rate"},
		} {
			e := f.fail(tc.tool, tc.args)
			b, _ := json.Marshal(tc.args)
			if e.Code != "invalid_arguments" || !strings.Contains(e.Message, tc.field) {
				t.Errorf("%s %.60s: %+v, want invalid_arguments on %s", tc.tool, b, e, tc.field)
			}
		}
		if n := len(ph.Commands()); n != 0 {
			t.Errorf("bad calls ran %d commands: %+v", n, ph.Commands())
		}
	})
}
