package tools

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/parse"
	"github.com/google/go-cmp/cmp"
)

func intp(v int) *int { return &v }

func TestLogcatOptions(t *testing.T) {
	t.Parallel()
	now := time.UnixMilli(1764748800500)
	for _, tc := range []struct {
		args    logcatArgs
		pids    []int
		filters []string
		lines   int
		since   time.Time
		pid     int
		match   bool
	}{
		{logcatArgs{}, nil, nil, defaultLogcatLines, time.Time{}, 0, false},
		{logcatArgs{Lines: intp(7), MinLevel: "verbose"}, nil, nil, 7, time.Time{}, 0, false},
		{logcatArgs{MinLevel: "warn"}, nil, []string{"*:w"}, defaultLogcatLines, time.Time{}, 0, false},
		{logcatArgs{Tag: "ActivityManager"}, nil, []string{"ActivityManager:v", "*:S"}, defaultLogcatLines, time.Time{}, 0, false},
		{logcatArgs{Tag: "ActivityManager", MinLevel: "fatal"}, nil, []string{"ActivityManager:f", "*:S"}, defaultLogcatLines, time.Time{}, 0, false},
		// liblog splits filter specs at ':' and spaces: such tags are
		// matched here, the level still by logcat.
		{logcatArgs{Tag: "SGM:GameManager", MinLevel: "error"}, nil, []string{"*:e"}, defaultLogcatLines, time.Time{}, 0, true},
		{logcatArgs{Tag: "display :"}, nil, nil, defaultLogcatLines, time.Time{}, 0, true},
		{logcatArgs{SinceMS: 1500, Contains: "x"}, nil, nil, defaultLogcatLines, time.UnixMilli(1764748799000), 0, true},
		{logcatArgs{Package: "com.example.app"}, []int{4242}, nil, defaultLogcatLines, time.Time{}, 4242, false},
		{logcatArgs{Package: "com.example.app"}, []int{4242, 4343}, nil, defaultLogcatLines, time.Time{}, 0, true},
	} {
		opt := tc.args.options(now, tc.pids)
		if !cmp.Equal(opt.Filters, tc.filters) || opt.Lines != tc.lines || !opt.Since.Equal(tc.since) || opt.PID != tc.pid ||
			(opt.Match != nil) != tc.match {
			t.Errorf("%+v %v: %+v", tc.args, tc.pids, opt)
		}
	}
	match := logcatArgs{Tag: "SGM:GameManager", Contains: "DISPLAY"}.options(now, []int{1, 2}).Match
	for _, tc := range []struct {
		l    parse.LogLine
		want bool
	}{
		{parse.LogLine{PID: 2, Tag: "SGM:GameManager", Message: "onDisplayChanged"}, true},
		{parse.LogLine{PID: 3, Tag: "SGM:GameManager", Message: "onDisplayChanged"}, false},
		{parse.LogLine{PID: 1, Tag: "SGM:GameManager", Message: "other"}, false},
		{parse.LogLine{PID: 1, Tag: "SGM", Message: "display"}, false},
	} {
		if got := match(tc.l); got != tc.want {
			t.Errorf("%+v: %v", tc.l, got)
		}
	}
}

func TestLogcatOnVirtualPhone(t *testing.T) {
	e := newToolsEnv(t, 1, nil)
	ph := e.device(0).Android()
	ph.Log('I', "MediaTest", "first hello")
	ph.Log('D', "MediaTest", "debug HELLO")
	ph.Log('I', "Other", "hello from elsewhere")
	ph.Log('W', "SGM:GameManager", "onDisplayChanged. displyId: 0, state: 2")
	ph.Log('E', "MediaTest", "bad\x00bytes\xff")
	logcat := func(t *testing.T, args string) logcatResult {
		t.Helper()
		var res logcatResult
		mustOK(t, e.call(t, t.Context(), devChannel(0), "android_logcat", args, "", nil), &res)
		if res.Count != len(res.Lines) && res.File == nil {
			t.Errorf("count %d with %d lines", res.Count, len(res.Lines))
		}
		return res
	}
	messages := func(res logcatResult) []string {
		var out []string
		for _, l := range res.Lines {
			out = append(out, l.Level+" "+l.Tag+" "+l.Message)
		}
		return out
	}
	for _, tc := range []struct {
		args string
		want []string
	}{
		{`{"tag": "MediaTest"}`, []string{"info MediaTest first hello", "debug MediaTest debug HELLO", "error MediaTest bad\uFFFDbytes\uFFFD"}},
		{`{"tag": "MediaTest", "min_level": "info"}`, []string{"info MediaTest first hello", "error MediaTest bad\uFFFDbytes\uFFFD"}},
		{`{"tag": "MediaTest", "lines": 1}`, []string{"error MediaTest bad\uFFFDbytes\uFFFD"}},
		{`{"contains": "hello", "lines": 2}`, []string{"debug MediaTest debug HELLO", "info Other hello from elsewhere"}},
		{`{"tag": "SGM:GameManager"}`, []string{"warn SGM:GameManager onDisplayChanged. displyId: 0, state: 2"}},
		{`{"tag": "MediaTest", "contains": "nothing like it"}`, nil},
		{`{"min_level": "error", "since_ms": 60000, "tag": "MediaTest"}`, []string{"error MediaTest bad\uFFFDbytes\uFFFD"}},
	} {
		if diff := cmp.Diff(tc.want, messages(logcat(t, tc.args))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.args, diff)
		}
	}
	res := logcat(t, `{"tag": "MediaTest", "lines": 1}`)
	if l := res.Lines[0]; l.PID <= 0 || l.TID <= 0 || l.Time == "" || res.File != nil {
		t.Errorf("line %+v", res)
	}

	t.Run("over 64 KiB: a text file", func(t *testing.T) {
		long := strings.Repeat("x", 200)
		for i := range 600 {
			ph.Log('I', "Bulk", fmt.Sprintf("%04d %s", i, long))
		}
		res := logcat(t, `{"tag": "Bulk", "lines": 5000}`)
		if res.File == nil || len(res.Lines) != 0 || res.Count != 600 || res.File.MIMEType != "text/plain" ||
			!strings.HasSuffix(res.File.Filename, ".txt") {
			t.Fatalf("result %+v", res)
		}
		text := string(e.download(t, res.File.FileRef, devChannel(0)))
		rows := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		if len(rows) != 600 || !strings.Contains(rows[0], " I Bulk    : 0000 x") || !strings.HasSuffix(rows[599], long) {
			t.Errorf("file: %d rows, first %q", len(rows), rows[0])
		}
		// Parsed back as logcat output, the file gives the same lines.
		back, err := parse.Logcat(text)
		if err != nil || len(back) != 600 || back[599].Message != "0599 "+long {
			t.Errorf("file does not parse back: %d lines, %v", len(back), err)
		}
		// Fewer lines fit inline.
		if res := logcat(t, `{"tag": "Bulk", "lines": 100}`); res.File != nil || len(res.Lines) != 100 {
			t.Errorf("100 lines: file %v, %d lines", res.File, len(res.Lines))
		}
	})

	t.Run("package without pidof", func(t *testing.T) {
		ph.FailNextWithStatus(1, 127) // the shell's "not found"
		a := e.call(t, t.Context(), devChannel(0), "android_logcat", `{"package": "com.example.login"}`, "", nil)
		if a.Err == nil || a.Err.Code != codeNotSupported || a.Err.Message != msgNoPidof {
			t.Errorf("ack %+v", a)
		}
	})

	t.Run("bad arguments run nothing", func(t *testing.T) {
		ph.ClearCommands()
		for _, tc := range []struct{ args, field string }{
			{`{"lines": 0}`, "lines"},
			{`{"lines": 5001}`, "lines"},
			{`{"min_level": "trace"}`, "min_level"},
			{`{"min_level": "V"}`, "min_level"},
			{`{"package": "com.foo;reboot"}`, "package"},
			{`{"package": "com.foo reboot"}`, "package"},
			{`{"package": "$(reboot)"}`, "package"},
			{`{"package": "com..foo"}`, "package"},
			{`{"tag": ""}`, "tag"},
			{`{"tag": "` + strings.Repeat("t", maxLogcatTagChars+1) + `"}`, "tag"},
			{`{"contains": "` + strings.Repeat("c", maxLogcatContains+1) + `"}`, "contains"},
			{`{"since_ms": 0}`, "since_ms"},
			{`{"since_ms": 604800001}`, "since_ms"},
			{`{"buffer": "radio"}`, "buffer"},
		} {
			a := e.call(t, t.Context(), devChannel(0), "android_logcat", tc.args, "", nil)
			if a.Err == nil || a.Err.Code != "invalid_arguments" || !strings.Contains(a.Err.Message, tc.field) {
				t.Errorf("%.80s: %+v", tc.args, a.Err)
			}
		}
		if n := len(ph.Commands()); n != 0 {
			t.Errorf("%d commands ran", n)
		}
	})
}

// TestLogcatWithoutFileStore: with no file store the newest lines that fit
// come inline and omitted counts the rest.
func TestLogcatWithoutFileStore(t *testing.T) {
	e := newToolsEnv(t, 1, nil)
	_, reg := registerTools(t, Config{Resolver: e.resolver, DB: e.db})
	long := strings.Repeat("y", 300)
	for i := range 400 {
		e.device(0).Android().Log('I', "Bulk", fmt.Sprintf("%04d %s", i, long))
	}
	var res logcatResult
	mustOK(t, invokeTool(t, t.Context(), reg, devChannel(0), "android_logcat", `{"tag": "Bulk", "lines": 400}`, "", nil), &res)
	if res.File != nil || res.Omitted == 0 || res.Omitted+len(res.Lines) != 400 || res.Count != 400 ||
		!strings.HasPrefix(res.Lines[len(res.Lines)-1].Message, "0399 ") {
		t.Errorf("omitted %d, %d lines, file %v", res.Omitted, len(res.Lines), res.File)
	}
}
