package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/audit"
	"github.com/adb-connector/adb-connector/internal/ratelimit"
	"github.com/adb-connector/adb-connector/internal/testkit"
	"github.com/adb-connector/adb-connector/store"
)

// nobodyResolver binds no channel: tools that need a device fail with
// connection_not_authenticated.
type nobodyResolver struct{}

func (nobodyResolver) DeviceFor(context.Context, string) (*adb.Device, Meta, error) {
	return nil, Meta{}, ErrNotBound
}

// pipelineEnv is Tools on a real SQLite database with device-less test
// tools, to exercise the pipeline without a phone.
type pipelineEnv struct {
	db    *store.DB
	clock *testkit.Clock
	tools *Tools
	reg   *connector.Registry
	logs  *testkit.LogBuffer
	runs  atomic.Int32 // calls that reached a test tool's run
	// block, when set, is waited on by test_echo's run, after it sends to
	// started (when set).
	block   chan struct{}
	started chan struct{}
}

// echoSchema is test_echo's input: a free-text argument that must never be
// audited or logged, an integer and an enum.
var echoSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"text": map[string]any{"type": "string", "maxLength": 100},
		"n":    map[string]any{"type": "integer", "minimum": 0, "maximum": 10},
		"mode": map[string]any{"type": "string", "enum": []any{"a", "b"}},
	},
	"required":             []any{"text"},
	"additionalProperties": false,
}

// echoArgs are test_echo's arguments; N is a pointer, absent differs from 0.
type echoArgs struct {
	Text string `json:"text"`
	N    *int   `json:"n"`
}

func newPipelineEnv(tb testing.TB, db *store.DB, tune func(*Config)) *pipelineEnv {
	tb.Helper()
	if db == nil {
		var err error
		db, err = store.Open(context.Background(), tb.TempDir())
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { db.Close() })
	}
	e := &pipelineEnv{db: db, clock: testkit.NewClock(), logs: &testkit.LogBuffer{}}
	cfg := Config{
		Resolver: nobodyResolver{}, DB: db, Now: e.clock.Now,
		Logger: e.logs.TextLogger(),
	}
	if tune != nil {
		tune(&cfg)
	}
	tools, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	echo := &toolDef{
		tool: connector.Tool{ID: "test_echo", InputSchema: echoSchema},
		run: func(ctx context.Context, inv *invocation) (any, error) {
			e.runs.Add(1)
			if e.started != nil {
				e.started <- struct{}{}
			}
			if e.block != nil {
				select {
				case <-e.block:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			a, err := decodeArgs[echoArgs](inv)
			if err != nil {
				return nil, err
			}
			if a.Text == "panic" {
				panic("boom")
			}
			if a.Text == "fail" {
				return nil, fmt.Errorf("adb said: secret internals at 10.1.2.3:5555")
			}
			n := -1
			if a.N != nil {
				n = *a.N
			}
			return map[string]any{"echo_len": len(a.Text), "n": n}, nil
		},
	}
	if err := tools.add(echo); err != nil {
		tb.Fatal(err)
	}
	e.tools = tools
	e.reg = connector.NewRegistry()
	if err := tools.Register(e.reg); err != nil {
		tb.Fatal(err)
	}
	return e
}

func (e *pipelineEnv) call(t *testing.T, ctx context.Context, channelID, toolID, args, callID string, progress func(string, float64)) ackOf {
	t.Helper()
	return invokeTool(t, ctx, e.reg, channelID, toolID, args, callID, progress)
}

func TestWireError(t *testing.T) {
	secret := errors.New("serial R58M123ABC at 192.168.1.20:5555 token=hunter2")
	tests := []struct {
		name string
		err  error
		code string
	}{
		{"not bound", fmt.Errorf("resolve: %w", ErrNotBound), connector.CodeConnectionNotAuthenticated},
		{"offline", fmt.Errorf("%w: %w", adb.ErrDeviceOffline, secret), CodeDeviceOffline},
		{"not found", fmt.Errorf("%w: %w", adb.ErrDeviceNotFound, secret), CodeDeviceOffline},
		{"server down", fmt.Errorf("%w: %w", adb.ErrServerUnavailable, secret), CodeDeviceOffline},
		{"unauthorized", fmt.Errorf("%w: %w", adb.ErrUnauthorized, secret), CodeDeviceUnauthorized},
		{"busy", fmt.Errorf("tap: %w", adb.ErrBusy), CodeDeviceBusy},
		{"adb timeout", fmt.Errorf("tap: %w (%w)", adb.ErrTimeout, context.DeadlineExceeded), connector.CodeToolTimeout},
		{"deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), connector.CodeToolTimeout},
		{"argument", &argError{Field: "x", Reason: "must be >= 0"}, connector.CodeInvalidArguments},
		{"policy", &policyError{Message: "payments are off limits"}, codeNotPermitted},
		{"policy sentinel", fmt.Errorf("%w: %w", errNotPermitted, secret), codeNotPermitted},
		{"rate", &ratelimit.Error{RetryAfter: 1500 * time.Millisecond}, CodeRateLimited},
		{"connector error", fmt.Errorf("wrapped: %w", connector.NewError(codeElementNotFound, "no element")), codeElementNotFound},
		{"exit error", &adb.ExitError{Code: 1, Stderr: []byte("secret stderr")}, connector.CodeToolInvokeFailed},
		{"anything", secret, connector.CodeToolInvokeFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := WireError(tc.err)
			if got.Code != tc.code {
				t.Errorf("code = %s, want %s", got.Code, tc.code)
			}
			for _, leak := range []string{"R58M123ABC", "192.168", "hunter2", "secret"} {
				if strings.Contains(got.Message, leak) {
					t.Errorf("message %q leaks %q", got.Message, leak)
				}
			}
			if got.Message == "" {
				t.Error("empty message")
			}
		})
	}
	if WireError(nil) != nil {
		t.Error("WireError(nil) != nil")
	}
	if m := WireError(&ratelimit.Error{RetryAfter: 1500 * time.Millisecond}).Message; !strings.Contains(m, "retry after 2 s") {
		t.Errorf("rate limit message %q has no retry hint", m)
	}
}

func TestPipelineValidation(t *testing.T) {
	e := newPipelineEnv(t, nil, nil)
	tests := []struct {
		name, args, field string
	}{
		{"missing required", `{}`, "text"},
		{"wrong type", `{"text":5}`, "text"},
		{"too long", `{"text":"` + strings.Repeat("a", 101) + `"}`, "text"},
		{"out of range", `{"text":"a","n":11}`, "n"},
		{"negative", `{"text":"a","n":-1}`, "n"},
		{"not an integer", `{"text":"a","n":1.5}`, "n"},
		{"enum", `{"text":"a","mode":"c-SECRETVALUE"}`, "mode"},
		{"extra property", `{"text":"a","password":"SECRETVALUE"}`, "password"},
		{"channel id type", `{"text":"a","connector_channel_id":5}`, "connector_channel_id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := e.call(t, t.Context(), "cch_a", "test_echo", tc.args, "", nil)
			if a.Err == nil || a.Err.Code != connector.CodeInvalidArguments {
				t.Fatalf("ack = %+v, want invalid_arguments", a)
			}
			if !strings.Contains(a.Err.Message, tc.field) {
				t.Errorf("message %q does not name %q", a.Err.Message, tc.field)
			}
			if strings.Contains(a.Err.Message, "SECRETVALUE") {
				t.Errorf("message %q echoes the value", a.Err.Message)
			}
		})
	}
	for _, raw := range []string{`[1]`, `"x"`, `{"text":`} {
		if _, err := e.tools.defs[len(e.tools.defs)-1].schema.validate(json.RawMessage(raw)); err == nil {
			t.Errorf("validate(%s) = nil", raw)
		}
	}
	if got := e.runs.Load(); got != 0 {
		t.Errorf("tool ran %d times on invalid arguments", got)
	}
	// The redundant connector_channel_id may be absent (routing uses the envelope).
	if _, err := e.tools.defs[len(e.tools.defs)-1].schema.validate(json.RawMessage(`{"text":"a"}`)); err != nil {
		t.Errorf("arguments without connector_channel_id: %v", err)
	}
}

func TestPipelineIdempotency(t *testing.T) {
	e := newPipelineEnv(t, nil, nil)

	t.Run("sequential replay, also after restart", func(t *testing.T) {
		first := e.call(t, t.Context(), "cch_a", "test_echo", `{"text":"hello","n":3}`, "call_1", nil)
		mustOK(t, first, nil)
		again := e.call(t, t.Context(), "cch_a", "test_echo", `{"text":"hello", "n":3}`, "call_1", nil)
		if diff := cmp.Diff(first, again); diff != "" {
			t.Errorf("replay differs:\n%s", diff)
		}
		restarted := newPipelineEnv(t, e.db, nil) // a new process on the same database
		restarted.clock = e.clock
		third := restarted.call(t, t.Context(), "cch_a", "test_echo", `{"text":"hello","n":3}`, "call_1", nil)
		if diff := cmp.Diff(first, third); diff != "" {
			t.Errorf("replay after restart differs:\n%s", diff)
		}
		if e.runs.Load() != 1 || restarted.runs.Load() != 0 {
			t.Errorf("runs = %d + %d, want 1 + 0", e.runs.Load(), restarted.runs.Load())
		}
	})

	t.Run("errors replay too", func(t *testing.T) {
		first := e.call(t, t.Context(), "cch_a", "test_echo", `{"text":"fail"}`, "call_fail", nil)
		again := e.call(t, t.Context(), "cch_a", "test_echo", `{"text":"fail"}`, "call_fail", nil)
		if first.Err == nil || first.Err.Code != connector.CodeToolInvokeFailed || !cmp.Equal(first, again) {
			t.Errorf("first %+v, again %+v", first, again)
		}
	})

	t.Run("a canceled call is not replayed", func(t *testing.T) {
		c := newPipelineEnv(t, nil, nil)
		c.block, c.started = make(chan struct{}), make(chan struct{}, 1)
		ctx, cancel := context.WithCancel(t.Context())
		firstc := make(chan ackOf, 1)
		go func() { firstc <- c.call(t, ctx, "cch_a", "test_echo", `{"text":"x"}`, "call_canceled", nil) }()
		<-c.started // running on the phone
		cancel()    // the server stops under the call
		first := <-firstc
		c.block, c.started = nil, nil
		again := c.call(t, t.Context(), "cch_a", "test_echo", `{"text":"x"}`, "call_canceled", nil)
		if first.Err == nil || again.Err != nil || c.runs.Load() != 2 {
			t.Errorf("first %+v, again %+v after %d runs: the retry got the canceled outcome", first.Err, again.Err, c.runs.Load())
		}
	})

	t.Run("a panicking tool fails and releases its tool_call_id", func(t *testing.T) {
		first := e.call(t, t.Context(), "cch_a", "test_echo", `{"text":"panic"}`, "call_panic", nil)
		again := e.call(t, t.Context(), "cch_a", "test_echo", `{"text":"panic"}`, "call_panic", nil)
		if first.Err == nil || first.Err.Code != connector.CodeToolInvokeFailed || !cmp.Equal(first, again) {
			t.Errorf("first %+v, again %+v", first, again)
		}
	})

	t.Run("same id on another channel is another call", func(t *testing.T) {
		before := e.runs.Load()
		mustOK(t, e.call(t, t.Context(), "cch_b", "test_echo", `{"text":"hello","n":3}`, "call_1", nil), nil)
		if e.runs.Load() != before+1 {
			t.Error("call on another channel was deduplicated")
		}
	})

	t.Run("reused id with other arguments", func(t *testing.T) {
		a := e.call(t, t.Context(), "cch_a", "test_echo", `{"text":"other"}`, "call_1", nil)
		if a.Err == nil || a.Err.Code != connector.CodeInvalidArguments || !strings.Contains(a.Err.Message, "tool_call_id") {
			t.Errorf("ack = %+v", a)
		}
	})

	t.Run("no tool_call_id, no dedup", func(t *testing.T) {
		before := e.runs.Load()
		for range 2 {
			mustOK(t, e.call(t, t.Context(), "cch_a", "test_echo", `{"text":"x"}`, "", nil), nil)
		}
		if e.runs.Load() != before+2 {
			t.Error("calls without tool_call_id were deduplicated")
		}
	})

	t.Run("record expires after TTL", func(t *testing.T) {
		before := e.runs.Load()
		mustOK(t, e.call(t, t.Context(), "cch_a", "test_echo", `{"text":"ttl"}`, "call_ttl", nil), nil)
		e.clock.Advance(defaultIdempotencyTTL + time.Second)
		mustOK(t, e.call(t, t.Context(), "cch_a", "test_echo", `{"text":"ttl"}`, "call_ttl", nil), nil)
		if e.runs.Load() != before+2 {
			t.Errorf("runs = %d, want 2", e.runs.Load()-before)
		}
	})

	t.Run("concurrent duplicates wait for the first", func(t *testing.T) {
		e.block, e.started = make(chan struct{}), make(chan struct{}, 1)
		t.Cleanup(func() { e.block, e.started = nil, nil })
		const n = 8
		waiting := make(chan struct{}, n)
		e.tools.idem.onWait = func() { waiting <- struct{}{} }
		t.Cleanup(func() { e.tools.idem.onWait = nil })
		before := e.runs.Load()
		acks := make([]ackOf, n)
		var wg sync.WaitGroup
		wg.Go(func() { acks[0] = e.call(t, t.Context(), "cch_a", "test_echo", `{"text":"conc"}`, "call_conc", nil) })
		<-e.started // the first is inside run, blocked
		for i := 1; i < n; i++ {
			wg.Go(func() { acks[i] = e.call(t, t.Context(), "cch_a", "test_echo", `{"text":"conc"}`, "call_conc", nil) })
		}
		for i := 1; i < n; i++ {
			<-waiting // every duplicate is waiting on the running call
		}
		close(e.block)
		wg.Wait()
		mustOK(t, acks[0], nil)
		for i := 1; i < n; i++ {
			if !cmp.Equal(acks[0], acks[i]) {
				t.Errorf("ack %d = %+v, want %+v", i, acks[i], acks[0])
			}
		}
		if got := e.runs.Load() - before; got != 1 {
			t.Errorf("ran %d times, want 1", got)
		}
	})
}

func TestPipelineRateLimit(t *testing.T) {
	e := newPipelineEnv(t, nil, func(c *Config) { c.RatePerMinute = 3 })
	for i := range 3 {
		mustOK(t, e.call(t, t.Context(), "cch_a", "test_echo", `{"text":"x"}`, fmt.Sprint("call_", i), nil), nil)
	}
	a := e.call(t, t.Context(), "cch_a", "test_echo", `{"text":"x"}`, "call_limited", nil)
	if a.Err == nil || a.Err.Code != CodeRateLimited || !strings.Contains(a.Err.Message, "retry after 20 s") {
		t.Fatalf("ack = %+v, want rate_limited with a 20 s hint", a)
	}
	mustOK(t, e.call(t, t.Context(), "cch_b", "test_echo", `{"text":"x"}`, "", nil), nil) // per channel
	before := e.runs.Load()
	e.clock.Advance(20 * time.Second)
	// rate_limited is not recorded: the same tool_call_id runs once allowed.
	mustOK(t, e.call(t, t.Context(), "cch_a", "test_echo", `{"text":"x"}`, "call_limited", nil), nil)
	if e.runs.Load() != before+1 {
		t.Error("the call refused by the rate limit did not run on retry")
	}
	// A replay costs no token.
	mustOK(t, e.call(t, t.Context(), "cch_a", "test_echo", `{"text":"x"}`, "call_limited", nil), nil)
}

func TestPipelineProgress(t *testing.T) {
	e := newPipelineEnv(t, nil, func(c *Config) { c.ProgressAfter = time.Millisecond })
	e.block, e.started = make(chan struct{}), make(chan struct{}, 1)
	var mu sync.Mutex
	var pushes []string
	acked := false
	progress := func(msg string, frac float64) {
		mu.Lock()
		defer mu.Unlock()
		if acked {
			t.Errorf("progress after the ack: %q", msg)
		}
		if len(pushes) == 0 {
			close(e.block) // the tool finishes once a push was sent
		}
		pushes = append(pushes, msg)
	}
	a := e.call(t, t.Context(), "cch_a", "test_echo", `{"text":"slow"}`, "", progress)
	mu.Lock()
	acked = true
	n := len(pushes)
	mu.Unlock()
	mustOK(t, a, nil)
	if n == 0 || !strings.Contains(pushes[0], "test_echo") {
		t.Errorf("pushes = %q", pushes)
	}
}

// TestAuditRetention: audit rows older than AuditRetention are pruned as
// later calls are written, so the trail cannot grow for ever.
func TestAuditRetention(t *testing.T) {
	t.Parallel()
	e := newPipelineEnv(t, nil, func(c *Config) { c.AuditRetention = 48 * time.Hour })
	ctx := t.Context()
	e.call(t, ctx, "cch_a", "test_echo", `{"text":"old"}`, "", nil)
	e.clock.Advance(24 * time.Hour)
	e.call(t, ctx, "cch_a", "test_echo", `{"text":"mid"}`, "", nil)
	if recs, _ := audit.Read(ctx, e.db.Read, audit.Query{}); len(recs) != 2 {
		t.Fatalf("within retention: %d rows, want 2", len(recs))
	}
	e.clock.Advance(25*time.Hour + time.Minute)
	e.call(t, ctx, "cch_a", "test_echo", `{"text":"new"}`, "", nil)
	recs, err := audit.Read(ctx, e.db.Read, audit.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("after retention: %d rows, want 2 (the oldest pruned): %+v", len(recs), recs)
	}
}

// TestAuditPrunedDaily: pruning runs at the first write and then at most
// once a day, so rows past a short retention stay until the day is over.
func TestAuditPrunedDaily(t *testing.T) {
	t.Parallel()
	e := newPipelineEnv(t, nil, func(c *Config) { c.AuditRetention = time.Hour })
	ctx := t.Context()
	e.call(t, ctx, "cch_a", "test_echo", `{"text":"first"}`, "", nil)
	e.clock.Advance(2 * time.Hour)
	e.call(t, ctx, "cch_a", "test_echo", `{"text":"second"}`, "", nil)
	if recs, _ := audit.Read(ctx, e.db.Read, audit.Query{}); len(recs) != 2 {
		t.Fatalf("within the day: %d rows, want 2 (no prune yet)", len(recs))
	}
	e.clock.Advance(23 * time.Hour)
	e.call(t, ctx, "cch_a", "test_echo", `{"text":"third"}`, "", nil)
	recs, err := audit.Read(ctx, e.db.Read, audit.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 {
		t.Fatalf("a day on: %d rows, want only the newest: %+v", len(recs), recs)
	}
}
