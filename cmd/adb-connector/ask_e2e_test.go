package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/admin"
)

// askResult is android_ask_operator's result as the agent reads it.
type askResult struct {
	Answered bool    `json:"answered"`
	Reply    *string `json:"reply"`
	WaitedMS int64   `json:"waited_ms"`
}

// pendingAsk is an android_ask_operator call in flight.
type pendingAsk chan *connector.Packet

// ask calls android_ask_operator on ch in the background and waits for its
// first progress push, which the tool sends once the question is on the
// board: the operator can see it from then on.
func (a *agent) ask(t *testing.T, ch string, args map[string]any) pendingAsk {
	t.Helper()
	out := make(pendingAsk, 1)
	go func() {
		p, err := a.Request(t.Context(), connector.TypeToolInvoke, ch, map[string]any{
			"tool_id": "android_ask_operator", "arguments": args, "context": map[string]string{"tool_call_id": a.NextID("ask_")}})
		if err != nil && t.Context().Err() == nil {
			t.Errorf("android_ask_operator: %v", err)
		}
		out <- p
	}()
	ctx, cancel := context.WithTimeout(t.Context(), setupWait)
	defer cancel()
	p, err := a.WaitPush(ctx, connector.TypeToolProgressPush)
	if err != nil {
		t.Fatalf("no progress push while asking: %v", err)
	}
	var pl struct {
		ToolID  string `json:"tool_id"`
		Message string `json:"message"`
	}
	if json.Unmarshal(p.Payload, &pl) != nil || pl.ToolID != "android_ask_operator" ||
		!strings.HasPrefix(pl.Message, "waiting for the operator's answer (") {
		t.Fatalf("progress push %s", p.Payload)
	}
	return out
}

// result waits for the call's ack and decodes it.
func (pa pendingAsk) result(t *testing.T) askResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), setupWait)
	defer cancel()
	select {
	case p := <-pa:
		if p == nil {
			t.Fatal("android_ask_operator: no ack")
		}
		var r askResult
		result(t, p, &r)
		return r
	case <-ctx.Done():
		t.Fatal("android_ask_operator did not return")
	}
	return askResult{}
}

// question is the one open question `requests --json` lists.
func (p *serveProc) question(t *testing.T) admin.Question {
	t.Helper()
	var qs []admin.Question
	if err := json.Unmarshal([]byte(p.cli(t, runRequests, "--json")), &qs); err != nil || len(qs) != 1 {
		t.Fatalf("requests --json: %v %+v, want one question", err, qs)
	}
	return qs[0]
}

// cliFails runs an operator command that must fail with an error saying want.
func (p *serveProc) cliFails(t *testing.T, run runFunc, want string, args ...string) {
	t.Helper()
	out, err := runCLI(run, append(args, "--data-dir", p.DataDir)...)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%v: %q, %v; want an error saying %q", args, out, err, want)
	}
}

// TestAskOperatorCLI: through the real server and adb server, an agent's
// question is listed by `adb-connector requests`, answered (a text, done)
// or declined from the CLI with every refusal on the way (no text where
// one is expected, a text where done is, an unknown or closed id), a
// second question on the channel is device_busy; an unbind, a logout and
// the lease's end each close the open question (answered false). The
// reply is in no audit row and no log line: the audit keeps its length.
func TestAskOperatorCLI(t *testing.T) {
	t.Parallel()
	ls := startLeaseServe(t)
	p, serial := ls.serveProc, ls.phone.Serial()
	p.waitOnline(t, serial)
	a := newAgent(t, p, "")
	ch := a.open(t)
	a.pair(t, p, ch, serial)
	const secret = "otp-482913-語"

	// Declined.
	pa := a.ask(t, ch, map[string]any{"message": "Please solve the CAPTCHA on the phone", "timeout_ms": 600000, "expect": "text"})
	list := p.cli(t, runRequests)
	if !strings.Contains(list, "Please solve the CAPTCHA on the phone") || !strings.Contains(list, serial) || !strings.Contains(list, "text") {
		t.Errorf("requests:\n%s", list)
	}
	q := p.question(t)
	if q.ChannelID != ch || q.Expect != "text" || q.Deadline.Sub(q.AskedAt).Milliseconds() != 600000 {
		t.Errorf("question %+v", q)
	}
	busy := a.invoke(t, ch, "android_ask_operator", map[string]any{"message": "again", "timeout_ms": 10000})
	if busy.Error == nil || busy.Error.Code != "device_busy" {
		t.Errorf("second question on the channel: %+v, want device_busy", busy.Error)
	}
	p.cliFails(t, runAnswer, "expects a text answer", q.ID)
	p.cliFails(t, runAnswer, "no open question q999", "q999", "x")
	p.cli(t, runDecline, q.ID)
	if r := pa.result(t); r.Answered || r.Reply != nil {
		t.Errorf("declined: %+v", r)
	}
	p.cliFails(t, runDecline, "no open question "+q.ID, q.ID)
	if out := p.cli(t, runRequests); !strings.Contains(out, "no open question") {
		t.Errorf("requests after the decline:\n%s", out)
	}

	// Done, without text.
	pa = a.ask(t, ch, map[string]any{"message": "Touch the fingerprint sensor", "timeout_ms": 60000, "expect": "done"})
	q = p.question(t)
	p.cliFails(t, runAnswer, "expects done", q.ID, "some text")
	p.cli(t, runAnswer, q.ID)
	if r := pa.result(t); !r.Answered || r.Reply != nil {
		t.Errorf("done: %+v", r)
	}

	// A text.
	pa = a.ask(t, ch, map[string]any{"message": "Which code did the SMS bring?", "timeout_ms": 60000})
	p.cli(t, runAnswer, p.question(t).ID, secret)
	if r := pa.result(t); !r.Answered || r.Reply == nil || *r.Reply != secret || r.WaitedMS <= 0 {
		t.Errorf("text: %+v", r)
	}

	// An unbind, a logout, the lease's end close the question.
	pa = a.ask(t, ch, map[string]any{"message": "Unlock the phone", "timeout_ms": 600000})
	p.cli(t, runUnbind, serial)
	if r := pa.result(t); r.Answered {
		t.Errorf("after unbind: %+v", r)
	}
	a.waitStatus(t, ch, "revoked", setupWait)
	ls.waitReset(t, "")
	ch = a.open(t)
	a.pair(t, p, ch, serial)
	pa = a.ask(t, ch, map[string]any{"message": "Unlock the phone", "timeout_ms": 600000})
	if pk, _ := a.request(t, connector.TypeAuthLogout, ch, nil); pk.Error != nil {
		t.Fatalf("logout: %+v", pk.Error)
	}
	if r := pa.result(t); r.Answered {
		t.Errorf("after logout: %+v", r)
	}
	ls.waitReset(t, "")
	ch = a.open(t)
	a.pair(t, p, ch, serial)
	pa = a.ask(t, ch, map[string]any{"message": "Unlock the phone", "timeout_ms": 600000})
	ls.endLease(t, a, ch)
	if r := pa.result(t); r.Answered {
		t.Errorf("after the lease's end: %+v", r)
	}
	if out := p.cli(t, runRequests); !strings.Contains(out, "no open question") {
		t.Errorf("requests after the channel lost its phone:\n%s", out)
	}

	// The audit keeps the reply's length, never the text; no log has it.
	rows := p.cli(t, runAudit, "--tool", "android_ask_operator", "--json")
	if strings.Contains(rows, "otp-482913") || !strings.Contains(rows, `\"reply\":{\"len\":12}`) && !strings.Contains(rows, `"reply":{"len":12}`) {
		t.Errorf("audit of android_ask_operator:\n%s", rows)
	}
	if strings.Contains(p.Logs(), "otp-482913") {
		t.Error("the operator's reply is in the server log")
	}
}

// TestAskOperatorPolicyOff: ask_operator false refuses the call
// not_permitted before anything is asked.
func TestAskOperatorPolicyOff(t *testing.T) {
	t.Parallel()
	env := adbtest.Start(t, adbtest.Options{Devices: 1})
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("policies:\n  default: {ask_operator: false}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startServe(t, t.TempDir(), env.ServerAddr, nil, "--config", cfg)
	serial := env.Devices[0].Serial()
	p.waitOnline(t, serial)
	a := newAgent(t, p, "")
	ch := a.open(t)
	a.pair(t, p, ch, serial)
	pk := a.invoke(t, ch, "android_ask_operator", map[string]any{"message": "hello?", "timeout_ms": 10000})
	if pk.Error == nil || pk.Error.Code != "not_permitted" || !strings.Contains(pk.Error.Message, "asking the operator is not allowed") {
		t.Fatalf("policy off: %+v, want not_permitted", pk.Error)
	}
	if out := p.cli(t, runRequests); !strings.Contains(out, "no open question") {
		t.Errorf("requests:\n%s", out)
	}
}
