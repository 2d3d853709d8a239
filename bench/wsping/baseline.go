package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/coder/websocket"

	"github.com/adb-connector/adb-connector/connector"
)

// startBaseline runs the floor any /ws server with the same WebSocket
// library pays: accept with the subprotocol, then per message decode the
// envelope and answer a pong, on one goroutine, with no hello, no
// validation, no dispatch table and no writer queue. The connector's figures
// are reported as ratios against it, measured in the same run, so machine
// load cancels out.
func startBaseline() (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{connector.Subprotocol}})
		if err != nil {
			return
		}
		defer c.CloseNow()
		ctx := r.Context()
		for {
			_, b, err := c.Read(ctx)
			if err != nil {
				return
			}
			var in struct {
				PacketID  string `json:"packet_id"`
				RequestID string `json:"request_id"`
			}
			if json.Unmarshal(b, &in) != nil {
				return
			}
			out, _ := json.Marshal(map[string]any{
				"schema": connector.PacketSchema, "packet_id": "b" + in.PacketID, "request_id": in.RequestID,
				"reply_to": in.PacketID, "type": connector.TypePong, "time": time.Now().UnixMilli(),
			})
			if err := c.Write(ctx, websocket.MessageText, out); err != nil {
				return
			}
		}
	})}
	go hs.Serve(ln)
	return ln.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(ctx)
	}, nil
}

// ratio is ours/baseline rounded to two decimals (0 when undefined).
func ratio(ours, base float64) float64 {
	if base == 0 {
		return 0
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(ours/base, 'f', 2, 64), 64)
	return r
}
