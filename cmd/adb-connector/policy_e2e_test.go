package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/connector"
)

// policyFlow is a flow whose serve runs with --config: the file at path,
// looked at every 50 ms for changes.
type policyFlow struct {
	*flow
	p    *serveProc
	path string
}

func newPolicyFlow(t *testing.T, scenario, config string) *policyFlow {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	env := adbtest.Start(t, adbtest.Options{Devices: 1, Scenario: scenario})
	p := startServe(t, t.TempDir(), env.ServerAddr, nil, "--config", path, "--config-poll", "50ms")
	a := newAgent(t, p, "")
	ch := a.open(t)
	d := env.Devices[0]
	a.pair(t, p, ch, d.Serial())
	return &policyFlow{flow: &flow{t: t, a: a, ch: ch, d: d}, p: p, path: path}
}

// descriptor asks for the channel's Descriptor.
func (f *policyFlow) descriptor() *connector.Descriptor {
	f.t.Helper()
	_, ack := f.a.request(f.t, connector.TypeDescriptorGet, f.ch, map[string]any{})
	if ack.Descriptor == nil {
		f.t.Fatal("connection.descriptor.get.ack without a descriptor")
	}
	return ack.Descriptor
}

func toolStatus(d *connector.Descriptor, id string) string {
	for _, t := range d.Tools {
		if t.ToolID == id {
			return t.Status
		}
	}
	return ""
}

// metric returns the /metrics lines that start with prefix.
func (f *policyFlow) metric(prefix string) []string {
	f.t.Helper()
	req, _ := http.NewRequestWithContext(f.t.Context(), http.MethodGet, f.p.URL+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+e2eKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

const taggedVirtual = `
tags:
  - match: {serial: "*", manufacturer: "google"}
    tags: [lab-a]
`

// TestPolicyDeniedToolAbsentAndRefused: a tool the device's policy denies is
// not_supported in the Descriptor, and a call of it is not_permitted with
// a reason, audited and counted; devices shows the tags.
func TestPolicyDeniedToolAbsentAndRefused(t *testing.T) {
	t.Parallel()
	f := newPolicyFlow(t, "launcher", taggedVirtual+`
policies:
  rules:
    - tags: [lab-a]
      tools: {deny: [android_swipe]}
      text_input: false
`)
	d := f.descriptor()
	if st := toolStatus(d, "android_swipe"); st != "not_supported" {
		t.Errorf("android_swipe is %q in the Descriptor, want not_supported", st)
	}
	if st := toolStatus(d, "android_tap"); st != "available" {
		t.Errorf("android_tap is %q, want available", st)
	}
	before := len(f.inputs())
	e := f.fail("android_swipe", map[string]any{"direction": "up"})
	if e.Code != "not_permitted" || !strings.Contains(e.Message, "android_swipe is not offered") {
		t.Errorf("denied tool: %+v", e)
	}
	e = f.fail("android_type_text", map[string]any{"text": "hello"})
	if e.Code != "not_permitted" || !strings.Contains(e.Message, "typing") {
		t.Errorf("text input off: %+v", e)
	}
	if got := f.inputs()[before:]; len(got) != 0 {
		t.Errorf("the phone ran %v for refused calls", got)
	}
	if row := f.p.deviceRow(t, f.d.Serial()); !slices.Equal(row.Tags, []string{"lab-a"}) {
		t.Errorf("devices row tags %v, want [lab-a]", row.Tags)
	}
	m := f.metric(`adb_connector_policy_refusals_total{rule="tool",tool="android_swipe"}`)
	if len(m) != 1 || !strings.HasSuffix(m[0], " 1") {
		t.Errorf("refusals metric: %v", m)
	}
	m = f.metric(`adb_connector_tool_invocations_total{outcome="not_permitted",tool="android_swipe"}`)
	if len(m) != 1 {
		t.Errorf("invocations metric: %v", m)
	}
}

// TestPolicyForegroundDenyBlocksTap: while a denied package is in front, a
// tap is refused naming it, and the phone never sees an input command;
// pressing home (which leaves the app) still works, and then the tap too.
func TestPolicyForegroundDenyBlocksTap(t *testing.T) {
	t.Parallel()
	f := newPolicyFlow(t, "launcher", taggedVirtual+`
policies:
  rules:
    - tags: [lab-a]
      packages: {deny: ["com.android.set*"]}
`)
	e := f.fail("android_app_launch", map[string]any{"package": "com.android.settings"})
	if e.Code != "not_permitted" || !strings.Contains(e.Message, "com.android.settings") {
		t.Fatalf("launch of a denied package: %+v", e)
	}
	// Put the denied app in front behind the connector's back, as a user would.
	if code := f.d.Android().Run(t.Context(), "am start -n com.android.settings/.Settings", nil, io.Discard, io.Discard); code != 0 {
		t.Fatalf("am start: exit %d", code)
	}
	if pkg, _ := f.d.Android().Foreground(); pkg != "com.android.settings" {
		t.Fatalf("%s in front, want settings", pkg)
	}
	before := len(f.inputs())
	e = f.fail("android_tap", map[string]any{"x": 10, "y": 10})
	if e.Code != "not_permitted" || !strings.Contains(e.Message, "com.android.settings is in front") {
		t.Fatalf("tap over a denied app: %+v", e)
	}
	if got := f.inputs()[before:]; len(got) != 0 {
		t.Fatalf("the phone saw %v after a refused tap", got)
	}
	f.call("android_press_key", map[string]any{"key": "home"}, nil)
	f.call("android_tap", map[string]any{"x": 10, "y": 10}, nil)
}

// TestPolicyReloadChangesLiveToolSet: a changed file re-pushes the
// Descriptor of a live channel with its new tool set, and the call is
// refused from then on; a broken file is refused and the previous policy
// stays.
func TestPolicyReloadChangesLiveToolSet(t *testing.T) {
	t.Parallel()
	f := newPolicyFlow(t, "launcher", taggedVirtual)
	if st := toolStatus(f.descriptor(), "android_logcat"); st != "available" {
		t.Fatalf("android_logcat is %q before the reload", st)
	}
	write := func(s string) {
		t.Helper()
		// A new name then a rename: the poller never reads half a file.
		tmp := f.path + ".new"
		if err := os.WriteFile(tmp, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, f.path); err != nil {
			t.Fatal(err)
		}
	}
	write(taggedVirtual + `
policies:
  rules:
    - tags: [lab-a]
      tools: {deny: [android_logcat]}
`)
	ctx, cancel := context.WithTimeout(t.Context(), setupWait)
	defer cancel()
	for {
		p, err := f.a.WaitPush(ctx, connector.TypeDescriptorPush)
		if err != nil {
			t.Fatalf("no descriptor push after the reload: %v\n%s", err, f.p.Logs())
		}
		var pl struct {
			D *connector.Descriptor `json:"connection_descriptor"`
		}
		if err := json.Unmarshal(p.Payload, &pl); err != nil || pl.D == nil {
			t.Fatalf("push %s: %v", p.Payload, err)
		}
		if p.ChannelID == f.ch && toolStatus(pl.D, "android_logcat") == "not_supported" {
			if toolStatus(pl.D, "android_tap") != "available" {
				t.Errorf("pushed tools: %+v", pl.D.Tools)
			}
			break
		}
	}
	if e := f.fail("android_logcat", map[string]any{}); e.Code != "not_permitted" {
		t.Errorf("logcat after the reload: %+v", e)
	}

	write("policies: {default: {rate_per_minute: many}}\n")
	// The log is the only outside sign of a refused file: polled.
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !strings.Contains(f.p.Logs(), "config file refused") {
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("a broken file was not reported:\n%s", f.p.Logs())
		}
	}
	if e := f.fail("android_logcat", map[string]any{}); e.Code != "not_permitted" {
		t.Errorf("the previous policy did not stay: %+v", e)
	}
	if n := strings.Count(f.p.Logs(), "config file refused"); n != 1 {
		t.Errorf("the broken file was reported %d times, want once", n)
	}
}
