package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// ran lists the commands the phone ran whose program is one of progs.
func (f *flow) ran(progs ...string) []string {
	var out []string
	for _, c := range f.d.Android().Commands() {
		if c.Touch != nil && slices.Contains(progs, "input") {
			out = append(out, touchLine(c.Touch)) // gestures, as events
		}
		for _, argv := range c.Argv {
			if len(argv) > 0 && slices.Contains(progs, argv[0]) {
				out = append(out, strings.Join(argv, " "))
			}
		}
	}
	return out
}

// swipeResult is android_swipe's result as the flows read it.
type swipeResult struct {
	Swipes    int        `json:"swipes"`
	Found     *bool      `json:"found"`
	Element   *uiElement `json:"element"`
	ScreenID  string     `json:"screen_id"`
	UIChanged *bool      `json:"ui_changed"`
}

// TestSwipeListFlow scrolls the list scenario with until to "Item 80",
// to the end of the list, and back with a from/to swipe.
func TestSwipeListFlow(t *testing.T) {
	t.Parallel()
	f := newFlow(t, "list")
	before := len(f.inputs())
	var res swipeResult
	f.call("android_swipe", map[string]any{"direction": "up", "until": map[string]any{"text": "Item 80"}, "verify": true}, &res)
	if res.Found == nil || !*res.Found || res.Element == nil || res.Element.Text != "Item 80" || res.Swipes < 1 || res.Swipes > 10 ||
		res.UIChanged == nil || !*res.UIChanged {
		t.Fatalf("until Item 80: %+v", res)
	}
	swipes := f.inputs()[before:]
	if len(swipes) != res.Swipes || !strings.HasPrefix(swipes[0], "touch swipe ") {
		t.Errorf("%d swipes reported, the phone ran %v", res.Swipes, swipes)
	}
	// The ref of the element is good on the screen_id it came with.
	var tap struct {
		Element *uiElement `json:"element"`
	}
	l := f.elements()
	if l.ScreenID != res.ScreenID {
		t.Fatalf("screen %s after the swipe, result says %s", l.ScreenID, res.ScreenID)
	}
	f.call("android_tap", map[string]any{"ref": res.Element.Ref, "screen_id": res.ScreenID}, &tap)
	if tap.Element == nil || tap.Element.Text != "Item 80" {
		t.Fatalf("tap on the found ref: %+v", tap)
	}
	f.call("android_press_key", map[string]any{"key": "back"}, nil)

	// Already on screen: no swipe at all.
	before = len(f.inputs())
	res = swipeResult{}
	f.call("android_swipe", map[string]any{"direction": "up", "until": map[string]any{"text": "Item 80"}}, &res)
	if res.Swipes != 0 || res.Found == nil || !*res.Found || len(f.inputs()) != before {
		t.Errorf("element already on screen: %+v, ran %v", res, f.inputs()[before:])
	}

	// Inside the list, to its end: stops when the screen stops changing.
	res = swipeResult{}
	list := map[string]any{"resource_id": "com.example.list:id/list"}
	f.call("android_swipe", map[string]any{"direction": "up", "within": list, "until": map[string]any{"text": "Item 1000"}, "max_swipes": 50}, &res)
	if res.Found == nil || *res.Found || res.Element != nil || res.Swipes >= 50 {
		t.Fatalf("past the end of the list: %+v", res)
	}
	f.elements().find(t, func(e uiElement) bool { return e.Text == "Item 100" })

	// A from/to drag back down, verified; repeated with its tool_call_id
	// it answers the first ack and does not swipe again.
	args := map[string]any{"from": []int{360, 300}, "to": []int{360, 1200}, "duration_ms": 200, "verify": true}
	before = len(f.inputs())
	first := f.a.invokeID(t, f.ch, "android_swipe", "swipe_back_1", args)
	again := f.a.invokeID(t, f.ch, "android_swipe", "swipe_back_1", args)
	res = swipeResult{}
	result(t, first, &res)
	if res.Swipes != 1 || res.Found != nil || res.UIChanged == nil || !*res.UIChanged {
		t.Errorf("from/to swipe: %+v", res)
	}
	if string(again.Payload) != string(first.Payload) || len(f.inputs()) != before+1 {
		t.Errorf("repeated tool_call_id: %s (first %s), ran %v", again.Payload, first.Payload, f.inputs()[before:])
	}
}

// TestAppFlows lists, launches and stops apps on the launcher scenario.
func TestAppFlows(t *testing.T) {
	t.Parallel()
	f := newFlow(t, "launcher")
	type app struct {
		Package    string `json:"package"`
		System     bool   `json:"system"`
		Launchable bool   `json:"launchable"`
	}
	var apps struct {
		Apps []app `json:"apps"`
	}
	f.call("android_app_list", map[string]any{}, &apps)
	if !slices.Contains(apps.Apps, app{Package: "com.example.login", Launchable: true}) ||
		slices.ContainsFunc(apps.Apps, func(a app) bool { return a.System }) {
		t.Errorf("user apps: %+v", apps.Apps)
	}
	f.call("android_app_list", map[string]any{"include_system": true}, &apps)
	if !slices.Contains(apps.Apps, app{Package: "com.android.settings", System: true, Launchable: true}) ||
		!slices.Contains(apps.Apps, app{Package: "com.google.android.apps.nexuslauncher", System: true}) {
		t.Errorf("all apps: %+v", apps.Apps)
	}
	if !slices.IsSortedFunc(apps.Apps, func(x, y app) int {
		if x.Launchable != y.Launchable {
			if x.Launchable {
				return -1
			}
			return 1
		}
		return strings.Compare(x.Package, y.Package)
	}) {
		t.Errorf("not launchable first, then by name: %+v", apps.Apps)
	}

	var launch struct {
		Package    string `json:"package"`
		Activity   string `json:"activity"`
		Foreground struct {
			Package  string `json:"package"`
			Activity string `json:"activity"`
		} `json:"foreground"`
		UIChanged bool `json:"ui_changed"`
	}
	f.call("android_app_launch", map[string]any{"package": "com.example.login", "verify": true}, &launch)
	if launch.Activity != "com.example.login.LoginActivity" || launch.Foreground.Package != "com.example.login" ||
		launch.Foreground.Activity != "com.example.login.LoginActivity" || !launch.UIChanged {
		t.Fatalf("launch: %+v", launch)
	}
	f.call("android_app_launch", map[string]any{"package": "com.android.settings", "activity": ".Settings"}, &launch)
	if launch.Foreground.Package != "com.android.settings" {
		t.Fatalf("launch by activity: %+v", launch)
	}
	var stop struct {
		Package   string `json:"package"`
		Stopped   bool   `json:"stopped"`
		UIChanged bool   `json:"ui_changed"`
	}
	f.call("android_app_stop", map[string]any{"package": "com.android.settings", "verify": true}, &stop)
	if !stop.Stopped || !stop.UIChanged {
		t.Errorf("stop: %+v", stop)
	}
	if am := f.ran("am"); am[len(am)-1] != "am force-stop com.android.settings" {
		t.Errorf("am ran %q", am[len(am)-1])
	}
	if pkg, _ := f.d.Android().Foreground(); pkg == "com.android.settings" {
		t.Errorf("settings still in front after force-stop")
	}

	for _, tool := range []string{"android_app_launch", "android_app_stop"} {
		before := len(f.ran("am", "monkey"))
		e := f.fail(tool, map[string]any{"package": "com.example.nothere"})
		if e.Code != "app_not_installed" || len(f.ran("am", "monkey")) != before {
			t.Errorf("%s of a package not installed: %+v, ran %v", tool, e, f.ran("am", "monkey")[before:])
		}
	}
	e := f.fail("android_app_launch", map[string]any{"package": "com.google.android.apps.nexuslauncher"})
	if e.Code != "invalid_arguments" || !strings.Contains(e.Message, "activity") {
		t.Errorf("an app without a launcher activity: %+v", e)
	}
	e = f.fail("android_app_launch", map[string]any{"package": "com.example.login", "activity": ".NoSuchActivity"})
	if e.Code != "invalid_arguments" || !strings.Contains(e.Message, "activity") {
		t.Errorf("an activity the app does not have: %+v", e)
	}
}

// TestOpenURLFlow opens an https URL in Chrome and refuses the schemes
// the policy does not allow without running anything.
func TestOpenURLFlow(t *testing.T) {
	t.Parallel()
	f := newFlow(t, "launcher")
	var res struct {
		Opened  bool   `json:"opened"`
		Package string `json:"package"`
	}
	f.call("android_open_url", map[string]any{"url": "https://example.com/search?q=a%20b&lang=en"}, &res)
	if !res.Opened || res.Package != "com.android.chrome" {
		t.Fatalf("open https: %+v", res)
	}
	if pkg, _ := f.d.Android().Foreground(); pkg != "com.android.chrome" {
		t.Errorf("%s in front after opening a web page", pkg)
	}
	// Characters a shell treats specially reach am as one argument.
	tricky := "https://example.com/a?q=x';reboot;'&b=$(id)`id`|x>y"
	f.call("android_open_url", map[string]any{"url": tricky}, &res)
	if am := f.ran("am"); !strings.HasSuffix(am[len(am)-1], " -d "+tricky) {
		t.Errorf("am ran %q", am[len(am)-1])
	}
	before := len(f.ran("am"))
	for _, u := range []string{
		"intent:#Intent;component=com.android.settings/.Settings;end",
		"intent://example.com#Intent;scheme=https;package=com.android.chrome;end",
		"file:///sdcard/Download/x.html",
		"content://com.android.contacts/contacts",
		"javascript:alert(document.cookie)",
	} {
		e := f.fail("android_open_url", map[string]any{"url": u})
		if e.Code != "not_permitted" || !strings.Contains(e.Message, "not allowed") {
			t.Errorf("%s: %+v, want not_permitted", u, e)
		}
	}
	if ran := f.ran("am")[before:]; len(ran) != 0 {
		t.Errorf("refused URLs reached the phone: %v", ran)
	}
}

// TestActionsBadInput: every mistake is refused with a stable code naming
// the field, and the phone runs no input, am, monkey or pm command.
func TestActionsBadInput(t *testing.T) {
	t.Parallel()
	f := newFlow(t, "list")
	acting := func() []string { return f.ran("input", "am", "monkey", "pm", "cmd") }
	before := len(acting())
	for _, tc := range []struct {
		tool       string
		args       map[string]any
		code, name string
	}{
		{"android_swipe", map[string]any{}, "invalid_arguments", "direction"},
		{"android_swipe", map[string]any{"direction": "diagonal"}, "invalid_arguments", "direction"},
		{"android_swipe", map[string]any{"direction": "up", "distance": 0}, "invalid_arguments", "distance"},
		{"android_swipe", map[string]any{"direction": "up", "distance": 1.01}, "invalid_arguments", "distance"},
		{"android_swipe", map[string]any{"from": []int{1, 2}, "to": []int{3, 4}, "duration_ms": 10}, "invalid_arguments", "duration_ms"},
		{"android_swipe", map[string]any{"from": []int{1, 2}, "to": []int{3, 4}, "duration_ms": 10001}, "invalid_arguments", "duration_ms"},
		{"android_swipe", map[string]any{"from": []int{1, 2}, "to": []int{720, 4}}, "invalid_arguments", "to.x"},
		{"android_swipe", map[string]any{"from": []int{1, 1280}, "to": []int{3, 4}}, "invalid_arguments", "from.y"},
		{"android_swipe", map[string]any{"from": []int{1, 2}}, "invalid_arguments", "to"},
		{"android_swipe", map[string]any{"direction": "up", "until": map[string]any{"text": "x"}, "max_swipes": 51}, "invalid_arguments", "max_swipes"},
		{"android_swipe", map[string]any{"direction": "up", "max_swipes": 5}, "invalid_arguments", "max_swipes"},
		{"android_swipe", map[string]any{"direction": "up", "within": map[string]any{"text": "No such list"}}, "element_not_found", `within: no element matches "No such list"`},
		{"android_swipe", map[string]any{"direction": "up", "within": map[string]any{"text": "Item", "match": "contains"}}, "element_ambiguous", "within: "},
		{"android_app_launch", map[string]any{"package": "com.foo;reboot"}, "invalid_arguments", "package"},
		{"android_app_launch", map[string]any{"package": "com.foo reboot"}, "invalid_arguments", "package"},
		{"android_app_launch", map[string]any{"package": "$(reboot)"}, "invalid_arguments", "package"},
		{"android_app_launch", map[string]any{"package": "com.example.list", "activity": ".Main;reboot"}, "invalid_arguments", "activity"},
		{"android_app_launch", map[string]any{"package": "com.example.list", "activity": "com.other/.Main"}, "invalid_arguments", "activity"},
		{"android_app_stop", map[string]any{"package": "com.foo`reboot`"}, "invalid_arguments", "package"},
		{"android_app_stop", map[string]any{"package": ""}, "invalid_arguments", "package"},
		{"android_app_list", map[string]any{"include_system": "yes"}, "invalid_arguments", "include_system"},
		{"android_open_url", map[string]any{"url": "https://example.com/a b"}, "invalid_arguments", "url"},
		{"android_open_url", map[string]any{"url": "https://example.com/\nreboot"}, "invalid_arguments", "url"},
		{"android_open_url", map[string]any{"url": "example.com"}, "invalid_arguments", "url"},
		{"android_open_url", map[string]any{"url": "https://" + strings.Repeat("a", 2048)}, "invalid_arguments", "url"},
		{"android_open_url", map[string]any{"url": "market://details?id=com.example"}, "not_permitted", "market"},
	} {
		e := f.fail(tc.tool, tc.args)
		if e.Code != tc.code || !strings.Contains(e.Message, tc.name) {
			b, _ := json.Marshal(tc.args)
			t.Errorf("%s %.80s: %+v, want %s naming %s", tc.tool, b, e, tc.code, tc.name)
		}
	}
	if ran := acting()[before:]; len(ran) != 0 {
		t.Errorf("bad calls reached the phone: %v", ran)
	}
}
