package adb

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// EventType says what happened to a device.
type EventType int

// Event types.
const (
	// Appeared: a device was listed for the first time (or again after Gone).
	Appeared EventType = iota + 1
	// StateChanged: a known device changed state (device, offline,
	// unauthorized, ...) or attributes.
	StateChanged
	// Gone: the adb server no longer lists the device.
	Gone
)

func (t EventType) String() string {
	switch t {
	case Appeared:
		return "appeared"
	case StateChanged:
		return "state_changed"
	case Gone:
		return "gone"
	}
	return "unknown"
}

// Event is one change seen by device tracking.
type Event struct {
	Type   EventType
	Device DeviceInfo // the device as now known (for Gone: as last known)
	// OldState is the previous state for StateChanged.
	OldState State
	// ServerDown is set when the event comes from losing the device's adb
	// server: its devices are then reported StateChanged to offline (not
	// Gone), and re-reported (StateChanged or Gone) once the server answers
	// again.
	ServerDown bool
}

// Backoff bounds for reconnecting to an adb server.
const (
	trackBackoffMin = 50 * time.Millisecond
	trackBackoffMax = 1 * time.Second
	watchBuffer     = 256
	// trackPollInterval is how often the device list is polled besides the
	// track stream.
	trackPollInterval = 500 * time.Millisecond
	trackPollTimeout  = 3 * time.Second
)

// tracker follows host:track-devices-l on every endpoint and fans events out
// to watchers.
type tracker struct {
	c        *Client
	mu       sync.Mutex
	known    map[string]map[string]DeviceInfo // endpoint -> key -> info
	up       map[string]bool                  // endpoint -> its last device list arrived and the stream holds
	watchers map[*watcher]struct{}
}

type watcher struct {
	ch     chan Event
	stop   func() bool
	closed bool
}

func newTracker(c *Client) *tracker {
	return &tracker{c: c, known: map[string]map[string]DeviceInfo{}, up: map[string]bool{}, watchers: map[*watcher]struct{}{}}
}

// Watch returns a channel of device events from every endpoint. It first
// delivers Appeared for each device already known, then changes as they
// happen (within about a second: tracking uses the adb server's push stream,
// and reconnects with backoff of at most 1 s). The channel is closed when
// ctx is done, when the Client is closed, or when the reader falls more than
// 256 events behind (a slow reader is dropped, not waited for).
func (c *Client) Watch(ctx context.Context) <-chan Event {
	return c.tracker.watch(ctx)
}

// Tracked returns the devices as tracking currently knows them, without
// I/O, sorted by key.
func (c *Client) Tracked() []DeviceInfo {
	t := c.tracker
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.knownLocked()
}

// ServersUp reports, for each endpoint, whether tracking currently follows
// its adb server: true from the first device list it sends until the
// stream or a poll fails. An endpoint not yet answered is false. No I/O.
func (c *Client) ServersUp() map[string]bool {
	t := c.tracker
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string]bool, len(c.endpoints))
	for _, ep := range c.endpoints {
		out[ep] = t.up[ep]
	}
	return out
}

// knownLocked lists every endpoint's known devices, sorted by key.
func (t *tracker) knownLocked() []DeviceInfo {
	var out []DeviceInfo
	for _, m := range t.known {
		out = slices.AppendSeq(out, maps.Values(m))
	}
	slices.SortFunc(out, func(a, b DeviceInfo) int { return strings.Compare(a.Key, b.Key) })
	return out
}

func (t *tracker) watch(ctx context.Context) <-chan Event {
	w := &watcher{ch: make(chan Event, watchBuffer)}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.c.isClosed() {
		close(w.ch)
		return w.ch
	}
	t.watchers[w] = struct{}{}
	for _, d := range t.knownLocked() {
		t.sendLocked(w, Event{Type: Appeared, Device: d})
	}
	if w.closed { // too slow for the replay already
		return w.ch
	}
	w.stop = context.AfterFunc(ctx, func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.dropLocked(w)
	})
	return w.ch
}

// dropLocked closes w and unregisters it from its context, so a dropped
// watcher leaves nothing behind on a context that lives on.
func (t *tracker) dropLocked(w *watcher) {
	if w.closed {
		return
	}
	w.closed = true
	if w.stop != nil {
		w.stop()
	}
	delete(t.watchers, w)
	close(w.ch)
}

func (t *tracker) sendLocked(w *watcher, ev Event) {
	if w.closed {
		return
	}
	select {
	case w.ch <- ev:
	default:
		t.c.log.Warn("adb device watcher too slow, dropped")
		t.dropLocked(w)
	}
}

func (t *tracker) closeWatchers() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for w := range t.watchers {
		t.dropLocked(w)
	}
}

func (t *tracker) broadcastLocked(evs []Event) {
	for _, ev := range evs {
		for w := range t.watchers {
			t.sendLocked(w, ev)
		}
	}
}

// apply replaces ep's device list and emits the differences.
func (t *tracker) apply(ep string, list []DeviceInfo) {
	next := make(map[string]DeviceInfo, len(list))
	for _, d := range list {
		next[d.Key] = d
	}
	var evs []Event
	var stale []string
	t.mu.Lock()
	t.up[ep] = true
	prev := t.known[ep]
	for _, k := range slices.Sorted(maps.Keys(next)) {
		d := next[k]
		old, ok := prev[k]
		switch {
		case !ok:
			evs = append(evs, Event{Type: Appeared, Device: d})
		case old != d:
			evs = append(evs, Event{Type: StateChanged, Device: d, OldState: old.State})
			if d.State != StateDevice {
				stale = append(stale, k)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(prev)) {
		if _, ok := next[k]; !ok {
			evs = append(evs, Event{Type: Gone, Device: prev[k]})
			stale = append(stale, k)
		}
	}
	t.known[ep] = next
	t.broadcastLocked(evs)
	t.mu.Unlock()
	for _, k := range stale {
		t.c.forget(k)
	}
	for _, ev := range evs {
		t.c.log.Debug("adb device event", "event", ev.Type.String(), "device", ev.Device.Key, "state", string(ev.Device.State))
	}
}

// serverDown reports every device of ep offline (kept, not Gone).
func (t *tracker) serverDown(ep string) {
	var evs []Event
	t.mu.Lock()
	t.up[ep] = false
	prev := t.known[ep]
	for _, k := range slices.Sorted(maps.Keys(prev)) {
		d := prev[k]
		if d.State == StateOffline {
			continue
		}
		old := d.State
		d.State = StateOffline
		prev[k] = d
		evs = append(evs, Event{Type: StateChanged, Device: d, OldState: old, ServerDown: true})
	}
	t.broadcastLocked(evs)
	t.mu.Unlock()
	for _, ev := range evs {
		t.c.forget(ev.Device.Key)
	}
}

// run follows one endpoint until ctx is done. With StartLocalServer, a
// loopback endpoint that goes down is started again between retries (the
// same backoff), so a local adb server that dies or is killed comes back
// as it would at New.
func (t *tracker) run(ctx context.Context, ep string) {
	backoff := trackBackoffMin
	up := true // assume up until the first failure, so that is logged
	start := t.c.cfg.StartLocalServer && t.c.startable(ep)
	startFailed := false // a failed start was logged at Warn this outage
	for ctx.Err() == nil {
		got, err := t.follow(ctx, ep)
		if ctx.Err() != nil {
			return
		}
		if got {
			backoff = trackBackoffMin
			up = true
		}
		if up {
			if start {
				t.c.log.Warn("adb server at "+ep+" is down; starting it", "endpoint", ep, "err", err)
			} else {
				t.c.log.Warn("adb server unreachable, retrying", "endpoint", ep, "err", err)
			}
			up, startFailed = false, false
		}
		t.serverDown(ep)
		timer := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
		backoff = min(backoff*2, trackBackoffMax)
		if start {
			// ensureLocalServer leaves a server that answers alone and logs
			// at Info when it started one; the next follow re-reports.
			if err := t.c.ensureLocalServer(ctx, ep); err != nil && ctx.Err() == nil {
				if !startFailed {
					t.c.log.Warn("cannot start adb server, retrying", "endpoint", ep, "err", err)
					startFailed = true
				} else {
					t.c.log.Debug("cannot start adb server, retrying", "endpoint", ep, "err", err)
				}
			}
		}
	}
}

// follow reads one track-devices-l stream; got reports whether at least one
// list arrived. Debian's adb 29 does not push every change on the stream (a
// TCP device turning unauthorized is not sent), so the list is also polled
// with host:devices-l every trackPollInterval; both feed apply in the order
// received, which keeps the newest answer last.
func (t *tracker) follow(ctx context.Context, ep string) (got bool, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	hc, err := t.c.dialHost(ctx, ep)
	if err != nil {
		return false, err
	}
	defer hc.Close()
	// A server that accepts but does not answer is down: the handshake has
	// the poll's deadline (afterwards the poll detects a hung server).
	_ = hc.nc.SetDeadline(time.Now().Add(trackPollTimeout))
	if err := hc.request("host:track-devices-l"); err != nil {
		return false, err
	}
	_ = hc.nc.SetDeadline(time.Time{})
	type msg struct {
		payload string
		err     error
	}
	msgs := make(chan msg, 1)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		hc.Close()
		wg.Wait()
	}()
	wg.Go(func() {
		for {
			s, err := hc.readHex()
			select {
			case msgs <- msg{s, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	})
	poll := time.NewTicker(trackPollInterval)
	defer poll.Stop()
	for {
		var payload string
		select {
		case <-ctx.Done():
			return got, ctx.Err()
		case m := <-msgs:
			if m.err != nil {
				return got, m.err
			}
			payload = m.payload
		case <-poll.C:
			// A poll that does not answer in time also detects a hung server
			// behind a quiet track stream.
			pctx, pcancel := context.WithTimeout(ctx, trackPollTimeout)
			s, err := t.c.hostQuery(pctx, ep, "host:devices-l")
			pcancel()
			if err != nil {
				return got, err
			}
			payload = s
		}
		list, err := parseDeviceList(ep, payload)
		if err != nil {
			return got, err
		}
		if !got {
			t.c.log.Info("adb server tracked", "endpoint", ep)
		}
		got = true
		t.apply(ep, list)
		t.c.reattach(ctx, ep, list)
	}
}
