package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/audit"
)

func TestPipelineAuditAndMetrics(t *testing.T) {
	e := newPipelineEnv(t, nil, nil)
	const secret = "correct horse battery staple"
	calls := []struct{ args, id string }{
		{`{"text":"` + secret + `","n":2,"mode":"b"}`, "call_a"},
		{`{"text":"` + secret + `","n":2,"mode":"b"}`, "call_a"}, // replay
		{`{"text":"` + secret + `","n":99}`, ""},                 // invalid
	}
	for _, c := range calls {
		e.call(t, t.Context(), "cch_audit", "test_echo", c.args, c.id, nil)
	}
	e.call(t, t.Context(), "cch_audit", "android_device_status", `{}`, "", nil) // not bound

	recs, err := audit.Read(t.Context(), e.db.Read, audit.Query{ChannelID: "cch_audit"})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Tool, CallID, Args, Outcome string
		Replayed                    bool
	}
	var got []row
	for _, r := range recs {
		got = append(got, row{r.ToolID, r.ToolCallID, string(r.Args), r.Outcome, r.Replayed})
	}
	want := []row{ // newest first
		{"android_device_status", "", `{}`, connector.CodeConnectionNotAuthenticated, false},
		{"test_echo", "", `{}`, connector.CodeInvalidArguments, false},
		{"test_echo", "call_a", `{"mode":"b","n":2,"text":{"len":28}}`, "ok", true},
		{"test_echo", "call_a", `{"mode":"b","n":2,"text":{"len":28}}`, "ok", false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit rows (-want +got):\n%s", diff)
	}
	var dump strings.Builder
	rows, err := e.db.Read.QueryContext(t.Context(), `SELECT * FROM tool_audit`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		rows.Scan(ptrs...)
		fmt.Fprintln(&dump, vals...)
	}
	rows.Close()
	for where, text := range map[string]string{"audit table": dump.String(), "logs": e.logs.String()} {
		if strings.Contains(text, secret) || strings.Contains(text, "horse") {
			t.Errorf("typed text found in %s", where)
		}
	}

	if n := testutil.ToFloat64(e.tools.metrics.calls.WithLabelValues("test_echo", "ok")); n != 2 {
		t.Errorf("calls ok = %v, want 2", n)
	}
	if n := testutil.ToFloat64(e.tools.metrics.replays.WithLabelValues("test_echo")); n != 1 {
		t.Errorf("replays = %v, want 1", n)
	}
	for _, c := range e.tools.Collectors() {
		if probs, err := testutil.CollectAndLint(c); err != nil || len(probs) > 0 {
			t.Errorf("lint: %v %v", probs, err)
		}
	}
}

func TestCardToolsValidate(t *testing.T) {
	e := newPipelineEnv(t, nil, nil)
	card := connector.BuildCard(connector.CardConfig{CardID: "device.adb"}, e.reg)
	for _, ct := range card.Tools {
		props := ct.InputSchema["properties"].(map[string]any)
		if _, ok := props["connector_channel_id"]; !ok {
			t.Errorf("%s: no connector_channel_id", ct.ToolID)
		}
		if ct.InputSchema["additionalProperties"] != false {
			t.Errorf("%s: additionalProperties is not false", ct.ToolID)
		}
	}
	if diff := cmp.Diff([]string{"android_device_status", "android_tap", "android_ui_elements", "android_wait_for", "android_press_key", "android_type_text", "android_swipe", "android_pinch", "android_rotate", "android_notifications", "android_clipboard", "android_app_list", "android_app_launch", "android_app_stop", "android_permission", "android_open_url", "android_logcat", "android_ask_operator", "android_batch", "test_echo"}, toolIDs(card)); diff != "" {
		t.Errorf("tools without a file store (-want +got):\n%s", diff)
	}
}

func toolIDs(c connector.Card) []string {
	var ids []string
	for _, t := range c.Tools {
		ids = append(ids, t.ToolID)
	}
	return ids
}

// FuzzValidateArguments feeds tool.invoke arguments (outside input) to the
// compiled tap schema: never a panic; a failure is always an *argError.
func FuzzValidateArguments(f *testing.F) {
	for _, c := range badArgCases {
		f.Add(withChannelArg(c.args, "cch_f"))
	}
	f.Add(`{"connector_channel_id":"c","x":1,"y":2}`)
	s, err := compileInputSchema("android_tap", connector.WithConnectorChannelIDInputSchema(tapTool(nil).tool.InputSchema))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		args, err := s.validate(json.RawMessage(raw))
		if err == nil {
			_, err = decodeArgs[tapArgs](&invocation{raw: json.RawMessage(raw)})
		}
		if err != nil {
			var ae *argError
			if !errors.As(err, &ae) {
				t.Fatalf("error %T %v", err, err)
			}
			return
		}
		if a, _ := decodeArgs[tapArgs](&invocation{raw: json.RawMessage(raw)}); a.X != nil && *a.X < 0 || a.Y != nil && *a.Y < 0 {
			t.Fatalf("accepted %s", raw)
		}
		redactArgs(s, args)
	})
}

// BenchmarkTapPipeline is the pipeline's own cost per call (validation
// against the tap schema, idempotency claim and record, rate limit,
// audit row) around a handler that does nothing.
func BenchmarkTapPipeline(b *testing.B) {
	e := newPipelineEnv(b, nil, func(c *Config) { c.RatePerMinute = 1 << 30 })
	d := tapTool(e.tools)
	d.tool.ID = "bench_tap"
	d.needsDevice = false
	d.run = func(ctx context.Context, inv *invocation) (any, error) {
		a, err := decodeArgs[tapArgs](inv)
		if err != nil {
			return nil, err
		}
		return TapResult{Tapped: TapPoint{X: *a.X, Y: *a.Y}}, nil
	}
	if err := e.tools.add(d); err != nil {
		b.Fatal(err)
	}
	h := d.tool.Handler
	args := json.RawMessage(`{"connector_channel_id":"cch_bench","x":360,"y":640}`)
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		_, err := h(ctx, connector.ToolCall{Channel: connector.Channel{ID: "cch_bench"}, ToolID: "bench_tap",
			Arguments: args, ToolCallID: fmt.Sprint("call_", i), Progress: func(string, float64) {}})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// TestPersistHasDeadline: while the write connection stays busy, a call
// still gets its ack and the unwritten audit row is logged: persist is
// bounded, not blocked for ever (nor are duplicates waiting on its flight).
func TestPersistHasDeadline(t *testing.T) {
	e := newPipelineEnv(t, nil, nil)
	e.tools.persistTimeout = time.Millisecond
	conn, err := e.db.Write.Conn(t.Context()) // the only write connection
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tool, _ := e.reg.Lookup("test_echo")
	done := make(chan error, 1)
	go func() {
		_, err := tool.Handler(t.Context(), connector.ToolCall{
			Channel: connector.Channel{ID: "cch_busy"}, ToolID: "test_echo",
			Arguments: json.RawMessage(`{"connector_channel_id":"cch_busy","text":"x"}`), ToolCallID: "call_busy",
		})
		done <- err
	}()
	timer := time.NewTimer(setupWait) // failure detector only
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("call: %v", err)
		}
	case <-timer.C:
		conn.Close() // let the call finish before the test ends
		<-done
		t.Fatal("the call waited for the busy write connection with no deadline")
	}
	if !strings.Contains(e.logs.String(), "not written") {
		t.Errorf("no warning about the unwritten audit row; logs:\n%s", e.logs.String())
	}
}
