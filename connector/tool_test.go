package connector_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/connector/xagenttest"
)

func invoke(tool string) map[string]any {
	return map[string]any{"tool_id": tool, "arguments": map[string]any{"connector_channel_id": "cch_model", "x": 1},
		"context": map[string]any{"session_id": "s1", "tool_call_id": "call_1"}}
}

func TestToolInvoke(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{key: apiKey})
	ctx := ctxT(t)
	c, _ := e.helloed(t, apiKey, "")
	ch, _, err := c.OpenChannel(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	r, _ := c.Request(ctx, connector.TypeToolInvoke, ch, invoke("echo"))
	p := payloadOf(t, r)
	res, _ := p["result"].(map[string]any)
	if r.Type != connector.TypeToolInvokeAck || r.Error != nil || p["tool_id"] != "echo" || res["channel"] != ch || res["tool_call_id"] != "call_1" {
		t.Fatalf("echo ack = %s %v", r.Payload, r.Error)
	}
	if args := res["arguments"].(map[string]any); args["x"] != float64(1) {
		t.Errorf("arguments not passed unchanged: %v", args)
	}
	cases := []struct{ tool, code string }{
		{"nope", connector.CodeToolNotFound},
		{"fail", connector.CodeToolInvokeFailed},
		{"offline", "device_offline"},
	}
	for _, tc := range cases {
		t.Run(tc.tool, func(t *testing.T) {
			r, _ := c.Request(ctx, connector.TypeToolInvoke, ch, invoke(tc.tool))
			wantError(t, r, connector.TypeToolInvokeAck, tc.code)
			if strings.Contains(r.Error.Message, apiKey) || strings.Contains(r.Error.Message, "exec failed") {
				t.Errorf("error message leaks detail: %q", r.Error.Message)
			}
		})
	}
	r, _ = c.Request(ctx, connector.TypeToolInvoke, ch, map[string]any{"arguments": map[string]any{}})
	wantError(t, r, connector.TypeError, connector.CodeInvalidPacket)
	r, _ = c.Request(ctx, connector.TypeToolInvoke, ch, map[string]any{"tool_id": "echo", "arguments": []int{1}})
	wantError(t, r, connector.TypeToolInvokeAck, connector.CodeInvalidArguments)

	r, _ = c.Request(ctx, connector.TypeToolInvoke, ch, invoke("progress"))
	if r.Type != connector.TypeToolInvokeAck || r.Error != nil {
		t.Fatalf("progress ack = %+v", r)
	}
	push, err := c.WaitPush(ctx, connector.TypeToolProgressPush)
	if err != nil {
		t.Fatal(err)
	}
	pp := payloadOf(t, push)
	if push.ChannelID != ch || push.RequestID != r.RequestID || pp["progress"] != 0.5 || pp["message"] != "half way" || pp["status"] != "running" {
		t.Errorf("progress push = %+v %s", push, push.Payload)
	}
	// Secrets scan: no byte the server sent and no log line holds the key.
	for _, f := range c.Raw() {
		if bytes.Contains(f, []byte(apiKey)) {
			t.Fatalf("API key sent on the wire: %s", f)
		}
	}
	if strings.Contains(e.logs.String(), apiKey) {
		t.Fatal("API key in logs")
	}
}

// TestBlockingToolDoesNotDelayOthers: a tool blocked (on a channel, not a
// sleep) never delays ping or another channel's calls.
func TestBlockingToolDoesNotDelayOthers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	ctx := ctxT(t)
	c, _ := e.helloed(t, "", "")
	chA, _, _ := c.OpenChannel(ctx, "")
	chB, _, _ := c.OpenChannel(ctx, "")
	blocked := make(chan *connector.Packet, 1)
	go func() {
		r, _ := c.Request(ctx, connector.TypeToolInvoke, chA, invoke("block"))
		blocked <- r
	}()
	if got := <-e.started; got != chA {
		t.Fatalf("block started on %s", got)
	}
	for i := 0; i < 20; i++ {
		if r, err := c.Request(ctx, connector.TypePing, "", nil); err != nil || r.Type != connector.TypePong {
			t.Fatalf("ping while a tool blocks: %v %v", r, err)
		}
	}
	r, _ := c.Request(ctx, connector.TypeToolInvoke, chB, invoke("echo"))
	if r.Type != connector.TypeToolInvokeAck || r.Error != nil {
		t.Fatalf("other channel while a tool blocks: %+v", r)
	}
	r, _ = c.Request(ctx, connector.TypeDescriptorGet, chA, nil)
	if r.Type != connector.TypeDescriptorGetAck {
		t.Fatalf("same channel descriptor while a tool blocks: %+v", r)
	}
	select {
	case r := <-blocked:
		t.Fatalf("blocked tool answered early: %+v", r)
	default:
	}
	e.releaseAll()
	if r := <-blocked; r == nil || r.Error != nil || payloadOf(t, r)["result"].(map[string]any)["released"] != true {
		t.Fatalf("released tool ack = %+v", r)
	}
}

// startBlockedCall opens a channel and invokes the "block" tool on it; it
// returns once the tool runs, with the client and the channel the ack
// (nil on a transport error) will come on.
func startBlockedCall(t *testing.T, e *env) (*xagenttest.Client, <-chan *connector.Packet) {
	t.Helper()
	c, _, ch := e.openChannel(t)
	ctx := ctxT(t)
	acked := make(chan *connector.Packet, 1)
	go func() {
		r, _ := c.Request(ctx, connector.TypeToolInvoke, ch, invoke("block"))
		acked <- r
	}()
	<-e.started
	return c, acked
}

func TestShutdownDrainsThenGoingAway(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	ctx := ctxT(t)
	c, acked := startBlockedCall(t, e)
	shut := make(chan error, 1)
	go func() { shut <- e.srv.Shutdown(ctx) }()
	e.releaseAll() // the in-flight call finishes during the drain
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown = %v", err)
	}
	if r := <-acked; r == nil || r.Type != connector.TypeToolInvokeAck || r.Error != nil {
		t.Fatalf("in-flight call lost on shutdown: %+v", r)
	}
	if got := c.CloseStatus(); got != websocket.StatusGoingAway {
		t.Errorf("close status = %v, want 1001", got)
	}
}

func TestShutdownCancelsAfterDeadline(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	ctx := ctxT(t)
	c, acked := startBlockedCall(t, e)
	sctx, cancel := context.WithCancel(ctx)
	cancel() // drain deadline already passed: in-flight work is canceled
	if err := e.srv.Shutdown(sctx); err == nil {
		t.Error("Shutdown with an expired context reported success")
	}
	if got := c.CloseStatus(); got != websocket.StatusGoingAway {
		t.Errorf("close status = %v, want 1001", got)
	}
	<-acked
}

func TestSlowPeerIsDropped(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{cfg: func(c *connector.Config) {
		c.WriteQueue = 4
		c.MaxChannelToolCalls = 2
		c.WriteTimeout = 100 * time.Millisecond
	}})
	ctx := ctxT(t)
	// A raw peer: hello and channel.open, then it writes and never reads.
	raw, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.url, "http")+"/ws",
		&websocket.DialOptions{Subprotocols: []string{connector.Subprotocol}})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.CloseNow()
	raw.SetReadLimit(-1)
	send := func(s string) error {
		wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		return raw.Write(wctx, websocket.MessageText, []byte(s))
	}
	send(`{"schema":"xagent.connector.packet/v1","packet_id":"p1","request_id":"r1","type":"connector.hello","payload":{"connector_card_id":"device.adb","protocol_version":"3.0","supported_profiles":["xagent.device.v1"]}}`)
	send(`{"schema":"xagent.connector.packet/v1","packet_id":"p2","request_id":"r2","type":"channel.open","payload":{}}`)
	var ch string
	for ch == "" {
		_, b, err := raw.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if p, _ := connector.DecodePacket(b); p != nil && p.Type == connector.TypeChannelOpenAck {
			ch = p.ChannelID
		}
	}
	// Each echo answers ~256 KiB; the peer reads none of it.
	big := `{"schema":"xagent.connector.packet/v1","packet_id":"p","request_id":"r","connector_channel_id":"` + ch +
		`","type":"tool.invoke","payload":{"tool_id":"echo","arguments":{"pad":"` + strings.Repeat("x", 256<<10) + `"}}}`
	var werr error
	for i := 0; i < 2000 && werr == nil; i++ {
		werr = send(big)
	}
	if werr == nil {
		t.Fatal("server kept buffering for a peer that never reads")
	}
	waitFor(t, func() bool {
		return strings.Contains(e.logs.String(), "peer is not reading") || strings.Contains(e.logs.String(), "write failed")
	})
}

// TestToolRegisteredAfterNewIsNotInvokable: the Card is built once, so a tool
// registered later is undeclared and answers tool_not_found, never runs.
func TestToolRegisteredAfterNewIsNotInvokable(t *testing.T) {
	t.Parallel()
	var reg *connector.Registry
	e := newEnv(t, envOpts{cfg: func(c *connector.Config) { reg = c.Registry }})
	ran := make(chan struct{}, 1)
	if err := reg.Register(connector.Tool{ID: "late", Profile: connector.ProfileDeviceV1, InputSchema: map[string]any{"type": "object"},
		Handler: func(context.Context, connector.ToolCall) (any, error) { ran <- struct{}{}; return nil, nil }}); err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)
	c, _, ch := e.openChannel(t)
	r, _ := c.Request(ctx, connector.TypeToolInvoke, ch, invoke("late"))
	wantError(t, r, connector.TypeToolInvokeAck, connector.CodeToolNotFound)
	select {
	case <-ran:
		t.Error("an undeclared tool ran")
	default:
	}
}

// TestSlowToolCallsDoNotBlockTheSocket: tool calls over a channel's bound
// are answered rate_limited at once, and ping, control packets and another
// channel's calls are answered while a channel's calls stay blocked (one
// user's slow phone must not delay every user on xAgent's one socket).
func TestSlowToolCallsDoNotBlockTheSocket(t *testing.T) {
	t.Parallel()
	const perChannel = 4
	e := newEnv(t, envOpts{cfg: func(c *connector.Config) {
		c.MaxChannelToolCalls = perChannel
		c.MaxToolCalls = perChannel + 1
		c.MaxInFlight = 1
	}})
	ctx := ctxT(t)
	c, _, busy := e.openChannel(t)
	other, _, err := c.OpenChannel(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	third, _, err := c.OpenChannel(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	acks := make(chan *connector.Packet, 3*perChannel)
	for range 3 * perChannel {
		go func() {
			r, _ := c.Request(ctx, connector.TypeToolInvoke, busy, invoke("block"))
			acks <- r
		}()
	}
	for range perChannel {
		<-e.started
	}
	// The calls over the channel's bound are refused at once.
	for range 2 * perChannel {
		wantError(t, <-acks, connector.TypeToolInvokeAck, connector.CodeRateLimited)
	}
	// Everything else is answered while the channel's calls stay blocked.
	if r, err := c.Request(ctx, connector.TypePing, "", nil); err != nil || r.Type != connector.TypePong {
		t.Fatalf("ping while a channel is saturated: %+v %v", r, err)
	}
	if r, err := c.Request(ctx, connector.TypeDescriptorGet, busy, nil); err != nil || r.Type != connector.TypeDescriptorGetAck {
		t.Fatalf("descriptor.get on the saturated channel: %+v %v", r, err)
	}
	if r, err := c.Request(ctx, connector.TypeToolInvoke, other, invoke("echo")); err != nil || r.Type != connector.TypeToolInvokeAck || r.Error != nil {
		t.Fatalf("another channel's call: %+v %v", r, err)
	}
	// The connection's own bound (perChannel+1) is reached by one more
	// blocked call on another channel: a third channel is refused at once.
	go func() {
		r, _ := c.Request(ctx, connector.TypeToolInvoke, other, invoke("block"))
		acks <- r
	}()
	<-e.started
	r, err := c.Request(ctx, connector.TypeToolInvoke, third, invoke("echo"))
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, r, connector.TypeToolInvokeAck, connector.CodeRateLimited)
	select {
	case r := <-acks:
		t.Fatalf("a blocked call was answered before release: %+v", r)
	default:
	}
	e.releaseAll()
	for range perChannel + 1 {
		if r := <-acks; r == nil || r.Error != nil {
			t.Fatalf("blocked call after release: %+v", r)
		}
	}
	// Bounds are released with the calls.
	if r, err := c.Request(ctx, connector.TypeToolInvoke, busy, invoke("echo")); err != nil || r.Error != nil {
		t.Fatalf("call after the bound freed: %+v %v", r, err)
	}
}
