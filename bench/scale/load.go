package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/adb-connector/adb-connector/bench/internal/benchtb"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/connector/xagenttest"
	"github.com/adb-connector/adb-connector/device/card"
)

// callTimeout bounds every request: far above any healthy answer, so a
// call that hits it is a finding (client_timeout).
const callTimeout = 60 * time.Second

// Outcomes on the client's side, beside the protocol's error codes.
const (
	outClientTimeout = "client_timeout" // no answer within callTimeout
	outSocketClosed  = "socket_closed"  // the socket went away before the answer
	outClientError   = "client_error"
)

// A point on the launcher's wallpaper (the scenario's screen is 720 x 1280):
// taps there change nothing, so the mix keeps meeting the same screen, as
// does pressing home and swiping on the home screen.
const tapX, tapY = 700, 1260

// step is one kind of call in the mix, with its share (weight out of the
// mix's total) and whether its result holds a screenshot the agent then
// downloads, as an agent that looks at the screen does.
type step struct {
	tool     string
	weight   int
	args     func() map[string]any
	download func(result json.RawMessage) (url string, size int64, ok bool)
}

// mix is what an agent does, in proportions close to an agent's loop:
// look (observe, screenshot, UI elements), act (tap, swipe, key), check
// the phone now and then.
var mix = []step{
	{"android_observe", 20, func() map[string]any { return map[string]any{} }, observeShot},
	{"android_screenshot", 15, func() map[string]any {
		if rand.IntN(2) == 0 {
			return map[string]any{}
		}
		return map[string]any{"format": "jpeg", "max_side": 640}
	}, screenshotShot},
	{"android_ui_elements", 15, func() map[string]any { return map[string]any{} }, nil},
	{"android_tap", 20, func() map[string]any { return map[string]any{"x": tapX, "y": tapY} }, nil},
	{"android_swipe", 10, func() map[string]any {
		return map[string]any{"from": []int{360, 900}, "to": []int{360, 400}, "duration_ms": 200}
	}, nil},
	{"android_press_key", 10, func() map[string]any { return map[string]any{"key": "home"} }, nil},
	{"android_device_status", 10, func() map[string]any { return map[string]any{} }, nil},
}

// pick draws a step of the mix by weight.
func pick() step {
	total := 0
	for _, s := range mix {
		total += s.weight
	}
	n := rand.IntN(total)
	for _, s := range mix {
		if n < s.weight {
			return s
		}
		n -= s.weight
	}
	return mix[len(mix)-1]
}

type fileResult struct {
	URL  string `json:"download_url"`
	Size int64  `json:"byte_size"`
}

func screenshotShot(res json.RawMessage) (string, int64, bool) {
	var f fileResult
	if json.Unmarshal(res, &f) != nil || f.URL == "" {
		return "", 0, false
	}
	return f.URL, f.Size, true
}

func observeShot(res json.RawMessage) (string, int64, bool) {
	var o struct {
		Screenshot fileResult `json:"screenshot"`
	}
	if json.Unmarshal(res, &o) != nil || o.Screenshot.URL == "" {
		return "", 0, false
	}
	return o.Screenshot.URL, o.Screenshot.Size, true
}

// agent is one channel bound to one phone.
type agent struct {
	c      *xagenttest.Client
	ch     string
	serial string
	path   string // pathDirect or pathSSH
}

// The paths from serve to a phone's adb server.
const (
	pathDirect = "direct"
	pathSSH    = "ssh"
)

// dial opens n xAgent-like sockets (schema validation off: the bench
// measures the server, not the client's validator) and says hello on each.
func dial(ctx context.Context, srv *benchtb.Serve, n int) ([]*xagenttest.Client, error) {
	var out []*xagenttest.Client
	for range n {
		dctx, cancel := context.WithTimeout(ctx, callTimeout)
		c, _, err := xagenttest.Dial(dctx, srv.URL, xagenttest.Options{APIKey: srv.APIKey, SkipValidation: true})
		if err == nil {
			if _, err = c.Hello(dctx, card.CardID, ""); err != nil {
				c.Close()
			}
		}
		cancel()
		if err != nil {
			for _, c := range out {
				c.Close()
			}
			return nil, fmt.Errorf("socket: %w", err)
		}
		out = append(out, c)
	}
	return out, nil
}

// bind opens a channel on c and pairs it with serial through the admin
// socket, then waits for "connected". Binds run one after another: the
// wait reads c's Descriptor pushes, and another bind's would be consumed.
func bind(ctx context.Context, srv *benchtb.Serve, c *xagenttest.Client, serial string) (*agent, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	ch, _, err := c.OpenChannel(ctx, "")
	if err != nil {
		return nil, err
	}
	if err := srv.PairConnected(ctx, c, ch, serial); err != nil {
		return nil, fmt.Errorf("pair %s: %w", serial, err)
	}
	return &agent{c: c, ch: ch, serial: serial}, nil
}

// load drives the agents, each in a closed loop (the next call once the
// last is answered, after think), until ctx ends; calls under way then are
// answered before it returns. It returns when the last answer came.
type load struct {
	srv    *benchtb.Serve
	rec    *recorder
	byPath map[string]*recorder // the same calls by the agent's path
	think  time.Duration
}

// callSeq numbers the tool_call_ids of every load of the run: an id used
// again (with other arguments) would be refused as a replay.
var callSeq atomic.Uint64

func newLoad(srv *benchtb.Serve, think time.Duration) *load {
	return &load{srv: srv, rec: newRecorder(), think: think,
		byPath: map[string]*recorder{pathDirect: newRecorder(), pathSSH: newRecorder()}}
}

// add records a call in the totals and in its agent's path.
func (l *load) add(a *agent, op, outcome string, d time.Duration) {
	l.rec.add(op, outcome, d)
	if r := l.byPath[a.path]; r != nil {
		r.add(op, outcome, d)
	}
}

func (l *load) run(ctx context.Context, agents []*agent) time.Time {
	var wg sync.WaitGroup
	for _, a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				l.call(ctx, a)
				if l.think > 0 {
					select {
					case <-ctx.Done():
					case <-time.After(l.think):
					}
				}
			}
		}()
	}
	wg.Wait()
	return time.Now()
}

// call runs one step of the mix on a, and the download its result asks
// for. A call started is answered even if ctx ends meanwhile (bounded by
// callTimeout): the counts stay whole and the sockets close idle.
func (l *load) call(ctx context.Context, a *agent) {
	s := pick()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), callTimeout)
	defer cancel()
	start := time.Now()
	p, err := a.c.Request(rctx, connector.TypeToolInvoke, a.ch, map[string]any{
		"tool_id": s.tool, "arguments": s.args(),
		"context": map[string]string{"tool_call_id": "scale_" + strconv.FormatUint(callSeq.Add(1), 10)}})
	l.add(a, s.tool, classify(p, err), time.Since(start))
	if err != nil || p.Error != nil || s.download == nil {
		return
	}
	var ack struct {
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(p.Payload, &ack) != nil {
		l.add(a, "download", outClientError, 0)
		return
	}
	url, size, ok := s.download(ack.Result)
	if !ok {
		l.add(a, "download", outClientError, 0)
		return
	}
	start = time.Now()
	err = l.srv.Download(rctx, url, size)
	l.add(a, "download", classify(nil, err), time.Since(start))
}

// classify names the outcome of a request: ok, its error code, or what
// went wrong on the client's side.
func classify(p *connector.Packet, err error) string {
	var de *benchtb.DownloadError
	switch {
	case errors.Is(err, xagenttest.ErrClosed):
		return outSocketClosed
	case errors.As(err, &de):
		return "http_" + strconv.Itoa(de.Status)
	case errors.Is(err, context.DeadlineExceeded) || err != nil && strings.Contains(err.Error(), "deadline exceeded"):
		return outClientTimeout
	case err != nil:
		return outClientError
	case p != nil && p.Error != nil:
		return p.Error.Code
	}
	return outOK
}
