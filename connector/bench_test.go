package connector_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/coder/websocket"

	"github.com/adb-connector/adb-connector/connector"
)

// BenchmarkPingPong pipelines b.N pings on one socket against the real
// server on loopback (one writer, one reader) and reports round trips/s.
func BenchmarkPingPong(b *testing.B) {
	e := newEnv(b, envOpts{})
	ctx := context.Background()
	c, _, err := websocket.Dial(ctx, "ws"+e.url[len("http"):]+"/ws", &websocket.DialOptions{Subprotocols: []string{connector.Subprotocol}})
	if err != nil {
		b.Fatal(err)
	}
	defer c.CloseNow()
	frames := make([][]byte, 1024)
	for i := range frames {
		frames[i] = []byte(`{"schema":"xagent.connector.packet/v1","packet_id":"p` + strconv.Itoa(i) + `","request_id":"r` + strconv.Itoa(i) + `","type":"ping"}`)
	}
	b.ReportAllocs()
	b.ResetTimer()
	werr := make(chan error, 1)
	go func() {
		for i := 0; i < b.N; i++ {
			if err := c.Write(ctx, websocket.MessageText, frames[i%len(frames)]); err != nil {
				werr <- err
				return
			}
		}
		werr <- nil
	}()
	for i := 0; i < b.N; i++ {
		if _, _, err := c.Read(ctx); err != nil {
			b.Fatal(err)
		}
	}
	if err := <-werr; err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
	c.Close(websocket.StatusNormalClosure, "")
}
