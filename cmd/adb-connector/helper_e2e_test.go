package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// helperOff is a config file that turns the phone helper off.
const helperOff = "policies:\n  default:\n    phone_helper: off\n"

// helperOutcome is what one path made of the four tasks, compared across
// the paths.
type helperOutcome struct {
	Welcome, WiFiFlipped, Item80 bool
	CJK                          string // typed_exactly, or the error code
}

// TestPhoneHelperFlows runs the tasks an agent does through the whole
// pipeline (server, real adb server, virtual phone whose app_process runs
// the helper's own code on the fake framework): log in, toggle Wi-Fi,
// scroll the list to Item 80, type a CJK name on a phone with no IME; once
// with phone_helper auto (the helper serves them: no uiautomator or input
// on the phone) and once with phone_helper off (the stock commands serve
// them). The outcomes are the same, but for the CJK name: with no IME the
// stock path cannot type it (not_supported, nothing typed), which is what
// the helper is for.
func TestPhoneHelperFlows(t *testing.T) {
	t.Parallel()
	var got [2]helperOutcome
	for i, mode := range []string{"auto", "off"} {
		t.Run(mode, func(t *testing.T) {
			got[i] = helperFlows(t, mode)
		})
	}
	if got[0].Welcome != got[1].Welcome || got[0].WiFiFlipped != got[1].WiFiFlipped || got[0].Item80 != got[1].Item80 {
		t.Errorf("helper path %+v, stock path %+v", got[0], got[1])
	}
	if got[0] != (helperOutcome{Welcome: true, WiFiFlipped: true, Item80: true, CJK: "exact"}) || got[1].CJK != "not_supported" {
		t.Errorf("helper path %+v, stock path %+v", got[0], got[1])
	}
}

// helperFlows runs the four tasks with phone_helper: mode, each on a phone
// of its scenario, and checks which path served them.
func helperFlows(t *testing.T, mode string) helperOutcome {
	config := fmt.Sprintf("policies:\n  default:\n    phone_helper: %s\n", mode)
	var out helperOutcome
	check := func(f *policyFlow) {
		t.Helper()
		body := scrape(t, f.p)
		helperTree, _ := value(t, body, "adb_connector_helper_calls_total", map[string]string{"op": "tree", "path": "helper"})
		stockTree, _ := value(t, body, "adb_connector_helper_calls_total", map[string]string{"op": "tree", "path": "stock"})
		starts, _ := value(t, body, "adb_connector_helper_starts_total", nil)
		started := starts > 0
		// The stock commands that read the screen or act on it, as the
		// phone logged them.
		var stock []string
		for _, c := range f.d.Android().Commands() {
			// (Gestures take the touch stream where the phone lets the
			// shell write its panel, as this one does, on either path: it
			// is cheaper than any injection.)
			switch {
			case strings.Contains(c.Line, "app_process"):
				started = true // ended (logged when it ends)
			case strings.Contains(c.Line, "uiautomator dump") || strings.HasPrefix(c.Line, "input ") ||
				strings.Contains(c.Line, "ADB_INPUT"):
				stock = append(stock, c.Line)
			}
		}
		switch {
		case mode == "auto" && (helperTree == 0 || stockTree != 0 || len(stock) > 0 || !started):
			t.Errorf("helper on: %v trees from the helper, %v stock; stock commands %q", helperTree, stockTree, stock)
		case mode == "off" && (helperTree != 0 || stockTree == 0 || started || len(stock) == 0):
			t.Errorf("helper off: %v trees from the helper, %v stock, started %v, stock commands %q", helperTree, stockTree, started, stock)
		}
	}

	t.Run("login", func(t *testing.T) {
		f := newPolicyFlow(t, "login", config)
		f.call("android_type_text", map[string]any{"text": "ann", "target": map[string]any{"resource_id": "username"}}, nil)
		f.call("android_type_text", map[string]any{"text": "pw", "target": map[string]any{"resource_id": "password"}}, nil)
		f.call("android_tap", map[string]any{"resource_id": "submit"}, nil)
		var wait struct {
			Met bool `json:"met"`
		}
		f.call("android_wait_for", map[string]any{"condition": "appears", "text": "Welcome, ann!", "timeout_ms": 5000}, &wait)
		out.Welcome = wait.Met
		check(f)
	})
	t.Run("wifi", func(t *testing.T) {
		f := newPolicyFlow(t, "launcher", config)
		f.call("android_tap", map[string]any{"text": "Settings"}, nil)
		f.call("android_tap", map[string]any{"text": "Network & internet"}, nil)
		sw := func() bool {
			return f.elements().find(t, func(e uiElement) bool { return e.Class == "Switch" && e.ContentDesc == "Wi-Fi" }).Checked
		}
		was := sw()
		f.call("android_tap", map[string]any{"text": "Wi-Fi", "verify": true}, nil)
		out.WiFiFlipped = sw() != was
		check(f)
	})
	t.Run("list", func(t *testing.T) {
		f := newPolicyFlow(t, "list", config)
		var res swipeResult
		f.call("android_swipe", map[string]any{"direction": "up", "until": map[string]any{"text": "Item 80"}}, &res)
		out.Item80 = res.Found != nil && *res.Found
		check(f)
	})
	t.Run("cjk without an IME", func(t *testing.T) {
		f := newPolicyFlow(t, filepath.Join("testdata", "scenarios", "login-no-ime"), config)
		pk := f.a.invoke(t, f.ch, "android_type_text", map[string]any{"text": "王小明", "target": map[string]any{"resource_id": "username"}, "verify": true})
		if pk.Error != nil {
			out.CJK = pk.Error.Code
			return
		}
		var typed struct {
			TypedExactly *bool `json:"typed_exactly"`
		}
		result(t, pk, &typed)
		if typed.TypedExactly != nil && *typed.TypedExactly {
			out.CJK = "exact"
		} else {
			out.CJK = "inexact"
		}
		check(f)
	})
	return out
}
