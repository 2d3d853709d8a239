package tools

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/ask"
)

// Bounds of android_ask_operator's arguments.
const (
	maxAskChars  = 500
	minAskWaitMS = 10_000
	maxAskWaitMS = 900_000
)

// askResult is android_ask_operator's result. Reply is the operator's
// text, for the agent only: the audit row keeps its length (inv.audit).
type askResult struct {
	Answered bool    `json:"answered"`
	Reply    *string `json:"reply,omitempty"`
	WaitedMS int64   `json:"waited_ms"`
}

type askArgs struct {
	Message   string `json:"message"`
	TimeoutMS int64  `json:"timeout_ms"`
	Expect    string `json:"expect"`
}

func askTool(t *Tools) *toolDef {
	d := declare(t, decl[askArgs]{
		id: "android_ask_operator", title: "Ask the lab's operator and wait for the answer",
		required: []string{"message", "timeout_ms"}, run: (*Tools).runAsk,
		props: map[string]any{
			"message": map[string]any{"type": "string", "minLength": 1, "maxLength": maxAskChars,
				"description": "The question, shown to the operator as written (1-500 characters), e.g. \"Please solve the CAPTCHA on the phone\"."},
			"timeout_ms": map[string]any{"type": "integer", "minimum": minAskWaitMS, "maximum": maxAskWaitMS,
				"description": "How long to wait for the answer, 10000-900000 ms (10 s to 15 min)."},
			"expect": map[string]any{"type": "string", "enum": []any{ask.ExpectDone, ask.ExpectText},
				"description": "done: the operator only says it is done; text: the operator answers with a text. Absent: either."},
		},
		description: "Asks the lab's operator a question about the bound phone (a CAPTCHA, a second factor, a " +
			"fingerprint: a step that needs a person) and waits up to timeout_ms for the answer, sending progress " +
			"while it waits. Returns {answered, reply, waited_ms}: answered false when the operator declined, the " +
			"wait timed out, or the phone was unbound or its lease ended. reply is the operator's text (expect text, " +
			"or absent expect when the operator gave one). One open question per channel: another call meanwhile " +
			"is device_busy. The reply is for you only; it is never logged. A repeated tool_call_id returns the " +
			"recorded answer without asking again; a new call asks again.",
	})
	d.ownProgress = true
	return d
}

// runAsk is not readOnly although it never touches the phone: the operator
// acts on it while the agent waits, so the phone's cached UI tree goes.
func (t *Tools) runAsk(ctx context.Context, inv *invocation, a askArgs) (any, error) {
	switch {
	case a.Message == "" || utf8.RuneCountInString(a.Message) > maxAskChars:
		return nil, &argError{Field: "message", Reason: "must be 1-500 characters"}
	case a.TimeoutMS < minAskWaitMS || a.TimeoutMS > maxAskWaitMS:
		return nil, &argError{Field: "timeout_ms", Reason: "must be 10000-900000"}
	}
	timeout := time.Duration(a.TimeoutMS) * time.Millisecond
	start := t.cfg.Now()
	p, err := t.cfg.Questions.Open(ask.Question{ChannelID: inv.call.Channel.ID, DeviceKey: inv.meta.Key,
		Message: a.Message, Expect: a.Expect, AskedAt: start, Deadline: start.Add(timeout)})
	if errors.Is(err, ask.ErrOpen) {
		return nil, &connector.Error{Code: CodeDeviceBusy, Message: "a question to the operator is already open on this " +
			"channel: wait for its call to return (answered, declined or timed out), then ask again"}
	}
	if err != nil {
		return nil, err
	}
	defer p.Withdraw()
	expired := t.after(timeout)
	tick := time.NewTicker(t.cfg.ProgressAfter)
	defer tick.Stop()
	for {
		select {
		case <-p.Done():
			return t.askResult(p.Answer(), start, inv), nil
		case <-expired:
			p.Withdraw()
			return t.askResult(p.Answer(), start, inv), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
			waited := t.cfg.Now().Sub(start)
			inv.call.Progress(fmt.Sprintf("waiting for the operator's answer (%d s of %d s)",
				int(waited.Seconds()), int(timeout.Seconds())), float64(waited)/float64(timeout))
		}
	}
}

// askResult is the result of an ended question; the audit row gets the
// reply's length.
func (t *Tools) askResult(ans ask.Answer, start time.Time, inv *invocation) askResult {
	r := askResult{Answered: ans.Answered, WaitedMS: t.cfg.Now().Sub(start).Milliseconds()}
	if ans.HasReply {
		r.Reply = &ans.Reply
	}
	inv.audit = map[string]any{"answered": ans.Answered}
	if ans.HasReply {
		inv.audit["reply"] = map[string]int{"len": utf8.RuneCountInString(ans.Reply)}
	}
	return r
}

// after is time.After, or the tests' timer (Tools.afterHook).
func (t *Tools) after(d time.Duration) <-chan time.Time {
	if t.afterHook != nil {
		return t.afterHook(d)
	}
	timer := time.NewTimer(d)
	return timer.C
}
