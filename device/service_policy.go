package device

import (
	"context"
	"slices"
	"strings"

	"github.com/adb-connector/adb-connector/device/auth"
	"github.com/adb-connector/adb-connector/device/policy"
	"github.com/adb-connector/adb-connector/device/redact"
)

// The operator's policy in the Profile: which tools a channel's Descriptor
// offers (the tools themselves refuse the rest, see package tools), the
// tags `devices` shows, and the re-push after the config file changed.

// deviceLocked is what policy rules match of a device key; s.mu must be held.
func (s *Service) deviceLocked(key string) policy.Device {
	var model, manufacturer string
	if p := s.presence[key]; p != nil {
		model, manufacturer = p.model, p.manufacturer
	}
	return policy.DeviceFromKey(key, model, manufacturer)
}

// withheldLocked lists, comma-separated in Card order, the tools not
// offered on the device by the policy; s.mu must be held.
func (s *Service) withheldLocked(key string) string {
	if s.cfg.Policy == nil {
		return ""
	}
	eff := s.cfg.Policy.For(s.deviceLocked(key))
	var out []string
	for _, id := range s.cfg.ToolIDs {
		if !eff.Offers(id) {
			out = append(out, id)
		}
	}
	return strings.Join(out, ",")
}

func withheldHas(withheld, id string) bool {
	return withheld != "" && slices.Contains(strings.Split(withheld, ","), id)
}

// PolicyChanged re-evaluates every described channel against the policy
// now in force and pushes the Descriptors whose tool set changed, and
// applies the new leases at once. Call it after the Holder's Config was
// replaced (a reload).
func (s *Service) PolicyChanged() {
	s.leases.Changed()
	s.applyHelperPolicy()
	s.mu.RLock()
	chs := make([]string, 0, len(s.lastSeen))
	for ch := range s.lastSeen {
		chs = append(chs, ch)
	}
	s.mu.RUnlock()
	s.markDirty(chs...)
}

// readManufacturer records ro.product.manufacturer of a device that just
// answered, when a policy may match on it. getprop's answer is cached by
// package adb, so the tools that read properties later pay nothing.
func (s *Service) readManufacturer(key string) {
	if s.cfg.Policy == nil {
		return
	}
	d, err := s.cfg.ADB.Device(key)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.ProbeTimeout)
	defer cancel()
	props, err := d.Properties(ctx, false)
	if err != nil {
		s.log.Debug("manufacturer unknown", "device", redact.KeyHint(key), "err", err)
		return
	}
	s.mu.Lock()
	if p := s.presence[key]; p != nil {
		p.manufacturer = props["ro.product.manufacturer"]
	}
	s.mu.Unlock()
	s.applyHelperPolicy(key)
}

// tagsOf is a device's tags under the policy in force, for `devices`.
func (s *Service) tagsOf(d auth.DeviceInfo) []string {
	cfg := s.cfg.Policy.Current()
	if cfg == nil {
		return nil
	}
	s.mu.RLock()
	dev := s.deviceLocked(d.Key)
	s.mu.RUnlock()
	if dev.Model == "" {
		dev.Model = d.Model
	}
	return cfg.TagsOf(dev)
}
