package benchtb

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/connector/xagenttest"
	"github.com/adb-connector/adb-connector/device/card"
	"github.com/adb-connector/adb-connector/device/tools"
)

// callsPerChannel stays under the per-channel rate limit (a burst of
// tools.DefaultRatePerMinute): the agent moves to a fresh channel, paired
// again through the admin socket, before it runs out.
const callsPerChannel = tools.DefaultRatePerMinute - 10

// Agent is an xAgent data plane bound to one phone through device_pairing,
// as the bench programs drive it. Not safe for concurrent use.
type Agent struct {
	srv    *Serve
	serial string
	c      *xagenttest.Client
	ch     string
	calls  int
	seq    atomic.Uint64
}

// NewAgent dials srv's /ws, says hello with the device Card and binds a
// channel to serial (see Pair).
func NewAgent(ctx context.Context, srv *Serve, serial string) (*Agent, error) {
	c, _, err := xagenttest.Dial(ctx, srv.URL, xagenttest.Options{APIKey: srv.APIKey, SkipValidation: true})
	if err != nil {
		return nil, err
	}
	a := &Agent{srv: srv, serial: serial, c: c}
	if _, err := c.Hello(ctx, card.CardID, ""); err != nil {
		c.Close()
		return nil, err
	}
	if err := a.bind(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return a, nil
}

// Close closes the WebSocket.
func (a *Agent) Close() { a.c.Close() }

// bind opens a channel and pairs it with a code from the admin socket,
// waiting for "connected" (the server may still be probing the phone).
func (a *Agent) bind(ctx context.Context) error {
	ch, _, err := a.c.OpenChannel(ctx, "")
	if err != nil {
		return err
	}
	if err := a.srv.PairConnected(ctx, a.c, ch, a.serial); err != nil {
		return err
	}
	a.ch, a.calls = ch, 0
	return nil
}

// rotate frees the device (auth.logout) and binds a fresh channel.
func (a *Agent) rotate(ctx context.Context) error {
	if _, err := a.c.Request(ctx, connector.TypeAuthLogout, a.ch, nil); err != nil {
		return err
	}
	return a.bind(ctx)
}

// Prepare moves to a fresh channel when this one is near the rate limit;
// call it outside the timed part.
func (a *Agent) Prepare(ctx context.Context) error {
	if a.calls >= callsPerChannel {
		return a.rotate(ctx)
	}
	return nil
}

// Invoke runs one tool call with a fresh tool_call_id and returns its
// result; a failed call is an error naming the tool and its error code.
func (a *Agent) Invoke(ctx context.Context, tool string, args any) (json.RawMessage, error) {
	a.calls++
	r, err := a.c.Request(ctx, connector.TypeToolInvoke, a.ch, map[string]any{
		"tool_id": tool, "arguments": args,
		"context": map[string]string{"tool_call_id": "bench_" + strconv.FormatUint(a.seq.Add(1), 10)}})
	if err != nil {
		return nil, err
	}
	if r.Error != nil {
		return nil, fmt.Errorf("%s: %s: %s", tool, r.Error.Code, r.Error.Message)
	}
	var ack struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(r.Payload, &ack); err != nil {
		return nil, err
	}
	return ack.Result, nil
}
