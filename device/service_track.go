package device

import (
	"context"
	"errors"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/device/auth"
	"github.com/adb-connector/adb-connector/device/descriptor"
	"github.com/adb-connector/adb-connector/device/redact"
)

// devicePresence is what adb tracking says of one device.
type devicePresence struct {
	state string // adb's word, as listed
	model string // last non-empty model seen
	// manufacturer is ro.product.manufacturer, read once the device
	// answers when a policy may match on it.
	manufacturer string
	// transport is how the device is attached (usb, tcp), as listed.
	transport adb.Transport
	presence  descriptor.Presence
	// gen counts state changes; a probe started at one generation is
	// ignored when it finishes at another.
	gen uint64
	// probing is set while a probe for gen runs; fails counts its failures.
	probing bool
	fails   int
}

// A device adb lists as "device" is asked to answer (probe) before it is
// counted online: probeAttempts tries probeRetry apart (doubling, at most
// probeMaxRetry) before it is counted offline, then on until it answers.
const (
	probeAttempts = 3
	probeRetry    = 250 * time.Millisecond
	probeMaxRetry = 30 * time.Second
	rewatchDelay  = 100 * time.Millisecond
)

// track follows adb device events until Close. A watcher dropped for being
// slow is replaced; the replay of known devices then reconciles the map.
func (s *Service) track() {
	for s.ctx.Err() == nil {
		events := s.cfg.ADB.Watch(s.ctx)
		s.reconcile(s.cfg.ADB.Tracked())
		n := 0
		for ev := range events {
			s.apply(ev)
			n++
		}
		if s.ctx.Err() != nil {
			return
		}
		// No event at all: the client is closed (or closing); do not spin.
		if n == 0 && !s.wait(rewatchDelay) {
			return
		}
	}
}

// reconcile marks offline every device the map holds that tracking no
// longer lists (events missed while a watcher was replaced).
func (s *Service) reconcile(listed []adb.DeviceInfo) {
	keep := make(map[string]bool, len(listed))
	for _, d := range listed {
		keep[d.Key] = true
	}
	var dirty []string
	s.mu.Lock()
	for key, p := range s.presence {
		if !keep[key] && p.presence != descriptor.PresenceOffline {
			p.presence, p.state, p.probing = descriptor.PresenceOffline, "", false
			p.gen++
			if ch, ok := s.byDevice[key]; ok {
				dirty = append(dirty, ch)
			}
		}
	}
	s.notifyLocked()
	s.mu.Unlock()
	s.markDirty(dirty...)
}

// apply folds one adb event into the presence map. A device entering state
// "device" is probed before it counts as online (Profile §5: a restored
// binding is connected only once its device answers). A lost adb server
// needs no case of its own: adb reports each of its devices offline
// (Event.ServerDown) and re-reports them once it answers again.
func (s *Service) apply(ev adb.Event) {
	d := ev.Device
	state := string(d.State)
	if ev.Type == adb.Gone {
		state = ""
	}
	var dirty []string
	s.mu.Lock()
	p := s.presence[d.Key]
	if p == nil {
		p = &devicePresence{presence: descriptor.PresenceUnknown}
		s.presence[d.Key] = p
	}
	if d.Model != "" {
		p.model = d.Model
	}
	if d.Transport != "" {
		p.transport = d.Transport
	}
	old := p.state
	p.state = state
	probe := false
	switch want := descriptor.PresenceFromADBState(state); {
	case ev.Type == adb.Gone:
		p.presence, p.probing = descriptor.PresenceOffline, false
		p.gen++
	case want == descriptor.PresenceOnline && (p.presence == descriptor.PresenceOnline || p.probing) && old == state:
		// attributes changed only
	case want == descriptor.PresenceOnline:
		p.gen++
		p.probing, probe, p.fails = true, true, 0
	default:
		p.presence, p.probing = want, false
		p.gen++
	}
	gen := p.gen
	if ch, bound := s.byDevice[d.Key]; bound {
		dirty = append(dirty, ch)
	}
	s.notifyLocked()
	s.mu.Unlock()
	s.log.Debug("device event", "event", ev.Type.String(), "device", redact.SerialHint(d.Serial), "state", state)
	s.markDirty(dirty...)
	if probe {
		s.wg.Go(func() { s.probe(d.Key, gen) })
	}
}

// wait waits d; it returns false, early, when the Service is closing.
func (s *Service) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// probe runs `true` on the device until it answers: then it is online.
// After probeAttempts failures it is counted offline and probed again with
// a growing delay (at most probeMaxRetry), since adb will send no new event
// for a device it keeps listing as "device". A newer event for the device
// ends the probe.
func (s *Service) probe(key string, gen uint64) {
	delay := probeRetry
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			if !s.wait(delay) {
				return
			}
			delay = min(delay*2, probeMaxRetry)
		}
		if !s.current(key, gen) {
			return
		}
		err := s.probeOnce(key)
		if s.ctx.Err() != nil {
			return
		}
		switch {
		case answered(err):
			s.readManufacturer(key)
			s.setOnline(key, gen)
			s.resets.Answered(key)
			return
		default:
			if attempt == probeAttempts-1 {
				s.log.Debug("device does not answer", "device", redact.KeyHint(key), "err", err)
			}
			s.probeFailed(key, gen)
		}
	}
}

// answered reports whether a probe's result shows the device answering:
// success, a non-zero exit, or a full per-device queue.
func answered(err error) bool {
	var ee *adb.ExitError
	return err == nil || errors.As(err, &ee) || errors.Is(err, adb.ErrBusy)
}

// probeFailed counts a failed probe; from the probeAttempts-th on, the
// device is counted offline.
func (s *Service) probeFailed(key string, gen uint64) {
	s.probeResult(key, gen, func(p *devicePresence) bool {
		p.fails++
		changed := p.fails >= probeAttempts && p.presence != descriptor.PresenceOffline
		if p.fails >= probeAttempts {
			p.presence = descriptor.PresenceOffline
		}
		return changed
	})
}

// setOnline records a successful probe unless a newer event superseded it.
func (s *Service) setOnline(key string, gen uint64) {
	s.probeResult(key, gen, func(p *devicePresence) bool {
		p.presence, p.probing = descriptor.PresenceOnline, false
		return true
	})
}

// probeResult applies a probe's outcome to the device's presence under the
// lock, unless a newer event superseded the probe (gen), and wakes waiters;
// when update reports a change and the device is bound, the channel's
// descriptor is marked for a push.
func (s *Service) probeResult(key string, gen uint64, update func(*devicePresence) (changed bool)) {
	s.mu.Lock()
	p := s.presence[key]
	if p == nil || p.gen != gen {
		s.mu.Unlock()
		return
	}
	changed := update(p)
	ch, bound := s.byDevice[key]
	s.notifyLocked()
	s.mu.Unlock()
	if bound && changed {
		s.markDirty(ch)
	}
}

func (s *Service) current(key string, gen uint64) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p := s.presence[key]
	return p != nil && p.gen == gen
}

func (s *Service) probeOnce(key string) error {
	d, err := s.cfg.ADB.Device(key)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.ProbeTimeout)
	defer cancel()
	_, err = d.Shell(ctx, "true")
	return err
}

// liveDevices lists what adb tracking sees now, sorted by key, for the
// operator commands and approvals without a serial. A device adb lists as
// "device" whose probe has not answered yet is reported as adb lists it.
func (s *Service) liveDevices() []auth.DeviceInfo {
	tracked := s.cfg.ADB.Tracked()
	out := make([]auth.DeviceInfo, 0, len(tracked))
	for _, d := range tracked {
		out = append(out, auth.DeviceInfo{Key: d.Key, Endpoint: d.Endpoint, Serial: d.Serial, Model: d.Model, State: string(d.State)})
	}
	return out
}
