package tools

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/ask"
	"github.com/adb-connector/adb-connector/device/audit"
)

// asking is an android_ask_operator call running in the background: its
// first progress push says the question is on the board.
type asking struct {
	asked    chan struct{}
	done     chan ackOf
	mu       sync.Mutex
	progress []string
}

func (e *toolsEnv) ask(t *testing.T, ctx context.Context, ch, args, callID string) *asking {
	t.Helper()
	a := &asking{asked: make(chan struct{}), done: make(chan ackOf, 1)}
	var once sync.Once
	go func() {
		a.done <- e.call(t, ctx, ch, "android_ask_operator", args, callID, func(msg string, _ float64) {
			a.mu.Lock()
			a.progress = append(a.progress, msg)
			a.mu.Unlock()
			once.Do(func() { close(a.asked) })
		})
	}()
	return a
}

// question waits for the call's question and returns it.
func (a *asking) question(t *testing.T, b *ask.Board) ask.Question {
	t.Helper()
	select {
	case <-a.asked:
	case r := <-a.done:
		t.Fatalf("call returned before asking: %+v", r)
	}
	for _, q := range b.List() {
		return q
	}
	t.Fatal("no open question")
	return ask.Question{}
}

func (a *asking) result(t *testing.T) askResult {
	t.Helper()
	var r askResult
	mustOK(t, <-a.done, &r)
	return r
}

func newAskEnv(t *testing.T, tune func(*Config)) (*toolsEnv, *ask.Board) {
	b := ask.NewBoard()
	e := newToolsEnv(t, 1, func(c *Config) {
		c.Questions = b
		c.ProgressAfter = 5 * time.Millisecond
		if tune != nil {
			tune(c)
		}
	})
	return e, b
}

// TestAskOperatorAnswers: the question reaches the board as asked, the
// call sends progress while it waits and returns the answer; the audit
// row keeps the reply's length only; expect done and text are enforced on
// the operator's side; a second question on the channel is device_busy.
func TestAskOperatorAnswers(t *testing.T) {
	t.Parallel()
	e, b := newAskEnv(t, nil)
	ch := devChannel(0)
	secret := "code 482913 語"

	a := e.ask(t, t.Context(), ch, `{"message":"Type the SMS code shown on your phone","timeout_ms":600000,"expect":"text"}`, "call-1")
	q := a.question(t, b)
	if q.ChannelID != ch || q.Message != "Type the SMS code shown on your phone" || q.Expect != ask.ExpectText ||
		q.Deadline.Sub(q.AskedAt) != 10*time.Minute || !strings.HasSuffix(q.DeviceKey, e.device(0).Serial()) {
		t.Fatalf("question %+v", q)
	}
	busy := e.call(t, t.Context(), ch, "android_ask_operator", `{"message":"again?","timeout_ms":10000}`, "", nil)
	if busy.Err == nil || busy.Err.Code != CodeDeviceBusy || !strings.Contains(busy.Err.Message, "already open") {
		t.Fatalf("second question: %+v, want device_busy", busy)
	}
	if _, err := b.Answer(q.ID, ""); err == nil {
		t.Fatal("an answer without text was taken for expect text")
	}
	if _, err := b.Answer(q.ID, secret); err != nil {
		t.Fatal(err)
	}
	r := a.result(t)
	if !r.Answered || r.Reply == nil || *r.Reply != secret || r.WaitedMS < 0 {
		t.Fatalf("result %+v", r)
	}
	a.mu.Lock()
	if len(a.progress) == 0 || !strings.HasPrefix(a.progress[0], "waiting for the operator's answer (") || !strings.HasSuffix(a.progress[0], " of 600 s)") {
		t.Errorf("progress %q", a.progress)
	}
	a.mu.Unlock()
	// A repeated tool_call_id gets the recorded answer without asking.
	var again askResult
	mustOK(t, e.call(t, t.Context(), ch, "android_ask_operator", `{"message":"Type the SMS code shown on your phone","timeout_ms":600000,"expect":"text"}`, "call-1", nil), &again)
	if !again.Answered || again.Reply == nil || *again.Reply != secret || len(b.List()) != 0 {
		t.Fatalf("replay %+v, open %v", again, b.List())
	}

	// expect done: answered without a text; a text is refused.
	a = e.ask(t, t.Context(), ch, `{"message":"Touch the fingerprint sensor","timeout_ms":10000,"expect":"done"}`, "")
	q = a.question(t, b)
	if _, err := b.Answer(q.ID, "x"); err == nil {
		t.Fatal("a text was taken for expect done")
	}
	if _, err := b.Answer(q.ID, ""); err != nil {
		t.Fatal(err)
	}
	if r := a.result(t); !r.Answered || r.Reply != nil {
		t.Fatalf("done result %+v", r)
	}

	rows, err := audit.Read(t.Context(), e.db.Read, audit.Query{ToolID: "android_ask_operator"})
	if err != nil {
		t.Fatal(err)
	}
	var withLen bool
	for _, row := range rows {
		if strings.Contains(string(row.Args), "482913") || strings.Contains(string(row.Args), "SMS") {
			t.Errorf("audit row holds the reply or the message: %s", row.Args)
		}
		withLen = withLen || strings.Contains(string(row.Args), `"reply":{"len":13}`)
	}
	if !withLen {
		t.Errorf("no audit row keeps the reply's length: %v", rows)
	}
}

// TestAskOperatorEnds: declined, timed out (waited_ms is the timeout, on
// the tools' clock), the call's context ending, the channel losing its
// phone: each returns answered false (or the context's error) and takes
// the question off the board.
func TestAskOperatorEnds(t *testing.T) {
	t.Parallel()
	var (
		mu   sync.Mutex
		now  = time.Unix(1_800_000_000, 0)
		fire = make(chan time.Time, 1)
		want time.Duration
	)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	e, b := newAskEnv(t, func(c *Config) { c.Now = clock })
	e.tools.afterHook = func(d time.Duration) <-chan time.Time {
		mu.Lock()
		want = d
		mu.Unlock()
		return fire
	}
	ch := devChannel(0)
	args := `{"message":"Solve the CAPTCHA","timeout_ms":45000}`

	a := e.ask(t, t.Context(), ch, args, "")
	q := a.question(t, b)
	if _, err := b.Decline(q.ID); err != nil {
		t.Fatal(err)
	}
	if r := a.result(t); r.Answered || r.Reply != nil {
		t.Fatalf("declined: %+v", r)
	}

	a = e.ask(t, t.Context(), ch, args, "")
	a.question(t, b)
	mu.Lock()
	if want != 45*time.Second {
		t.Errorf("timer of %v, want 45s", want)
	}
	now = now.Add(want)
	mu.Unlock()
	fire <- now
	if r := a.result(t); r.Answered || r.WaitedMS != 45000 {
		t.Fatalf("timed out: %+v, want answered false after 45000 ms", r)
	}
	if len(b.List()) != 0 {
		t.Fatal("the timed-out question stayed open")
	}

	ctx, cancel := context.WithCancel(t.Context())
	a = e.ask(t, ctx, ch, args, "")
	a.question(t, b)
	cancel()
	if r := <-a.done; r.Err == nil {
		t.Fatalf("canceled call: %+v", r)
	}
	if len(b.List()) != 0 {
		t.Fatal("the canceled call's question stayed open")
	}

	a = e.ask(t, t.Context(), ch, args, "")
	q = a.question(t, b)
	b.Close(ch, "") // what the Profile does on unbind, logout and lease end
	if r := a.result(t); r.Answered {
		t.Fatalf("closed: %+v", r)
	}
}

// TestAskOperatorRefusals: bad arguments and the policy refuse before
// anything is asked.
func TestAskOperatorRefusals(t *testing.T) {
	t.Parallel()
	e, b := newAskEnv(t, func(c *Config) {
		c.Policy = policyHolder(t, "tags:\n  - {match: {model: \"Pixel 6\"}, tags: [lab]}\npolicies:\n  default: {ask_operator: true}\n  rules:\n    - {tags: [lab], ask_operator: false}\n")
	})
	ch := devChannel(0)
	for _, tc := range []struct{ args, code, field string }{
		{`{"message":"","timeout_ms":10000}`, connector.CodeInvalidArguments, "message"},
		{`{"message":"` + strings.Repeat("語", 501) + `","timeout_ms":10000}`, connector.CodeInvalidArguments, "message"},
		{`{"timeout_ms":10000}`, connector.CodeInvalidArguments, "message"},
		{`{"message":"x","timeout_ms":9999}`, connector.CodeInvalidArguments, "timeout_ms"},
		{`{"message":"x","timeout_ms":900001}`, connector.CodeInvalidArguments, "timeout_ms"},
		{`{"message":"x"}`, connector.CodeInvalidArguments, "timeout_ms"},
		{`{"message":"x","timeout_ms":10000,"expect":"yes"}`, connector.CodeInvalidArguments, "expect"},
		{`{"message":"x","timeout_ms":10000}`, codeNotPermitted, "asking the operator is not allowed"},
	} {
		a := e.call(t, t.Context(), ch, "android_ask_operator", tc.args, "", nil)
		if a.Err == nil || a.Err.Code != tc.code || !strings.Contains(a.Err.Message, tc.field) {
			t.Errorf("%.60s: %+v, want %s on %s", tc.args, a, tc.code, tc.field)
		}
	}
	if len(b.List()) != 0 {
		t.Fatal("a refused call asked")
	}
}
