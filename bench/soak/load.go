package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/connector/xagenttest"
	"github.com/adb-connector/adb-connector/device/card"
)

// callTimeout bounds every request the soak sends: far above any healthy
// answer (the slowest call is a queue of long presses), so a call that
// hits it is a finding (client_timeout).
const callTimeout = 60 * time.Second

// A point on the launcher's wallpaper: taps and long presses there change
// nothing, so every call meets the same screen.
const tapX, tapY = 700, 1260

// dial opens an xAgent-like socket (schema validation on: a violation
// under load is a finding) and says hello with connectorID ("" for a new
// one); it returns the client and its connector_id.
func (s *soak) dial(ctx context.Context, connectorID string) (*xagenttest.Client, string, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	c, _, err := xagenttest.Dial(ctx, s.srv.URL, xagenttest.Options{APIKey: s.srv.APIKey})
	if err != nil {
		return nil, "", err
	}
	id, err := c.Hello(ctx, card.CardID, connectorID)
	if err != nil {
		c.Close()
		return nil, "", err
	}
	s.mu.Lock()
	s.clients = append(s.clients, c)
	s.mu.Unlock()
	s.board.consume(c, s.tally)
	return c, id, nil
}

// chanRef is one channel of one socket.
type chanRef struct {
	c  *xagenttest.Client
	ch string
}

// openLoadSockets opens the load sockets and their channels.
func (s *soak) openLoadSockets(ctx context.Context) ([]chanRef, error) {
	var chans []chanRef
	for range s.cfg.Sockets {
		c, _, err := s.dial(ctx, "")
		if err != nil {
			return nil, fmt.Errorf("load socket: %w", err)
		}
		for range s.cfg.ChansPerSocket {
			ch, _, err := c.OpenChannel(ctx, "")
			if err != nil {
				return nil, fmt.Errorf("load channel: %w", err)
			}
			chans = append(chans, chanRef{c, ch})
		}
	}
	return chans, nil
}

// invoke sends one tool.invoke with tool_call_id id (fresh when empty) and
// waits for its answer even when ctx, the run, ends: the counts stay whole
// and the sockets close with no call in flight (a socket that closes
// cancels its calls).
func (s *soak) invoke(ctx context.Context, r chanRef, tool string, args any, id string) (*connector.Packet, error) {
	if id == "" {
		id = s.callID()
	}
	ctx, cancel := reqCtx(ctx)
	defer cancel()
	return r.c.Request(ctx, connector.TypeToolInvoke, r.ch, map[string]any{
		"tool_id": tool, "arguments": args, "context": map[string]string{"tool_call_id": id}})
}

// reqCtx bounds one request by callTimeout but not by the run: see invoke.
func reqCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), callTimeout)
}

func (s *soak) callID() string { return "soak_" + strconv.FormatUint(s.seq.Add(1), 10) }

// bind pairs ch with serial through the admin socket and waits until the
// channel is "connected".
func (s *soak) bind(ctx context.Context, r chanRef, serial string) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	since := time.Now()
	p, err := s.srv.Pair(ctx, r.c, r.ch, serial)
	if err != nil {
		return fmt.Errorf("pair %s: %w", serial, err)
	}
	var ack struct {
		Status string `json:"status"`
	}
	if p.Error != nil || json.Unmarshal(p.Payload, &ack) != nil || ack.Status != "authenticated" {
		return fmt.Errorf("pair %s: %s %+v", serial, p.Payload, p.Error)
	}
	s.board.setFrom(p)
	if err := s.board.wait(ctx, r.ch, "connected", since); err != nil {
		return fmt.Errorf("pair %s: not connected: %w", serial, err)
	}
	return nil
}

// steady drives one phone: tool calls at cfg.Rate on its current channel,
// and every cfg.RebindEvery a move to the next of its channels. It binds
// the first channel before it returns.
type steady struct {
	s      *soak
	serial string
	chans  []chanRef // the load channels this phone may be bound to
	cur    atomic.Int32
}

func (w *steady) current() chanRef { return w.chans[w.cur.Load()] }

func (w *steady) run(ctx context.Context) {
	defer w.s.wg.Done()
	tick := time.NewTicker(time.Duration(float64(time.Second) / w.s.cfg.Rate))
	defer tick.Stop()
	rebind := time.NewTicker(w.s.cfg.RebindEvery)
	defer rebind.Stop()
	var calls sync.WaitGroup
	var outstanding atomic.Int32
	defer calls.Wait()
	for {
		select {
		case <-ctx.Done():
			return
		case <-rebind.C:
			if len(w.chans) > 1 {
				calls.Wait()
				w.rebind(ctx)
			}
		case <-tick.C:
			// An open loop, but bounded: a phone that stops answering
			// does not pile up calls (the ones skipped are not counted).
			if outstanding.Load() >= 4 {
				continue
			}
			outstanding.Add(1)
			calls.Add(1)
			go func() {
				defer calls.Done()
				defer outstanding.Add(-1)
				w.call(ctx)
			}()
		}
	}
}

// call runs one call of the mix: status 30 %, screenshot + download 30 %,
// tap 25 %, long press 15 %.
func (w *steady) call(ctx context.Context) {
	r := w.current()
	var tool string
	var args map[string]any
	switch n := rand.IntN(100); {
	case n < 30:
		tool, args = "android_device_status", map[string]any{}
	case n < 60:
		tool, args = "android_screenshot", map[string]any{}
		if n < 45 {
			args = map[string]any{"max_side": 360, "format": "jpeg"}
		}
	case n < 85:
		tool, args = "android_tap", map[string]any{"x": tapX, "y": tapY}
	default:
		tool, args = "android_tap", map[string]any{"x": tapX, "y": tapY, "duration_ms": 700}
	}
	start := time.Now()
	p, err := w.s.invoke(ctx, r, tool, args, "")
	w.s.tally.addPacket(w.s.faults.label("steady", start), p, err)
	if err != nil || p.Error != nil || tool != "android_screenshot" {
		return
	}
	var res struct {
		Result struct {
			URL  string `json:"download_url"`
			Size int64  `json:"byte_size"`
		} `json:"result"`
	}
	if err := json.Unmarshal(p.Payload, &res); err != nil {
		w.s.tally.addMsg("download", outOtherError, err.Error())
		return
	}
	dctx, cancel := reqCtx(ctx)
	defer cancel()
	o, msg := classify(&connector.Packet{}, w.s.srv.Download(dctx, res.Result.URL, res.Result.Size))
	w.s.tally.addMsg("download", o, msg)
}

// rebind moves the phone to its next channel: auth.logout on the current
// one, then pair the next (never while an adb server kill is under way:
// pairing asks the adb server for the phone). Once begun it completes
// even if the run ends meanwhile.
func (w *steady) rebind(ctx context.Context) {
	if !w.s.faults.mu.TryRLock() {
		return // a kill is under way; next time
	}
	defer w.s.faults.mu.RUnlock()
	ctx = context.WithoutCancel(ctx)
	old := w.current()
	next := (w.cur.Load() + 1) % int32(len(w.chans))
	lctx, cancel := reqCtx(ctx)
	p, err := old.c.Request(lctx, connector.TypeAuthLogout, old.ch, nil)
	cancel()
	if err != nil || p.Error != nil {
		w.s.tally.addPacket("rebind", p, err)
		return
	}
	if err := w.s.bind(ctx, w.chans[next], w.serial); err != nil {
		w.s.tally.addMsg("rebind", outOtherError, err.Error())
		// Stay on the old channel: bind it again for the next calls.
		if err := w.s.bind(ctx, old, w.serial); err != nil {
			w.s.tally.addMsg("rebind", outOtherError, "rebinding the old channel: "+err.Error())
		}
		return
	}
	w.cur.Store(next)
	w.s.tally.add("rebind", outOK)
}

// probe calls android_device_status on each of chans every
// cfg.ProbeEvery, whether the channel is bound or not.
func (s *soak) probe(ctx context.Context, chans []chanRef) {
	defer s.wg.Done()
	// Spread the channels over the interval.
	step := s.cfg.ProbeEvery / time.Duration(max(len(chans), 1))
	tick := time.NewTicker(step)
	defer tick.Stop()
	var calls sync.WaitGroup
	defer calls.Wait()
	for i := 0; ; i = (i + 1) % len(chans) {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		r := chans[i]
		calls.Add(1)
		go func() {
			defer calls.Done()
			start := time.Now()
			p, err := s.invoke(ctx, r, "android_device_status", map[string]any{}, "")
			s.tally.addPacket(s.faults.label("probe", start), p, err)
		}()
	}
}
