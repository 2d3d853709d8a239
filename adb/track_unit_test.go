package adb

import (
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// unitClient is a Client with no endpoints running, for tracker unit tests.
func unitClient(t *testing.T) *Client {
	t.Helper()
	c := &Client{log: slog.New(slog.NewTextHandler(io.Discard, nil)), devices: map[string]*Device{}}
	c.tracker = newTracker(c)
	return c
}

func dev(serial string, st State) DeviceInfo {
	return DeviceInfo{Key: DeviceKey(ep, serial), Endpoint: ep, Serial: serial, State: st}
}

type evSummary struct {
	Type       string
	Serial     string
	State      State
	Old        State
	ServerDown bool
}

func drain(ch <-chan Event) []evSummary {
	var out []evSummary
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return out
			}
			out = append(out, evSummary{ev.Type.String(), ev.Device.Serial, ev.Device.State, ev.OldState, ev.ServerDown})
		default:
			return out
		}
	}
}

func TestTrackerApply(t *testing.T) {
	c := unitClient(t)
	tr := c.tracker
	ch := c.Watch(t.Context())
	steps := []struct {
		name string
		do   func()
		want []evSummary
	}{
		{"appear", func() { tr.apply(ep, []DeviceInfo{dev("A", StateOffline), dev("B", StateDevice)}) },
			[]evSummary{{"appeared", "A", StateOffline, "", false}, {"appeared", "B", StateDevice, "", false}}},
		{"same list, no events", func() { tr.apply(ep, []DeviceInfo{dev("A", StateOffline), dev("B", StateDevice)}) }, nil},
		{"state change", func() { tr.apply(ep, []DeviceInfo{dev("A", StateDevice), dev("B", StateUnauthorized)}) },
			[]evSummary{{"state_changed", "A", StateDevice, StateOffline, false}, {"state_changed", "B", StateUnauthorized, StateDevice, false}}},
		{"server down keeps devices, offline", func() { tr.serverDown(ep) },
			[]evSummary{{"state_changed", "A", StateOffline, StateDevice, true}, {"state_changed", "B", StateOffline, StateUnauthorized, true}}},
		{"server down again: nothing new", func() { tr.serverDown(ep) }, nil},
		{"server back with one device", func() { tr.apply(ep, []DeviceInfo{dev("A", StateDevice)}) },
			[]evSummary{{"state_changed", "A", StateDevice, StateOffline, false}, {"gone", "B", StateOffline, "", false}}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			s.do()
			if diff := cmp.Diff(s.want, drain(ch)); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
	if got := c.Tracked(); len(got) != 1 || got[0].Serial != "A" {
		t.Errorf("Tracked = %+v", got)
	}
}

func TestSlowWatcherDropped(t *testing.T) {
	c := unitClient(t)
	ch := c.Watch(t.Context())
	for i := range watchBuffer + 1 {
		st := StateDevice
		if i%2 == 1 {
			st = StateOffline
		}
		c.tracker.apply(ep, []DeviceInfo{dev("A", st)})
	}
	n := 0
	for range ch {
		n++
	}
	if n != watchBuffer {
		t.Errorf("got %d events before close, want %d", n, watchBuffer)
	}
}

func TestNormalizeEndpoint(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"", DefaultEndpoint, true},
		{"10.0.0.2", "10.0.0.2:5037", true},
		{"10.0.0.2:5038", "10.0.0.2:5038", true},
		{":5039", "127.0.0.1:5039", true},
		{"[::1]:5037", "[::1]:5037", true},
		{"host:0", "", false},
		{"host:abc", "", false},
		{"a/b:5037", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := normalizeEndpoint(tt.in)
			if (err == nil) != tt.ok || got != tt.want {
				t.Errorf("normalizeEndpoint(%q) = %q, %v", tt.in, got, err)
			}
		})
	}
}

// afterFuncCtx is a context that never ends and counts the
// context.AfterFunc registrations made on it that were not stopped.
type afterFuncCtx struct {
	done chan struct{}
	live atomic.Int32
}

func newAfterFuncCtx() *afterFuncCtx { return &afterFuncCtx{done: make(chan struct{})} }

func (c *afterFuncCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *afterFuncCtx) Done() <-chan struct{}       { return c.done }
func (c *afterFuncCtx) Err() error                  { return nil }
func (c *afterFuncCtx) Value(any) any               { return nil }

// AfterFunc makes context.AfterFunc register here (its afterFuncer hook).
func (c *afterFuncCtx) AfterFunc(func()) func() bool {
	c.live.Add(1)
	var once sync.Once
	return func() bool {
		stopped := false
		once.Do(func() { c.live.Add(-1); stopped = true })
		return stopped
	}
}

// A watcher dropped for being slow must not stay registered on the
// caller's context: a long-lived context that Watch is called on again and
// again would otherwise keep every dropped watcher.
func TestSlowWatcherReleasesContext(t *testing.T) {
	t.Run("dropped while running", func(t *testing.T) {
		c := unitClient(t)
		ctx := newAfterFuncCtx()
		ch := c.Watch(ctx)
		for i := range watchBuffer + 1 {
			st := StateDevice
			if i%2 == 1 {
				st = StateOffline
			}
			c.tracker.apply(ep, []DeviceInfo{dev("A", st)})
		}
		for range ch {
		}
		if n := ctx.live.Load(); n != 0 {
			t.Errorf("%d AfterFunc registrations left on the context after the drop", n)
		}
	})
	t.Run("dropped while replaying known devices", func(t *testing.T) {
		c := unitClient(t)
		list := make([]DeviceInfo, watchBuffer+1)
		for i := range list {
			list[i] = dev(fmt.Sprintf("S%03d", i), StateDevice)
		}
		c.tracker.apply(ep, list)
		ctx := newAfterFuncCtx()
		ch := c.Watch(ctx)
		for range ch {
		}
		if n := ctx.live.Load(); n != 0 {
			t.Errorf("%d AfterFunc registrations left on the context after the drop", n)
		}
	})
}
