package tools

import (
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/audit"
)

func TestClipboardThroughHelper(t *testing.T) {
	e := newToolsEnvHelper(t, adbtest.Options{Devices: 1}, adb.Limits{}, true, nil)
	ph := e.device(0).Android()
	ch := devChannel(0)
	text := "Пароль: 語 ✓ ok"
	var set clipboardResult
	mustOK(t, e.call(t, t.Context(), ch, "android_clipboard", `{"action":"set","text":"`+text+`"}`, "", nil), &set)
	if set.Set != len([]rune(text)) || set.Text != nil || ph.Clipboard() != text {
		t.Fatalf("set: %+v, phone clipboard %q", set, ph.Clipboard())
	}
	var got clipboardResult
	mustOK(t, e.call(t, t.Context(), ch, "android_clipboard", `{"action":"get"}`, "", nil), &got)
	if got.Text == nil || *got.Text != text {
		t.Fatalf("get: %+v", got)
	}
	for _, tc := range []struct{ args, field string }{
		{`{"action":"set"}`, "text"},
		{`{"action":"get","text":"x"}`, "text"},
		{`{"action":"set","text":"` + strings.Repeat("語", maxClipboardChars+1) + `"}`, "text"},
		{`{"action":"cut"}`, "action"},
	} {
		a := e.call(t, t.Context(), ch, "android_clipboard", tc.args, "", nil)
		if a.Err == nil || a.Err.Code != connector.CodeInvalidArguments || !strings.Contains(a.Err.Message, tc.field) {
			t.Errorf("%.60s: %+v, want invalid_arguments on %s", tc.args, a, tc.field)
		}
	}
	if ph.Clipboard() != text {
		t.Errorf("bad arguments changed the clipboard to %q", ph.Clipboard())
	}
	// The audit keeps the set text's length, never the text.
	rows, err := audit.Read(t.Context(), e.db.Read, audit.Query{ToolID: "android_clipboard"})
	if err != nil || len(rows) == 0 {
		t.Fatalf("audit rows %v %v", rows, err)
	}
	for _, r := range rows {
		if strings.Contains(string(r.Args), "Пароль") || strings.Contains(string(r.Args), "語") {
			t.Errorf("audit row holds the text: %s", r.Args)
		}
	}
}

func TestClipboardWithoutHelper(t *testing.T) {
	e := newToolsEnv(t, 1, nil)
	a := e.call(t, t.Context(), devChannel(0), "android_clipboard", `{"action":"set","text":"secret-value"}`, "", nil)
	if a.Err == nil || a.Err.Code != codeNotSupported || !strings.Contains(a.Err.Message, "phone helper") || strings.Contains(a.Err.Message, "secret") {
		t.Fatalf("%+v, want not_supported naming the helper", a)
	}
	if e.device(0).Android().Clipboard() != "" {
		t.Error("the clipboard was set")
	}
}

func TestClipboardPolicy(t *testing.T) {
	for _, tc := range []struct{ mode, action, want string }{
		{"none", "get", "clipboard is off"}, {"none", "set", "clipboard is off"}, {"write", "get", "reading the clipboard"},
	} {
		e := newToolsEnv(t, 1, func(c *Config) {
			c.Policy = policyHolder(t, "policies:\n  default: {clipboard: "+tc.mode+"}\n")
		})
		args := `{"action":"get"}`
		if tc.action == "set" {
			args = `{"action":"set","text":"x"}`
		}
		a := e.call(t, t.Context(), devChannel(0), "android_clipboard", args, "", nil)
		if a.Err == nil || a.Err.Code != codeNotPermitted || !strings.Contains(a.Err.Message, tc.want) {
			t.Errorf("%s %s: %+v, want not_permitted", tc.mode, tc.action, a)
		}
	}
}
