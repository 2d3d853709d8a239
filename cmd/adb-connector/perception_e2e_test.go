package main

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/emulator"
)

// uiElement and uiList are the parts of android_ui_elements' result the
// flows read.
type uiElement struct {
	Ref         string `json:"ref"`
	Class       string `json:"class"`
	Text        string `json:"text"`
	ContentDesc string `json:"content_desc"`
	ResourceID  string `json:"resource_id"`
	Center      [2]int `json:"center"`
	Checked     bool   `json:"checked"`
	Editable    bool   `json:"editable"`
}

type uiList struct {
	Elements   []uiElement `json:"elements"`
	ScreenID   string      `json:"screen_id"`
	Foreground struct {
		Package  string `json:"package"`
		Activity string `json:"activity"`
	} `json:"foreground"`
}

func (l uiList) find(t *testing.T, pred func(uiElement) bool) uiElement {
	t.Helper()
	for _, e := range l.Elements {
		if pred(e) {
			return e
		}
	}
	t.Fatalf("no such element on %s: %+v", l.ScreenID, l.Elements)
	return uiElement{}
}

// flow is one paired agent channel on a virtual phone.
type flow struct {
	t  *testing.T
	a  *agent
	ch string
	d  *emulator.Device
}

func newFlow(t *testing.T, scenario string) *flow {
	env := adbtest.Start(t, adbtest.Options{Devices: 1, Scenario: scenario})
	p := startServe(t, t.TempDir(), env.ServerAddr, nil)
	a := newAgent(t, p, "")
	ch := a.open(t)
	d := env.Devices[0]
	a.pair(t, p, ch, d.Serial())
	return &flow{t: t, a: a, ch: ch, d: d}
}

// call invokes tool and decodes a successful result into v (nil: ignore).
func (f *flow) call(tool string, args map[string]any, v any) {
	f.t.Helper()
	pk := f.a.invoke(f.t, f.ch, tool, args)
	if v != nil {
		result(f.t, pk, v)
	} else if pk.Error != nil {
		f.t.Fatalf("%s %v: %+v", tool, args, pk.Error)
	}
}

// fail invokes tool and returns its error code and message.
func (f *flow) fail(tool string, args map[string]any) *connector.Error {
	f.t.Helper()
	pk := f.a.invoke(f.t, f.ch, tool, args)
	if pk.Error == nil {
		f.t.Fatalf("%s %v succeeded: %s", tool, args, pk.Payload)
	}
	return pk.Error
}

func (f *flow) elements() uiList {
	f.t.Helper()
	var l uiList
	f.call("android_ui_elements", map[string]any{}, &l)
	return l
}

// inputs lists the gestures the phone received: input commands and what
// its touchscreen decoded (touchLine).
func (f *flow) inputs() []string {
	var out []string
	for _, c := range f.d.Android().Commands() {
		if c.Touch != nil {
			out = append(out, touchLine(c.Touch))
		}
		for _, argv := range c.Argv {
			if len(argv) > 0 && argv[0] == "input" {
				out = append(out, strings.Join(argv, " "))
			}
		}
	}
	return out
}

// TestLoginFlows logs in on the login scenario through the real server,
// the real adb server and the virtual phone: once by resource_id, once by
// refs and text, with a stale ref along the way.
func TestLoginFlows(t *testing.T) {
	t.Parallel()
	// The stock path, whose `input text` quoting this checks (the phone
	// helper's path: TestPhoneHelperFlows).
	f := newPolicyFlow(t, "login", helperOff).flow
	login := f.elements()
	if login.Foreground.Package != "com.example.login" || login.ScreenID == "" {
		t.Fatalf("login screen: %+v", login)
	}
	submit := login.find(t, func(e uiElement) bool { return strings.HasSuffix(e.ResourceID, "id/submit") })

	// By resource_id; the name has every character a shell treats specially.
	name := `a b'c"d$e;f&g|h\i%`
	before := len(f.inputs())
	var typed struct {
		Typed        int   `json:"typed"`
		TypedExactly *bool `json:"typed_exactly"`
	}
	f.call("android_type_text", map[string]any{"text": name, "target": map[string]any{"resource_id": "username"}, "verify": true}, &typed)
	if typed.TypedExactly == nil || !*typed.TypedExactly || typed.Typed != len([]rune(name)) {
		t.Fatalf("typed %+v", typed)
	}
	texts := 0
	for _, c := range f.inputs()[before:] {
		if strings.HasPrefix(c, "input text ") {
			texts++
		}
	}
	if texts != 1 {
		t.Errorf("%d input text commands for one name: %v", texts, f.inputs()[before:])
	}
	typed.TypedExactly = nil
	f.call("android_type_text", map[string]any{"text": "hunter2", "target": map[string]any{"resource_id": "com.example.login:id/password"}, "verify": true}, &typed)
	if typed.TypedExactly != nil {
		t.Errorf("a password field read back: %v", *typed.TypedExactly)
	}
	// The ref of SIGN IN is from the screen before typing: stale, but the
	// button is found again by identity.
	var tap struct {
		Element    *uiElement `json:"element"`
		UIChanged  bool       `json:"ui_changed"`
		ScreenID   string     `json:"screen_id"`
		Foreground struct {
			Activity string `json:"activity"`
		} `json:"foreground"`
	}
	f.call("android_tap", map[string]any{"ref": submit.Ref, "screen_id": login.ScreenID, "verify": true}, &tap)
	if tap.Element == nil || tap.Element.Text != "SIGN IN" || !tap.UIChanged || !strings.HasSuffix(tap.Foreground.Activity, "WelcomeActivity") {
		t.Fatalf("tap on a stale ref: %+v", tap)
	}
	var wait struct {
		Met     bool       `json:"met"`
		Element *uiElement `json:"element"`
	}
	f.call("android_wait_for", map[string]any{"condition": "appears", "text": "Welcome, " + name + "!", "timeout_ms": 3000}, &wait)
	if !wait.Met || wait.Element == nil {
		t.Fatalf("welcome did not appear: %+v", wait)
	}

	// Sign out, then by refs and text; a ref of the welcome screen is stale
	// on the login screen and says so.
	welcome := f.elements()
	signOut := welcome.find(t, func(e uiElement) bool { return e.Text == "SIGN OUT" })
	f.call("android_tap", map[string]any{"text": "SIGN OUT"}, nil)
	e := f.fail("android_tap", map[string]any{"ref": signOut.Ref, "screen_id": welcome.ScreenID})
	if e.Code != "element_not_found" || !strings.Contains(e.Message, "screen changed") {
		t.Fatalf("stale ref of a gone element: %+v", e)
	}
	login = f.elements()
	user := login.find(t, func(e uiElement) bool { return e.Editable && strings.HasSuffix(e.ResourceID, "username") })
	pass := login.find(t, func(e uiElement) bool { return e.Editable && strings.HasSuffix(e.ResourceID, "password") })
	f.call("android_type_text", map[string]any{"text": "ann", "clear": true, "target": map[string]any{"ref": user.Ref, "screen_id": login.ScreenID}}, nil)
	f.call("android_type_text", map[string]any{"text": "pw", "clear": true, "target": map[string]any{"ref": pass.Ref, "screen_id": login.ScreenID}}, nil)
	e = f.fail("android_tap", map[string]any{"text": "sign in", "match": "contains"})
	if e.Code != "element_ambiguous" || !strings.Contains(e.Message, `"SIGN IN"`) {
		t.Fatalf("title and button both match: %+v", e)
	}
	f.call("android_tap", map[string]any{"text": "sign in", "match": "contains", "index": 1}, nil)
	f.call("android_wait_for", map[string]any{"condition": "appears", "text": "Welcome, ann!", "timeout_ms": 3000}, &wait)
	if !wait.Met {
		t.Fatal("welcome after the second login did not appear")
	}
	f.call("android_wait_for", map[string]any{"condition": "idle", "timeout_ms": 2000}, &wait)
	if !wait.Met {
		t.Error("a still screen is not idle")
	}
}

// TestWiFiToggleFlow toggles Wi-Fi in the launcher's Settings by tapping
// the row's text, and confirms with checked.
func TestWiFiToggleFlow(t *testing.T) {
	t.Parallel()
	f := newFlow(t, "launcher")
	f.call("android_tap", map[string]any{"text": "Settings"}, nil)
	f.call("android_tap", map[string]any{"text": "Network & internet"}, nil)
	sw := func() bool {
		l := f.elements()
		return l.find(t, func(e uiElement) bool { return e.Class == "Switch" && e.ContentDesc == "Wi-Fi" }).Checked
	}
	was := sw()
	var tap struct {
		UIChanged bool `json:"ui_changed"`
	}
	f.call("android_tap", map[string]any{"text": "Wi-Fi", "verify": true}, &tap)
	if !tap.UIChanged || sw() == was {
		t.Fatalf("Wi-Fi switch did not flip (was %v, ui_changed %v)", was, tap.UIChanged)
	}
}

// TestPerceptionBadInput: every selector mistake is invalid_arguments
// naming the field, and nothing reaches the phone's input.
func TestPerceptionBadInput(t *testing.T) {
	t.Parallel()
	f := newFlow(t, "login")
	l := f.elements()
	before := len(f.inputs())
	for _, tc := range []struct {
		tool  string
		args  map[string]any
		field string
	}{
		{"android_tap", map[string]any{"text": "a", "resource_id": "b"}, "invalid arguments"},
		{"android_tap", map[string]any{"x": 1, "y": 1, "text": "a"}, "invalid arguments"},
		{"android_tap", map[string]any{"index": 1}, "needs one of: x and y"}, // the schema names the combinations
		{"android_tap", map[string]any{"text": "(", "match": "regex"}, "match"},
		{"android_tap", map[string]any{"text": strings.Repeat("a", 300), "match": "regex"}, "match"},
		{"android_tap", map[string]any{"ref": "e1"}, "screen_id"},
		{"android_tap", map[string]any{"ref": "e1", "screen_id": l.ScreenID, "index": 0}, "ref"},
		{"android_tap", map[string]any{"text": "x", "settle_ms": 10}, "settle_ms"},
		{"android_ui_elements", map[string]any{"max_elements": 0}, "max_elements"},
		{"android_ui_elements", map[string]any{"max_elements": 1001}, "max_elements"},
		{"android_ui_elements", map[string]any{"filter": "some"}, "filter"},
		{"android_wait_for", map[string]any{"condition": "idle", "text": "x"}, "condition"},
		{"android_wait_for", map[string]any{"condition": "appears"}, "invalid arguments"},
		{"android_wait_for", map[string]any{"condition": "appears", "text": "x", "timeout_ms": 99}, "timeout_ms"},
		{"android_type_text", map[string]any{"text": ""}, "text"},
		{"android_type_text", map[string]any{"text": "x", "target": map[string]any{}}, "target"},
		{"android_press_key", map[string]any{"key": "reboot"}, "key"},
		{"android_press_key", map[string]any{"key": "back", "repeat": 51}, "repeat"},
	} {
		e := f.fail(tc.tool, tc.args)
		b, _ := json.Marshal(tc.args)
		if e.Code != "invalid_arguments" || !strings.Contains(e.Message, tc.field) {
			t.Errorf("%s %s: %+v, want invalid_arguments on %s", tc.tool, b, e, tc.field)
		}
	}
	if ran := f.inputs()[before:]; len(ran) != 0 {
		t.Errorf("bad calls reached the phone: %v", ran)
	}
	e := f.fail("android_tap", map[string]any{"text": "Sign"})
	if e.Code != "element_not_found" || !strings.Contains(e.Message, `"Sign in"`) {
		t.Errorf("no match: %+v", e)
	}
}

// TestTypeTextAnyScript types a CJK name through the ADB Keyboard IME on a
// phone that has it (read back exactly; the user's keyboard comes back),
// and, with the phone helper off, is refused not_supported, with nothing
// typed, on one that has not (the helper types it: TestPhoneHelperFlows).
func TestTypeTextAnyScript(t *testing.T) {
	t.Parallel()
	t.Run("with the IME", func(t *testing.T) {
		t.Parallel()
		f := newFlow(t, "login")
		ime := func() string {
			var out strings.Builder
			f.d.Android().Run(t.Context(), "settings get secure default_input_method", nil, &out, io.Discard)
			return strings.TrimSpace(out.String())
		}
		before := ime()
		var typed struct {
			TypedExactly *bool `json:"typed_exactly"`
		}
		f.call("android_type_text", map[string]any{"text": "张伟 Zhāng", "target": map[string]any{"resource_id": "username"}, "verify": true}, &typed)
		if typed.TypedExactly == nil || !*typed.TypedExactly {
			t.Fatalf("CJK name not typed exactly: %+v", typed)
		}
		if after := ime(); after != before {
			t.Errorf("the keyboard was %q, is %q after typing", before, after)
		}
	})
	t.Run("without the IME", func(t *testing.T) {
		t.Parallel()
		f := newPolicyFlow(t, filepath.Join("testdata", "scenarios", "login-no-ime"), helperOff).flow
		before := len(f.inputs())
		e := f.fail("android_type_text", map[string]any{"text": "张伟", "target": map[string]any{"resource_id": "username"}})
		if e.Code != "not_supported" || !strings.Contains(e.Message, "ADB Keyboard") {
			t.Fatalf("CJK without the IME: %+v", e)
		}
		for _, c := range f.inputs()[before:] {
			if strings.HasPrefix(c, "input text") {
				t.Errorf("something was typed: %s", c)
			}
		}
	})
}
