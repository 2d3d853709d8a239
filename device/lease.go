package device

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/device/policy"
	"github.com/adb-connector/adb-connector/device/redact"
)

// Leases (Device Profile §3 leaves them to each connector): a binding ends
// when its device has had no tool call for IdleTimeout, or MaxDuration
// after it began. It then expires (not revoked: the user did nothing
// wrong, the time ran out); the channel's Descriptor says expired, tools
// answer connection_not_authenticated, and auth.start binds again. Every
// release, a lease's end included, resets the phone (reset.go).

// LeasePolicy is the lease and reset policy of one device. The zero value
// bounds nothing and resets nothing; DefaultLeasePolicy is what a Service
// without ServiceConfig.Lease applies.
type LeasePolicy struct {
	// IdleTimeout ends the binding when no tool call reached the device
	// for this long (a call counts when it starts). 0: no idle limit.
	IdleTimeout time.Duration
	// MaxDuration ends the binding this long after it began, however busy.
	// 0: no limit.
	MaxDuration time.Duration
	// Reset is what happens on the phone when the binding ends, however it
	// ends.
	Reset ResetPolicy
}

// ResetPolicy says what a reset does, in this order. The zero value does
// nothing (and a device owes no reset); DefaultResetPolicy is the default.
type ResetPolicy struct {
	// Home presses HOME (KEYCODE_HOME), so the next user starts from the
	// launcher.
	Home bool
	// ForceStopLaunched force-stops the apps the binding started: apps with
	// a launcher entry running at the release but not when the binding
	// began, and the app left in front (never the launcher).
	ForceStopLaunched bool
	// ClearPackages are cleared (pm clear: their data and accounts go).
	// A package the phone does not have is skipped.
	ClearPackages []string
	// DeleteFiles deletes the files the connector left on the phone
	// (/data/local/tmp/adbc-*, a recording in progress included).
	DeleteFiles bool
	// ScreenOff turns the screen off (KEYCODE_SLEEP) last.
	ScreenOff bool
}

// DefaultResetPolicy goes home, stops the apps the binding launched and
// deletes the connector's files: cheap, and nothing the next user would
// miss. Clearing data and turning the screen off change the phone more,
// so an operator asks for them.
func DefaultResetPolicy() ResetPolicy {
	return ResetPolicy{Home: true, ForceStopLaunched: true, DeleteFiles: true}
}

// DefaultLeasePolicy has no idle or duration limit and DefaultResetPolicy.
func DefaultLeasePolicy() LeasePolicy { return LeasePolicy{Reset: DefaultResetPolicy()} }

// empty reports whether the reset does nothing.
func (p ResetPolicy) empty() bool {
	return !p.Home && !p.ForceStopLaunched && len(p.ClearPackages) == 0 && !p.DeleteFiles && !p.ScreenOff
}

// Lease end reasons (the audit row's and the log's reason).
const (
	ReasonIdle        = "idle_timeout"
	ReasonMaxDuration = "max_duration"
)

// leaseRecheck bounds the lease worker's sleep, so a policy that changed
// without LeasesChanged still applies within it.
const leaseRecheck = 30 * time.Second

// lease is one bound channel's lease.
type lease struct {
	deviceKey string
	start     time.Time    // the binding's creation
	last      atomic.Int64 // UnixNano of the last tool call (or of start)
}

// touch records a tool call at now.
func (l *lease) touch(now time.Time) { l.last.Store(now.UnixNano()) }

// leaseEnd is when a lease that began at start and last saw a call at last
// ends under p, and why; ok is false when p bounds nothing. A pure
// function: the table in lease_test.go is its specification.
func leaseEnd(start, last time.Time, p LeasePolicy) (at time.Time, reason string, ok bool) {
	if p.IdleTimeout > 0 {
		at, reason, ok = last.Add(p.IdleTimeout), ReasonIdle, true
	}
	if p.MaxDuration > 0 {
		if end := start.Add(p.MaxDuration); !ok || !end.After(at) {
			at, reason, ok = end, ReasonMaxDuration, true
		}
	}
	return at, reason, ok
}

// leasePolicy is the policy in force for a device.
func (s *Service) leasePolicy(key string) LeasePolicy {
	if s.cfg.Lease != nil {
		return s.cfg.Lease(key)
	}
	if s.cfg.Policy.Current() == nil {
		return DefaultLeasePolicy()
	}
	s.mu.RLock()
	dev := s.deviceLocked(key)
	s.mu.RUnlock()
	eff := s.cfg.Policy.For(dev)
	if eff == nil {
		return DefaultLeasePolicy()
	}
	return leaseFromPolicy(eff.Lease)
}

// leaseFromPolicy is the config file's lease of a device, what it leaves
// out taken from DefaultLeasePolicy.
func leaseFromPolicy(l policy.Lease) LeasePolicy {
	lp := DefaultLeasePolicy()
	lp.IdleTimeout, lp.MaxDuration = time.Duration(l.IdleTimeout), time.Duration(l.MaxDuration)
	if r := l.Reset; r != nil {
		for _, f := range []struct {
			v   *bool
			dst *bool
		}{{r.Home, &lp.Reset.Home}, {r.ForceStopLaunched, &lp.Reset.ForceStopLaunched}, {r.DeleteFiles, &lp.Reset.DeleteFiles}, {r.ScreenOff, &lp.Reset.ScreenOff}} {
			if f.v != nil {
				*f.dst = *f.v
			}
		}
		lp.Reset.ClearPackages = r.ClearPackages
	}
	return lp
}

// syncLeaseLocked keeps the lease of a channel in step with its cached
// binding b (ok false: none); s.mu must be held. A new binding starts a
// lease at its creation, idle from now.
func (s *Service) syncLeaseLocked(ch string, b binding.Binding, ok bool) (started bool) {
	if !ok || b.State != binding.Bound {
		delete(s.leases, ch)
		return false
	}
	if l := s.leases[ch]; l != nil && l.deviceKey == b.DeviceKey && l.start.Equal(b.CreatedAt) {
		return false
	}
	l := &lease{deviceKey: b.DeviceKey, start: b.CreatedAt}
	l.touch(s.cfg.Now())
	s.leases[ch] = l
	return true
}

// touchLease records a tool call on channel ch: every call passes through
// DeviceFor, so that is the activity signal and the tools need no hook.
func (s *Service) touchLease(ch string) {
	s.mu.RLock()
	l := s.leases[ch]
	s.mu.RUnlock()
	if l != nil {
		l.touch(s.cfg.Now())
	}
}

// LeasesChanged makes the lease worker re-read the lease policies at once
// (call it after the policy behind ServiceConfig.Lease changed); without it
// a change applies within leaseRecheck.
func (s *Service) LeasesChanged() {
	select {
	case s.leaseKick <- struct{}{}:
	default:
	}
}

// leaseLoop ends leases as they run out, until Close.
func (s *Service) leaseLoop() {
	for {
		next := s.checkLeases(s.cfg.Now())
		wait := leaseRecheck
		if !next.IsZero() {
			wait = min(wait, max(next.Sub(s.cfg.Now()), time.Millisecond))
		}
		t := time.NewTimer(wait)
		select {
		case <-s.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		case <-s.leaseKick:
			t.Stop()
		}
	}
}

// checkLeases ends every lease that ran out by now and returns when the
// next one runs out (zero: none is bounded).
func (s *Service) checkLeases(now time.Time) (next time.Time) {
	type due struct{ ch, key, reason string }
	var ended []due
	s.mu.RLock()
	leases := make(map[string]*lease, len(s.leases))
	for ch, l := range s.leases {
		leases[ch] = l
	}
	s.mu.RUnlock()
	for ch, l := range leases {
		at, reason, ok := leaseEnd(l.start, time.Unix(0, l.last.Load()), s.leasePolicy(l.deviceKey))
		switch {
		case !ok:
		case !now.Before(at):
			ended = append(ended, due{ch, l.deviceKey, reason})
		case next.IsZero() || at.Before(next):
			next = at
		}
	}
	for _, d := range ended {
		s.endLease(d.ch, d.key, d.reason)
	}
	return next
}

// endLease expires a channel's binding; the binding table's callbacks push
// the Descriptor and start the reset.
func (s *Service) endLease(ch, key, reason string) {
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	err := s.bindings.Expire(ctx, ch, key, reason)
	switch {
	case errors.Is(err, binding.ErrNotBound): // released meanwhile
	case err != nil:
		s.log.Warn("lease end failed", "device", redact.KeyHint(key), "reason", reason, "err", err)
	default:
		s.metrics.leaseEnds.WithLabelValues(reason).Inc()
		s.log.Info("lease ended", "device", redact.KeyHint(key), "reason", reason)
	}
}
