package device

import (
	"context"
	"time"

	"github.com/adb-connector/adb-connector/adb"
)

// devicePresence is what adb tracking says of one device.
type devicePresence struct {
	endpoint string
	serial   string
	state    string // adb's word, as listed
	model    string // last non-empty model seen
	presence Presence
	// gen counts state changes; a probe started at one generation is
	// ignored when it finishes at another.
	gen uint64
	// probing is set while a probe for gen runs.
	probing bool
}

// probeAttempts and probeRetry bound how hard a device that adb lists as
// "device" is asked to answer before it is counted online.
const (
	probeAttempts = 3
	probeRetry    = 250 * time.Millisecond
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
		if n == 0 { // the client is closed (or closing): do not spin
			t := time.NewTimer(rewatchDelay)
			select {
			case <-s.ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
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
		if !keep[key] && p.presence != PresenceOffline {
			p.presence, p.state, p.probing = PresenceOffline, "", false
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
// binding is connected only once its device answers).
func (s *Service) apply(ev adb.Event) {
	d := ev.Device
	state := string(d.State)
	if ev.Type == adb.Gone {
		state = ""
	}
	var dirty []string
	s.mu.Lock()
	if ev.ServerDown {
		s.epDown[d.Endpoint] = true
	} else if s.epDown[d.Endpoint] {
		delete(s.epDown, d.Endpoint)
		dirty = s.endpointChannelsLocked(d.Endpoint)
	}
	p := s.presence[d.Key]
	if p == nil {
		p = &devicePresence{endpoint: d.Endpoint, serial: d.Serial, presence: PresenceUnknown}
		s.presence[d.Key] = p
	}
	if d.Model != "" {
		p.model = d.Model
	}
	old := p.state
	p.state = state
	probe := false
	switch want := PresenceFromADBState(state); {
	case ev.Type == adb.Gone:
		p.presence, p.probing = PresenceOffline, false
		p.gen++
	case want == PresenceOnline && (p.presence == PresenceOnline || p.probing) && old == state:
		// attributes changed only
	case want == PresenceOnline:
		p.gen++
		p.probing, probe = true, true
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
	s.log.Debug("device event", "event", ev.Type.String(), "device", SerialHint(d.Serial), "state", state)
	s.markDirty(dirty...)
	if probe {
		s.wg.Go(func() { s.probe(d.Key, gen) })
	}
}

// endpointChannelsLocked lists the channels bound to a device of ep.
func (s *Service) endpointChannelsLocked(ep string) []string {
	var out []string
	for key, ch := range s.byDevice {
		if e, _ := SplitDeviceKey(key); e == ep {
			out = append(out, ch)
		}
	}
	return out
}

// probe runs `true` on the device; success makes it online, repeated
// failure offline, unless a newer event superseded this probe.
func (s *Service) probe(key string, gen uint64) {
	var err error
	for i := range probeAttempts {
		if i > 0 {
			t := time.NewTimer(probeRetry)
			select {
			case <-s.ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		if !s.current(key, gen) {
			return
		}
		err = s.probeOnce(key)
		if err == nil || s.ctx.Err() != nil {
			break
		}
	}
	if s.ctx.Err() != nil {
		return
	}
	s.mu.Lock()
	p := s.presence[key]
	if p == nil || p.gen != gen {
		s.mu.Unlock()
		return
	}
	p.probing = false
	p.presence = PresenceOnline
	if err != nil {
		p.presence = PresenceOffline
	}
	ch, bound := s.byDevice[key]
	s.notifyLocked()
	s.mu.Unlock()
	if err != nil {
		s.log.Debug("device probe failed", "device", SerialHint(p.serial), "err", err)
	}
	if bound {
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
func (s *Service) liveDevices() []DeviceInfo {
	tracked := s.cfg.ADB.Tracked()
	out := make([]DeviceInfo, 0, len(tracked))
	for _, d := range tracked {
		out = append(out, DeviceInfo{Key: d.Key, Endpoint: d.Endpoint, Serial: d.Serial, Model: d.Model, State: string(d.State)})
	}
	return out
}
