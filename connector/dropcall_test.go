package connector_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/connector"
)

// TestDroppedSocketDoesNotCancelToolCalls: a tool call outlives the socket
// it came on (xAgent retries it with the same tool_call_id on a new socket
// and must get its real outcome), and ends only with the server.
func TestDroppedSocketDoesNotCancelToolCalls(t *testing.T) {
	t.Parallel()
	release, started, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	e := newEnv(t, envOpts{noTools: true, cfg: func(c *connector.Config) {
		err := c.Registry.Register(connector.Tool{ID: "slow", Profile: connector.ProfileDeviceV1, InputSchema: map[string]any{"type": "object"},
			Handler: func(ctx context.Context, call connector.ToolCall) (any, error) {
				close(started)
				<-release
				done <- ctx.Err()
				return map[string]any{}, nil
			}})
		if err != nil {
			t.Fatal(err)
		}
	}})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free)
	c, _, ch := e.openChannel(t)
	if err := c.Send(ctxT(t), &connector.Packet{Type: connector.TypeToolInvoke, RequestID: "r1", ChannelID: ch,
		Payload: []byte(`{"tool_id":"slow","arguments":{},"context":{"tool_call_id":"c1"}}`)}); err != nil {
		t.Fatal(err)
	}
	<-started
	c.CloseNow()
	gauge := func() float64 {
		mfs, _ := e.srv.Registry().Gather()
		for _, mf := range mfs {
			if mf.GetName() == "adb_connector_ws_connections" {
				return mf.GetMetric()[0].GetGauge().GetValue()
			}
		}
		return -1
	}
	deadline := time.Now().Add(10 * time.Second) // failure detector only
	for gauge() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the server did not notice the dropped socket")
		}
		time.Sleep(5 * time.Millisecond)
	}
	free()
	if err := <-done; err != nil {
		t.Fatalf("the call's context ended with its socket: %v", err)
	}
}
