package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/connector/xagenttest"
)

// every runs f every d until ctx ends (the first time after d).
func (s *soak) every(ctx context.Context, d time.Duration, f func(context.Context)) {
	defer s.wg.Done()
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f(ctx)
		}
	}
}

// burstInflight sends cfg.BurstInflight long presses at once on r, a
// channel bound to a phone of its own: 16 may be in flight on a channel,
// the rest are answered rate_limited at once (and the 120 a minute bucket
// refuses some more once bursts have drained it).
func (s *soak) burstInflight(ctx context.Context, r chanRef) {
	if !s.faults.mu.TryRLock() {
		return // an adb server kill is under way
	}
	defer s.faults.mu.RUnlock()
	var wg sync.WaitGroup
	for range s.cfg.BurstInflight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := s.invoke(ctx, r, "android_tap", map[string]any{"x": tapX, "y": tapY, "duration_ms": 600}, "")
			s.tally.addPacket("burst_inflight", p, err)
		}()
	}
	wg.Wait()
}

// burstUnbound sends cfg.BurstUnbound status calls at once on r, an
// unbound channel: answered connection_not_authenticated at once until the
// channel's 120 a minute are spent, then rate_limited (over 16 at once,
// rate_limited as well).
func (s *soak) burstUnbound(ctx context.Context, r chanRef) {
	var wg sync.WaitGroup
	for range s.cfg.BurstUnbound {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := s.invoke(ctx, r, "android_device_status", map[string]any{}, "")
			s.tally.addPacket("burst_unbound", p, err)
		}()
	}
	wg.Wait()
}

// oversized sends, on r's socket, ids over the 256-byte bound and broken
// JSON, each answered invalid_packet with the socket left open; then on a
// socket of its own a frame over 1 MiB, which closes it with 1009.
func (s *soak) oversized(ctx context.Context, r chanRef) {
	ctx, cancel := reqCtx(ctx)
	defer cancel()
	long := strings.Repeat("x", connector.MaxIDBytes+44)
	for _, id := range []string{long, strings.Repeat("y", 900<<10)} {
		p, err := r.c.Request(ctx, connector.TypeToolInvoke, r.ch, map[string]any{
			"tool_id": "android_device_status", "arguments": map[string]any{}, "context": map[string]string{"tool_call_id": id}})
		s.tally.addPacket("oversized_id", p, err)
	}
	// An oversized request_id is never echoed: the error answers no
	// request and is counted as stray_error by the socket's consumer.
	// So is broken JSON.
	for _, raw := range []string{
		`{"schema":"` + connector.PacketSchema + `","packet_id":"p_long","request_id":"` + long + `","type":"ping"}`,
		`{"schema":"` + connector.PacketSchema + `","packet_id":"p_broken","type":"ping"`,
	} {
		if err := r.c.SendRaw(ctx, websocket.MessageText, []byte(raw)); err != nil {
			s.tally.addMsg("oversized_id", outOtherError, err.Error())
		}
	}

	c, _, err := s.dial(ctx, "")
	if err != nil {
		s.tally.addMsg("oversized_frame", outOtherError, err.Error())
		return
	}
	defer c.CloseNow()
	big := `{"schema":"` + connector.PacketSchema + `","packet_id":"p_big","request_id":"r_big","type":"ping","payload":{"pad":"` +
		strings.Repeat("z", connector.MaxPacketBytes) + `"}}`
	if err := c.SendRaw(ctx, websocket.MessageText, []byte(big)); err != nil {
		s.tally.addMsg("oversized_frame", outOtherError, err.Error())
		return
	}
	select {
	case <-c.Done():
		if st := c.CloseStatus(); st == websocket.StatusMessageTooBig {
			s.tally.add("oversized_frame", outClosed1009)
		} else {
			s.tally.addMsg("oversized_frame", fmt.Sprintf("closed_%d", st), "closed with another status")
		}
	case <-ctx.Done():
		s.tally.addMsg("oversized_frame", outClientTimeout, "socket still open")
	}
}

// idleHold is how long idleHTTP keeps its connections: past the server's
// 10 s header timeout, so the silent ones must have been closed by then.
const idleHold = 12 * time.Second

// idleHTTP opens cfg.IdleConns TCP connections and abandons them: a third
// send nothing, a third half a request header, a third one keep-alive
// request for the public Card and then nothing. They are held for hold
// (the server closes the silent ones after its header timeout, and evicts
// idle ones at its per-address cap) and then closed.
func (s *soak) idleHTTP(ctx context.Context, hold time.Duration) {
	addr := strings.TrimPrefix(s.srv.URL, "http://")
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	for i := range s.cfg.IdleConns {
		c, err := net.DialTimeout("tcp", addr, 10*time.Second)
		if err != nil {
			s.tally.addMsg("idle_http", outOtherError, err.Error())
			continue
		}
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			br := bufio.NewReader(c)
			switch i % 3 {
			case 1:
				io.WriteString(c, "GET /health HTTP/1.1\r\nHost: soak\r\n")
			case 2:
				io.WriteString(c, "GET /connector-card.json HTTP/1.1\r\nHost: soak\r\n\r\n")
				if resp, err := http.ReadResponse(br, nil); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
			// Whatever comes next is the server closing it (or our own
			// close at the end of hold).
			c.SetReadDeadline(time.Now().Add(hold))
			if _, err := br.ReadByte(); err != nil {
				if ne, ok := err.(net.Error); ok && ne.Timeout() {
					s.tally.add("idle_http", outLeftOpen)
				} else {
					s.tally.add("idle_http", outServerClosed)
				}
				return
			}
			s.tally.addMsg("idle_http", outOtherError, "the server sent bytes unasked")
		}()
	}
	wg.Wait()
	for _, c := range conns {
		c.Close()
	}
}

// dropper binds the drop phone on a socket of its own, then every
// cfg.DropEvery: sends a one-second long press, drops the socket 300 ms
// into it without a close frame, reconnects with the same connector_id,
// restores the channel and sends the dropped tool_call_id again, which
// must be answered with the first call's result (not run twice).
type dropper struct {
	s           *soak
	serial      string
	connectorID string
	r           chanRef
	pending     string // tool_call_id of the dropped call
}

var longPress = map[string]any{"x": tapX, "y": tapY, "duration_ms": 1000}

func (d *dropper) connect(ctx context.Context) error {
	c, id, err := d.s.dial(ctx, d.connectorID)
	if err != nil {
		return err
	}
	d.connectorID = id
	if d.r.ch == "" {
		ch, _, err := c.OpenChannel(ctx, "")
		if err != nil {
			return err
		}
		d.r = chanRef{c, ch}
		return d.s.bind(ctx, d.r, d.serial)
	}
	octx, cancel := reqCtx(ctx)
	defer cancel()
	p, err := c.Request(octx, connector.TypeChannelOpen, d.r.ch, map[string]any{})
	d.r.c = c
	d.s.tally.addPacket("drop_restore", p, err)
	d.s.board.setFrom(p)
	if d.pending != "" {
		p, err := d.s.invoke(ctx, d.r, "android_tap", longPress, d.pending)
		d.s.tally.addPacket("drop_replay", p, err)
		d.pending = ""
	}
	return nil
}

func (d *dropper) run(ctx context.Context) {
	defer d.s.wg.Done()
	defer func() {
		if d.r.c != nil {
			d.r.c.Close()
		}
	}()
	if err := d.connect(ctx); err != nil {
		d.s.tally.addMsg("drop_restore", outOtherError, "first connect: "+err.Error())
		return
	}
	t := time.NewTicker(d.s.cfg.DropEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := d.dropOnce(ctx); err != nil {
			if ctx.Err() == nil {
				d.s.tally.addMsg("drop_restore", outOtherError, err.Error())
			}
			return
		}
	}
}

// dropOnce drops the socket mid-call and reconnects at once (before the
// lease grace runs out), never while an adb server kill is under way.
func (d *dropper) dropOnce(ctx context.Context) error {
	d.s.faults.mu.RLock()
	defer d.s.faults.mu.RUnlock()
	id := d.s.callID()
	done := make(chan error, 1)
	go func() {
		p, err := d.s.invoke(ctx, d.r, "android_tap", longPress, id)
		if err == nil && p.Error == nil {
			err = fmt.Errorf("answered before the drop")
		}
		done <- err
	}()
	time.Sleep(300 * time.Millisecond) // let the call reach the phone (it lasts 1 s)
	d.r.c.CloseNow()
	if err := <-done; errors.Is(err, xagenttest.ErrClosed) {
		d.s.tally.add("drop", outDropped)
	} else {
		d.s.tally.addMsg("drop", outOtherError, err.Error())
	}
	d.pending = id
	return d.connect(ctx)
}

// bindFlood opens the flood socket: a channel bound to the burst phone, an
// unbound one for the unbound bursts, and one for oversized ids.
func (s *soak) bindFlood(ctx context.Context, serial string) (bound, unbound, garbage chanRef, err error) {
	c, _, err := s.dial(ctx, "")
	if err != nil {
		return
	}
	var refs [3]chanRef
	for i := range refs {
		ch, _, err := c.OpenChannel(ctx, "")
		if err != nil {
			return bound, unbound, garbage, err
		}
		refs[i] = chanRef{c, ch}
	}
	if err = s.bind(ctx, refs[0], serial); err != nil {
		return
	}
	return refs[0], refs[1], refs[2], nil
}
