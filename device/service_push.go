package device

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/binding"
)

// Descriptor pushes: a binding change (binding.Table.OnChange) or a presence
// change (service_track.go) marks the channels it touches dirty; one worker
// recomputes their Descriptor view and pushes those whose view differs from
// what their peer last received (recorded by Descriptor).

// bindingsChanged is binding.Table' OnChange: it re-reads the changed channels'
// rows into the cache and queues their pushes.
func (s *Service) bindingsChanged(channelIDs ...string) {
	s.bindMu.Lock()
	defer s.bindMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, ch := range channelIDs {
		b, err := s.bindings.ByChannel(ctx, ch)
		if err != nil && !errors.Is(err, binding.ErrNotBound) {
			s.log.Warn("binding cache refresh failed", "err", err)
			continue
		}
		s.mu.Lock()
		if old, ok := s.byChannel[ch]; ok && s.byDevice[old.DeviceKey] == ch {
			delete(s.byDevice, old.DeviceKey)
		}
		if err == nil {
			s.byChannel[ch] = b
			if b.State == binding.Bound {
				s.byDevice[b.DeviceKey] = ch
			}
		} else {
			delete(s.byChannel, ch)
		}
		started, held := false, ""
		if err == nil && b.State == binding.Bound {
			started = s.leases.Bound(ch, b.DeviceKey, b.CreatedAt)
			held = b.DeviceKey
		} else {
			s.leases.Released(ch)
		}
		// Unbind, logout, lease end, a takeover: the question was about a
		// phone the channel no longer holds.
		s.questions.Close(ch, held)
		s.notifyLocked()
		s.mu.Unlock()
		if started {
			s.resets.Bound(b.DeviceKey)
		}
	}
	s.markDirty(channelIDs...)
	s.leases.Changed()
}

// markDirty queues channels for the push worker.
func (s *Service) markDirty(channelIDs ...string) {
	if len(channelIDs) == 0 {
		return
	}
	s.dirtyMu.Lock()
	for _, ch := range channelIDs {
		s.dirty[ch] = true
	}
	s.dirtyMu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// maxParallelPushes bounds concurrent PushDescriptor calls: a push may wait
// for room in a slow peer's queue, which must not hold up other channels.
const maxParallelPushes = 16

// pushLoop pushes the Descriptor of every dirty channel whose view differs
// from what its peer last received. Channels never described (not open
// since start) are skipped: channel.open will read their state. A batch
// finishes before the next starts, so one channel never has two pushes in
// flight and the last push carries the newest state.
func (s *Service) pushLoop() {
	sem := make(chan struct{}, maxParallelPushes)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-s.kick:
		}
		s.dirtyMu.Lock()
		batch := s.dirty
		s.dirty = map[string]bool{}
		s.dirtyMu.Unlock()
		p := s.pusher
		for ch := range batch {
			s.mu.RLock()
			last, seen := s.lastSeen[ch]
			cur := s.viewLocked(ch)
			s.mu.RUnlock()
			if !seen || cur == last || p == nil {
				continue
			}
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				s.push(p, ch, cur)
			})
		}
		wg.Wait()
	}
}

// push sends one channel's Descriptor.
func (s *Service) push(p Pusher, ch string, cur descriptorView) {
	ctx, cancel := context.WithTimeout(s.ctx, 15*time.Second)
	defer cancel()
	err := p.PushDescriptor(ctx, ch)
	switch {
	case errors.Is(err, connector.ErrChannelNotFound):
		s.mu.Lock()
		delete(s.lastSeen, ch)
		s.mu.Unlock()
	case err != nil:
		s.log.Warn("descriptor push failed", "status", string(cur.state.Status), "err", err)
	default:
		s.log.Debug("descriptor pushed", "status", string(cur.state.Status), "device", cur.target.AccountHint)
	}
}
