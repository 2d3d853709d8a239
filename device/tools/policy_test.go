package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/adb-connector/adb-connector/device/audit"
	"github.com/adb-connector/adb-connector/device/policy"
)

func policyHolder(t testing.TB, yaml string) *policy.Holder {
	t.Helper()
	c, err := policy.Parse([]byte(yaml), policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return policy.NewHolder(c)
}

// TestPolicyChecks: each rule refuses with not_permitted and a reason
// before the phone acts, counted by rule and audited; caps apply.
func TestPolicyChecks(t *testing.T) {
	t.Parallel()
	e := newToolsEnv(t, 1, func(c *Config) {
		c.Policy = policyHolder(t, `
tags:
  - match: {model: "Pixel 6"}
    tags: [lab]
policies:
  default: {text_input: true}
  rules:
    - tags: [lab]
      tools: {deny: [android_logcat]}
      packages: {allow: ["com.android.*"], deny: [com.android.vending]}
      urls: {schemes: [https], hosts: ["*.example.com"]}
      max_record_ms: 2000
      max_screenshot_side: 200
      text_input: false
      rate_per_minute: 40
`)
	})
	ch := devChannel(0)
	tests := []struct {
		tool, args, rule, want string
	}{
		{"android_logcat", `{}`, ruleTool, "android_logcat is not offered"},
		{"android_type_text", `{"text":"x"}`, ruleTextInput, "typing"},
		{"android_app_launch", `{"package":"com.android.vending"}`, rulePackage, "denies package com.android.vending"},
		{"android_app_launch", `{"package":"org.other"}`, rulePackage, "not in the operator's list"},
		{"android_permission", `{"package":"com.example.login","permission":"android.permission.CAMERA","grant":true}`, rulePackage, "not in the operator's list"},
		{"android_open_url", `{"url":"http://www.example.com/"}`, ruleURLScheme, `scheme "http"`},
		{"android_open_url", `{"url":"https://evil.org/"}`, ruleURLHost, "evil.org"},
		{"android_screen_record", `{"duration_ms":5000}`, ruleMaxRecord, "duration_ms 2000"},
	}
	for i, tt := range tests {
		a := e.call(t, t.Context(), ch, tt.tool, tt.args, fmt.Sprint("call_policy_", i), nil)
		if a.Err == nil || a.Err.Code != codeNotPermitted || !strings.Contains(a.Err.Message, tt.want) {
			t.Errorf("%s %s: %+v, want not_permitted with %q", tt.tool, tt.args, a, tt.want)
		}
		if n := testutil.ToFloat64(e.tools.metrics.refusals.WithLabelValues(tt.tool, tt.rule)); n < 1 {
			t.Errorf("%s: no refusal counted for rule %s", tt.tool, tt.rule)
		}
	}
	if probs, err := testutil.CollectAndLint(e.tools.metrics.refusals); err != nil || len(probs) > 0 {
		t.Errorf("refusals metric lint: %v %v", err, probs)
	}
	if got := inputCommands(e.device(0)); len(got) != 0 {
		t.Errorf("the phone ran %v", got)
	}
	rows, err := audit.Read(t.Context(), e.db.Read, audit.Query{})
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, r := range rows {
		if r.Outcome == codeNotPermitted {
			refused++
		}
	}
	if refused != len(tests) {
		t.Errorf("%d not_permitted audit rows, want %d", refused, len(tests))
	}

	// A screenshot larger than the cap is scaled down to it.
	var shot ScreenshotResult
	mustOK(t, e.call(t, t.Context(), ch, "android_screenshot", `{"max_side":1000}`, "", nil), &shot)
	if max(shot.Width, shot.Height) != 200 {
		t.Errorf("screenshot %dx%d, want its longest side capped at 200", shot.Width, shot.Height)
	}
	var launched json.RawMessage
	mustOK(t, e.call(t, t.Context(), ch, "android_app_launch", `{"package":"com.android.settings"}`, "", nil), &launched)
}

// TestPolicyRate: the device's policy sets the per-channel rate.
func TestPolicyRate(t *testing.T) {
	t.Parallel()
	e := newToolsEnv(t, 1, func(c *Config) {
		c.Policy = policyHolder(t, "policies:\n  default: {rate_per_minute: 2}\n")
	})
	for range 2 {
		mustOK(t, e.call(t, t.Context(), devChannel(0), "android_device_status", `{}`, "", nil), nil)
	}
	a := e.call(t, t.Context(), devChannel(0), "android_device_status", `{}`, "", nil)
	if a.Err == nil || a.Err.Code != CodeRateLimited {
		t.Fatalf("third call: %+v, want rate_limited", a)
	}
}
