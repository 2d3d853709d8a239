package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestFewerTokensFlow drives the login through the real server: element
// lines, the login as one android_batch with progress pushes naming its
// steps and an observation after, changes since the login screen, a since
// the channel never received, a marked screenshot, and the refusals
// (unknown format, 21 steps).
func TestFewerTokensFlow(t *testing.T) {
	t.Parallel()
	f := newFlow(t, "login")
	var lines struct {
		Elements []string `json:"elements"`
		ScreenID string   `json:"screen_id"`
	}
	f.call("android_ui_elements", map[string]any{"element_format": "lines"}, &lines)
	var user, pass, submit string
	for _, l := range lines.Elements {
		ref, _, _ := strings.Cut(l, " ")
		switch {
		case strings.Contains(l, " #username "):
			user = ref
		case strings.Contains(l, " #password "):
			pass = ref
		case strings.Contains(l, " #submit "):
			submit = ref
		}
	}
	if user == "" || pass == "" || submit == "" || lines.ScreenID == "" {
		t.Fatalf("login lines: %q", lines.Elements)
	}
	target := func(ref string) map[string]any { return map[string]any{"ref": ref, "screen_id": lines.ScreenID} }
	f.progressPushes()
	var batch struct {
		Steps []struct {
			Tool string `json:"tool"`
			OK   bool   `json:"ok"`
		} `json:"steps"`
		Completed   int `json:"completed"`
		Observation struct {
			Elements []string `json:"elements"`
			ScreenID string   `json:"screen_id"`
		} `json:"observation"`
	}
	f.call("android_batch", map[string]any{
		"steps": []any{
			map[string]any{"tool": "android_type_text", "arguments": map[string]any{"text": "ann", "target": target(user)}},
			map[string]any{"tool": "android_type_text", "arguments": map[string]any{"text": "pw", "target": target(pass)}},
			map[string]any{"tool": "android_tap", "arguments": target(submit)},
			map[string]any{"tool": "android_wait_for", "arguments": map[string]any{"condition": "appears", "text": "Welcome, ann!", "timeout_ms": 3000}},
		},
		"observe_after": map[string]any{"max_side": 256, "element_format": "lines"},
	}, &batch)
	if batch.Completed != 4 || len(batch.Steps) != 4 || !strings.Contains(strings.Join(batch.Observation.Elements, "\n"), `"Welcome, ann!"`) {
		t.Fatalf("login batch: %+v", batch)
	}
	pushes := strings.Join(f.progressPushes(), "\n")
	for _, want := range []string{"step 1 of 4, android_type_text", "step 3 of 4, android_tap", "observe_after, android_observe"} {
		if !strings.Contains(pushes, want) {
			t.Errorf("no progress push naming %q in %s", want, pushes)
		}
	}

	var since struct {
		Changes      map[string]json.RawMessage `json:"changes"`
		ScreenID     string                     `json:"screen_id"`
		SinceUnknown bool                       `json:"since_unknown"`
		Elements     json.RawMessage            `json:"elements"`
	}
	f.call("android_ui_elements", map[string]any{"element_format": "lines", "since": lines.ScreenID}, &since)
	if since.Changes == nil || since.Elements != nil || since.ScreenID != batch.Observation.ScreenID || since.Changes["removed"] == nil {
		t.Errorf("since the login screen: %+v", since)
	}
	since.Changes = nil
	f.call("android_ui_elements", map[string]any{"since": "s0123456789abcdef01234567"}, &since)
	if !since.SinceUnknown || since.Changes != nil || since.Elements == nil {
		t.Errorf("since a screen never received: %+v", since)
	}

	var shot struct {
		Marked *struct {
			ScreenID    string `json:"screen_id"`
			Marks       int    `json:"marks"`
			DownloadURL string `json:"download_url"`
		} `json:"marked"`
	}
	f.call("android_screenshot", map[string]any{"max_side": 512, "format": "jpeg", "marks": true}, &shot)
	if shot.Marked == nil || shot.Marked.Marks == 0 || shot.Marked.ScreenID != batch.Observation.ScreenID || shot.Marked.DownloadURL == "" {
		t.Errorf("marked screenshot: %+v", shot.Marked)
	}

	if e := f.fail("android_ui_elements", map[string]any{"element_format": "yaml"}); e.Code != "invalid_arguments" {
		t.Errorf("unknown format: %+v", e)
	}
	before := len(f.inputs())
	steps := make([]any, 21)
	for i := range steps {
		steps[i] = map[string]any{"tool": "android_press_key", "arguments": map[string]any{"key": "back"}}
	}
	if e := f.fail("android_batch", map[string]any{"steps": steps}); e.Code != "invalid_arguments" {
		t.Errorf("21 steps: %+v", e)
	}
	if got := f.inputs()[before:]; len(got) != 0 {
		t.Errorf("a refused batch ran %v", got)
	}
}
