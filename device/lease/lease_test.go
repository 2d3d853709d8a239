package lease

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/internal/testkit"
)

func TestLeaseEnd(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		last       time.Duration // after t0
		p          Policy
		wantAt     time.Duration // after t0
		wantReason string
		wantOK     bool
	}{
		{"unbounded", 0, Policy{}, 0, "", false},
		{"idle from start", 0, Policy{IdleTimeout: 10 * time.Minute}, 10 * time.Minute, ReasonIdle, true},
		{"idle from the last call", 7 * time.Minute, Policy{IdleTimeout: 10 * time.Minute}, 17 * time.Minute, ReasonIdle, true},
		{"max only", 50 * time.Minute, Policy{MaxDuration: time.Hour}, time.Hour, ReasonMaxDuration, true},
		{"idle first", 0, Policy{IdleTimeout: 10 * time.Minute, MaxDuration: time.Hour}, 10 * time.Minute, ReasonIdle, true},
		{"busy: max first", 55 * time.Minute, Policy{IdleTimeout: 10 * time.Minute, MaxDuration: time.Hour}, time.Hour, ReasonMaxDuration, true},
		{"tie goes to max", 50 * time.Minute, Policy{IdleTimeout: 10 * time.Minute, MaxDuration: time.Hour}, time.Hour, ReasonMaxDuration, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			at, reason, ok := end(t0, t0.Add(tt.last), tt.p)
			if ok != tt.wantOK || reason != tt.wantReason || (ok && !at.Equal(t0.Add(tt.wantAt))) {
				t.Errorf("end = %v %q %v, want +%v %q %v", at.Sub(t0), reason, ok, tt.wantAt, tt.wantReason, tt.wantOK)
			}
		})
	}
}

// expiries records what Leases asked the binding table to expire; a
// channel in gone answers binding.ErrNotBound, as a released one does.
type expiries struct {
	mu    sync.Mutex
	got   []string
	gone  map[string]bool
	fails map[string]bool
}

func (e *expiries) expire(_ context.Context, ch, key, reason string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case e.gone[ch]:
		return fmt.Errorf("expire: %w", binding.ErrNotBound)
	case e.fails[ch]:
		return fmt.Errorf("expire: database is locked")
	}
	e.got = append(e.got, ch+" "+key+" "+reason)
	return nil
}

func (e *expiries) list() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.got)
}

// TestLeases: on an injected clock, a tool call renews the idle lease, the
// max duration runs from the binding's creation, a released channel holds
// nothing, and Holds says when and why each lease ends.
func TestLeases(t *testing.T) {
	t.Parallel()
	clock := testkit.NewClock()
	exp := &expiries{gone: map[string]bool{}, fails: map[string]bool{}}
	pols := map[string]Policy{
		"ep/IDLE": {IdleTimeout: 10 * time.Minute},
		"ep/MAX":  {IdleTimeout: 10 * time.Minute, MaxDuration: 15 * time.Minute},
	}
	l := New(Config{Policy: func(k string) Policy { return pols[k] }, Expire: exp.expire, Now: clock.Now})
	ctx := t.Context()
	start := clock.Now()
	if !l.Bound("c_idle", "ep/IDLE", start) || !l.Bound("c_max", "ep/MAX", start) || !l.Bound("c_free", "ep/FREE", start) {
		t.Fatal("a new binding started no lease")
	}
	if l.Bound("c_idle", "ep/IDLE", start) {
		t.Error("the same binding started a second lease")
	}
	h := l.Holds()
	if len(h) != 3 || h["ep/IDLE"].ChannelID != "c_idle" || !h["ep/IDLE"].Ends.Equal(start.Add(10*time.Minute)) ||
		h["ep/IDLE"].Reason != ReasonIdle || !h["ep/FREE"].Ends.IsZero() {
		t.Errorf("holds %+v", h)
	}
	clock.Advance(8 * time.Minute)
	l.Touch("c_idle")
	l.Touch("c_max")
	if next := l.Check(ctx, clock.Now()); !next.Equal(start.Add(15 * time.Minute)) {
		t.Errorf("next end %v, want the max duration's", next.Sub(start))
	}
	clock.Advance(7 * time.Minute)
	l.Check(ctx, clock.Now())
	if got := exp.list(); !slices.Equal(got, []string{"c_max ep/MAX max_duration"}) {
		t.Errorf("expired %q, want only the max duration's", got)
	}
	l.Released("c_max")
	clock.Advance(3 * time.Minute)
	l.Check(ctx, clock.Now())
	if got := exp.list(); !slices.Equal(got, []string{"c_max ep/MAX max_duration", "c_idle ep/IDLE idle_timeout"}) {
		t.Errorf("expired %q, want the idle one now too", got)
	}
	if _, held := l.Holds()["ep/MAX"]; held {
		t.Error("a released channel still holds its device")
	}
}

// TestLeaseExpireErrors: a binding released meanwhile is no failure; a
// failed expiry is retried at the next check.
func TestLeaseExpireErrors(t *testing.T) {
	t.Parallel()
	clock := testkit.NewClock()
	exp := &expiries{gone: map[string]bool{"c_gone": true}, fails: map[string]bool{"c_fail": true}}
	logs := &testkit.LogBuffer{}
	l := New(Config{Policy: func(string) Policy { return Policy{IdleTimeout: time.Minute} }, Expire: exp.expire, Now: clock.Now, Logger: logs.TextLogger()})
	l.Bound("c_gone", "ep/A", clock.Now())
	l.Bound("c_fail", "ep/B", clock.Now())
	clock.Advance(time.Minute)
	l.Check(t.Context(), clock.Now())
	if !strings.Contains(logs.String(), "lease end failed") {
		t.Errorf("a failed expiry is not logged:\n%s", logs.String())
	}
	exp.mu.Lock()
	exp.fails = map[string]bool{}
	exp.mu.Unlock()
	l.Check(t.Context(), clock.Now())
	if got := exp.list(); !slices.Equal(got, []string{"c_fail ep/B idle_timeout"}) {
		t.Errorf("expired %q, want the failed one retried", got)
	}
}
