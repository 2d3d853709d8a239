package tools

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/device/audit"
)

// loginBatch is the login task as one batch, observing at the end.
const loginBatch = `{"steps":[
 {"tool":"android_type_text","arguments":{"text":"ann","target":{"resource_id":"username"}}},
 {"tool":"android_type_text","arguments":{"text":"hunter2","target":{"resource_id":"password"}}},
 {"tool":"android_tap","arguments":{"text":"SIGN IN"}},
 {"tool":"android_wait_for","arguments":{"condition":"appears","text":"Welcome, ann!","timeout_ms":3000}}],
 "observe_after":{"max_side":256,"element_format":"lines"}}`

// TestBatchOnVirtualPhone: through the real adb server the login task
// runs as one call, each step audited as if alone (typed text redacted,
// tool_call_id per step), progress naming the steps, and a repeated
// tool_call_id replays the result without touching the phone.
func TestBatchOnVirtualPhone(t *testing.T) {
	e := newToolsEnvOpts(t, adbtest.Options{Devices: 1, Scenario: "login"}, adb.Limits{}, func(c *Config) { c.ProgressAfter = 1 << 40 })
	ch := devChannel(0)
	var (
		mu     sync.Mutex
		pushes []string
	)
	progress := func(msg string, _ float64) {
		mu.Lock()
		defer mu.Unlock()
		pushes = append(pushes, msg)
	}
	first := e.call(t, t.Context(), ch, "android_batch", loginBatch, "b1", progress)
	var res struct {
		Steps []struct {
			Tool   string          `json:"tool"`
			OK     bool            `json:"ok"`
			Result json.RawMessage `json:"result"`
		} `json:"steps"`
		Completed   int    `json:"completed"`
		Observation listed `json:"observation"`
	}
	mustOK(t, first, &res)
	if res.Completed != 4 || len(res.Steps) != 4 || res.Steps[2].Tool != "android_tap" || !res.Steps[3].OK {
		t.Fatalf("batch: %s", first.Result)
	}
	var lines []string
	if err := json.Unmarshal(res.Observation.Elements, &lines); err != nil || !strings.Contains(strings.Join(lines, "\n"), `"Welcome, ann!"`) {
		t.Fatalf("observation after: %s", res.Observation.Elements)
	}
	mu.Lock()
	if len(pushes) < 5 || pushes[0] != "step 1 of 4, android_type_text: running" || !strings.HasPrefix(pushes[4], "observe_after, android_observe") {
		t.Errorf("progress pushes %q", pushes)
	}
	mu.Unlock()

	rows, err := audit.Read(t.Context(), e.db.Read, audit.Query{})
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]string{}
	for _, r := range rows {
		calls[r.ToolCallID] = r.ToolID
		// The wait step's selector ("Welcome, ann!") is kept as sent, as
		// every selector is; typed text never is.
		typed := strings.Contains(string(r.Args), "hunter2") || r.ToolID != "android_wait_for" && strings.Contains(string(r.Args), "ann")
		if typed {
			t.Errorf("audit row %s %s holds typed text: %s", r.ToolID, r.ToolCallID, r.Args)
		}
	}
	want := map[string]string{"b1": "android_batch", "b1.1": "android_type_text", "b1.2": "android_type_text",
		"b1.3": "android_tap", "b1.4": "android_wait_for", "b1.5": "android_observe"}
	for id, tool := range want {
		if calls[id] != tool {
			t.Errorf("audit: %s is %q, want %s (rows %v)", id, calls[id], tool, calls)
		}
	}

	ran := len(e.device(0).Android().Commands())
	again := e.call(t, t.Context(), ch, "android_batch", loginBatch, "b1", nil)
	if again.Err != nil || string(again.Result) != string(first.Result) {
		t.Errorf("replay: %+v", again)
	}
	if n := len(e.device(0).Android().Commands()); n != ran {
		t.Errorf("a replayed batch ran %d commands", n-ran)
	}
}

// TestBatchStopsAndRefusals: the first failure stops the batch unless
// continue_on_error; a step the policy forbids is not_permitted and
// nothing after it runs; 21 steps, a non-batchable tool or a step's bad
// argument are invalid_arguments before anything runs.
func TestBatchStopsAndRefusals(t *testing.T) {
	e := newToolsEnvOpts(t, adbtest.Options{Devices: 1, Scenario: "login"}, adb.Limits{}, func(c *Config) {
		c.Policy = policyHolder(t, "policies:\n  default: {text_input: false}\n")
	})
	ch := devChannel(0)
	type result struct {
		Steps []struct {
			Tool  string `json:"tool"`
			OK    bool   `json:"ok"`
			Error *struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		} `json:"steps"`
		Completed   int             `json:"completed"`
		Observation json.RawMessage `json:"observation"`
	}
	missing := `{"tool":"android_tap","arguments":{"text":"No such button"}}`
	key := `{"tool":"android_press_key","arguments":{"key":"back"}}`
	var r result
	mustOK(t, e.call(t, t.Context(), ch, "android_batch", `{"steps":[`+missing+`,`+key+`]}`, "", nil), &r)
	if len(r.Steps) != 1 || r.Steps[0].OK || r.Steps[0].Error.Code != codeElementNotFound || r.Completed != 0 {
		t.Errorf("stop at the first failure: %+v", r)
	}
	if got := inputCommands(e.device(0)); len(got) != 0 {
		t.Errorf("steps after the failure ran: %v", got)
	}
	r = result{}
	mustOK(t, e.call(t, t.Context(), ch, "android_batch", `{"continue_on_error":true,"steps":[`+missing+`,`+key+`]}`, "", nil), &r)
	if len(r.Steps) != 2 || !r.Steps[1].OK || r.Completed != 1 {
		t.Errorf("continue_on_error: %+v", r)
	}

	before := len(inputCommands(e.device(0)))
	r = result{}
	typeStep := `{"tool":"android_type_text","arguments":{"text":"secret"}}`
	mustOK(t, e.call(t, t.Context(), ch, "android_batch", `{"continue_on_error":true,"steps":[`+typeStep+`,`+key+`],"observe_after":{}}`, "", nil), &r)
	if len(r.Steps) != 1 || r.Steps[0].Error == nil || r.Steps[0].Error.Code != codeNotPermitted || r.Observation != nil {
		t.Errorf("forbidden step: %+v", r)
	}
	if got := inputCommands(e.device(0))[before:]; len(got) != 0 {
		t.Errorf("after a forbidden step the phone ran %v", got)
	}

	for _, tc := range []struct{ args, field string }{
		{`{"steps":[` + strings.TrimSuffix(strings.Repeat(key+",", 21), ",") + `]}`, "steps"},
		{`{"steps":[]}`, "steps"},
		{`{"steps":[{"tool":"android_shell","arguments":{"command":"id"}}]}`, "steps.0.tool"},
		{`{"steps":[{"tool":"android_batch","arguments":{}}]}`, "steps.0.tool"},
		{`{"steps":[` + key + `,{"tool":"android_tap","arguments":{"x":-5,"y":1}}]}`, "steps.1.arguments.x"},
		{`{"steps":[` + key + `],"observe_after":{"max_side":1}}`, "observe_after.max_side"},
	} {
		a := e.call(t, t.Context(), ch, "android_batch", tc.args, "", nil)
		if a.Err == nil || a.Err.Code != "invalid_arguments" || !strings.Contains(a.Err.Message, tc.field) {
			t.Errorf("%.80s: %+v, want invalid_arguments naming %s", tc.args, a.Err, tc.field)
		}
	}
	if got := inputCommands(e.device(0))[before:]; len(got) != 0 {
		t.Errorf("invalid batches ran %v", got)
	}
}
