package lease

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/device/redact"
)

// A binding that runs out expires (not revoked: the user did nothing
// wrong, the time ran out); the channel's Descriptor says expired, tools
// answer connection_not_authenticated, and auth.start binds again.

// Policy bounds one device's bindings. The zero value bounds nothing.
type Policy struct {
	// IdleTimeout ends the binding when no tool call reached the device
	// for this long (a call counts when it starts). 0: no idle limit.
	IdleTimeout time.Duration
	// MaxDuration ends the binding this long after it began, however busy.
	// 0: no limit.
	MaxDuration time.Duration
}

// Lease end reasons (the audit row's and the log's reason).
const (
	ReasonIdle        = "idle_timeout"
	ReasonMaxDuration = "max_duration"
)

// recheck bounds the worker's sleep, so a policy that changed without
// Changed still applies within it.
const recheck = 30 * time.Second

// expireTimeout bounds the expiry of one binding.
const expireTimeout = 10 * time.Second

// Config configures Leases. Policy and Expire are required.
type Config struct {
	// Policy gives a device's lease; it is asked again at every check, so
	// a policy that changed applies to running leases.
	Policy func(deviceKey string) Policy
	// Expire ends a channel's binding of a device for a reason
	// (binding.Table.Expire); binding.ErrNotBound means it was released
	// meanwhile.
	Expire func(ctx context.Context, channelID, deviceKey, reason string) error
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Logger receives lease ends. Default: discard.
	Logger *slog.Logger
}

// Leases holds the lease of every bound channel and ends those that run
// out while Run runs. Safe for concurrent use; it never calls Config's
// functions with its lock held.
type Leases struct {
	cfg  Config
	log  *slog.Logger
	kick chan struct{}
	ends *prometheus.CounterVec

	mu     sync.Mutex
	leases map[string]*lease // by channel
}

// lease is one bound channel's lease.
type lease struct {
	deviceKey string
	start     time.Time    // the binding's creation
	last      atomic.Int64 // UnixNano of the last tool call (or of the bind)
}

// New returns Leases with none held.
func New(cfg Config) *Leases {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Leases{cfg: cfg, log: cfg.Logger, kick: make(chan struct{}, 1), leases: map[string]*lease{},
		ends: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adb_connector_device_lease_ends_total",
			Help: "Device bindings ended by their lease, by reason (idle_timeout, max_duration).",
		}, []string{"reason"})}
}

// end is when a lease that began at start and last saw a call at last
// ends under p, and why; ok is false when p bounds nothing. A pure
// function: the table in lease_test.go is its specification.
func end(start, last time.Time, p Policy) (at time.Time, reason string, ok bool) {
	if p.IdleTimeout > 0 {
		at, reason, ok = last.Add(p.IdleTimeout), ReasonIdle, true
	}
	if p.MaxDuration > 0 {
		if e := start.Add(p.MaxDuration); !ok || !e.After(at) {
			at, reason, ok = e, ReasonMaxDuration, true
		}
	}
	return at, reason, ok
}

// Bound is the binding table's bind event: channel ch holds the device
// since since (the binding's creation). A binding already held is kept
// (its idle clock runs on); a new one starts idle from now. It reports
// whether a lease started.
func (l *Leases) Bound(ch, deviceKey string, since time.Time) (started bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if old := l.leases[ch]; old != nil && old.deviceKey == deviceKey && old.start.Equal(since) {
		return false
	}
	n := &lease{deviceKey: deviceKey, start: since}
	n.last.Store(l.cfg.Now().UnixNano())
	l.leases[ch] = n
	l.changedLocked()
	return true
}

// Released is the binding table's release event: ch holds no device.
func (l *Leases) Released(ch string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.leases, ch)
}

// Touch records a tool call on channel ch, which renews its idle lease.
func (l *Leases) Touch(ch string) {
	l.mu.Lock()
	n := l.leases[ch]
	l.mu.Unlock()
	if n != nil {
		n.last.Store(l.cfg.Now().UnixNano())
	}
}

// Hold is a bound device as the operator sees it: the channel that holds
// it, since when, and when its lease ends.
type Hold struct {
	DeviceKey string
	ChannelID string
	Since     time.Time
	// Ends is when the binding ends unless a tool call renews it (zero:
	// its lease bounds nothing); Reason says which bound (ReasonIdle or
	// ReasonMaxDuration).
	Ends   time.Time
	Reason string
}

// Holds returns the held devices with their leases, by device key.
func (l *Leases) Holds() map[string]Hold {
	snap := l.snapshot()
	out := make(map[string]Hold, len(snap))
	for ch, n := range snap {
		h := Hold{DeviceKey: n.deviceKey, ChannelID: ch, Since: n.start}
		if at, reason, ok := end(n.start, time.Unix(0, n.last.Load()), l.cfg.Policy(n.deviceKey)); ok {
			h.Ends, h.Reason = at, reason
		}
		out[n.deviceKey] = h
	}
	return out
}

func (l *Leases) snapshot() map[string]*lease {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]*lease, len(l.leases))
	for ch, n := range l.leases {
		out[ch] = n
	}
	return out
}

// Changed makes Run re-read the policies at once (call it after the
// policy behind Config.Policy changed); without it a change applies
// within 30 seconds.
func (l *Leases) Changed() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.changedLocked()
}

func (l *Leases) changedLocked() {
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

// Run ends leases as they run out, until ctx ends.
func (l *Leases) Run(ctx context.Context) {
	for {
		next := l.Check(ctx, l.cfg.Now())
		wait := recheck
		if !next.IsZero() {
			wait = min(wait, max(next.Sub(l.cfg.Now()), time.Millisecond))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		case <-l.kick:
			t.Stop()
		}
	}
}

// Check ends every lease that ran out by now and returns when the next
// one runs out (zero: none is bounded). Run calls it; a test on an
// injected clock calls it to step time.
func (l *Leases) Check(ctx context.Context, now time.Time) (next time.Time) {
	type due struct{ ch, key, reason string }
	var ended []due
	for ch, n := range l.snapshot() {
		at, reason, ok := end(n.start, time.Unix(0, n.last.Load()), l.cfg.Policy(n.deviceKey))
		switch {
		case !ok:
		case !now.Before(at):
			ended = append(ended, due{ch, n.deviceKey, reason})
		case next.IsZero() || at.Before(next):
			next = at
		}
	}
	for _, d := range ended {
		l.expire(ctx, d.ch, d.key, d.reason)
	}
	return next
}

// expire ends a channel's binding; the binding table's events then drop
// the lease and start the reset.
func (l *Leases) expire(ctx context.Context, ch, key, reason string) {
	ctx, cancel := context.WithTimeout(ctx, expireTimeout)
	defer cancel()
	err := l.cfg.Expire(ctx, ch, key, reason)
	switch {
	case errors.Is(err, binding.ErrNotBound): // released meanwhile
	case err != nil:
		l.log.Warn("lease end failed", "device", redact.KeyHint(key), "reason", reason, "err", err)
	default:
		l.ends.WithLabelValues(reason).Inc()
		l.log.Info("lease ended", "device", redact.KeyHint(key), "reason", reason)
	}
}

// Collectors returns the lease metrics: lease ends by reason.
func (l *Leases) Collectors() []prometheus.Collector { return []prometheus.Collector{l.ends} }
