package device

import (
	"time"

	"github.com/adb-connector/adb-connector/device/lease"
	"github.com/adb-connector/adb-connector/device/policy"
	"github.com/adb-connector/adb-connector/device/reset"
)

// A device's lease (package lease) and the reset on its release (package
// reset) come from one policy: the config file's lease block, or
// ServiceConfig.Lease.

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
	Reset reset.Policy
}

// DefaultLeasePolicy has no idle or duration limit and reset.DefaultPolicy.
func DefaultLeasePolicy() LeasePolicy { return LeasePolicy{Reset: reset.DefaultPolicy()} }

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
	lp := leaseFromPolicy(eff.Lease)
	lp.Reset.UninstallInstalled = eff.UninstallOnReset
	return lp
}

// leaseOf is the lease part of a device's policy (lease.Config.Policy).
func (s *Service) leaseOf(key string) lease.Policy {
	p := s.leasePolicy(key)
	return lease.Policy{IdleTimeout: p.IdleTimeout, MaxDuration: p.MaxDuration}
}

// resetOf is the reset part of a device's policy (reset.Config.Policy).
func (s *Service) resetOf(key string) reset.Policy { return s.leasePolicy(key).Reset }

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
