package main

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/connector/xagenttest"
)

// board holds the last Descriptor status pushed (or acked) for each
// channel, so workers and the fault injector can wait for "connected"
// while one consumer per socket drains the pushes. Safe for concurrent use.
type board struct {
	mu      sync.Mutex
	st      map[string]chanStatus
	seenAt  map[string]time.Time // channel + "/" + status: when last set
	changed chan struct{}        // closed and replaced on every update

	progress atomic.Int64 // tool.progress.push received
}

type chanStatus struct {
	status string
	at     time.Time
}

func newBoard() *board {
	return &board{st: map[string]chanStatus{}, seenAt: map[string]time.Time{}, changed: make(chan struct{})}
}

func (b *board) set(ch, status string) {
	b.mu.Lock()
	now := time.Now()
	b.st[ch] = chanStatus{status, now}
	b.seenAt[ch+"/"+status] = now
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

// setFrom records the Descriptor status an ack or push carries, if any.
func (b *board) setFrom(p *connector.Packet) {
	var pl struct {
		D *struct {
			Connection struct {
				Status string `json:"status"`
			} `json:"connection"`
		} `json:"connection_descriptor"`
	}
	if p == nil || p.ChannelID == "" || json.Unmarshal(p.Payload, &pl) != nil || pl.D == nil {
		return
	}
	b.set(p.ChannelID, pl.D.Connection.Status)
}

// seen reports whether ch was set to status at or after since.
func (b *board) seen(ch, status string, since time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	at, ok := b.seenAt[ch+"/"+status]
	return ok && !at.Before(since)
}

// wait returns nil once ch's status is want, set at or after since.
func (b *board) wait(ctx context.Context, ch, want string, since time.Time) error {
	for {
		b.mu.Lock()
		s, n := b.st[ch], b.changed
		b.mu.Unlock()
		if s.status == want && !s.at.Before(since) {
			return nil
		}
		select {
		case <-n:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// consume drains c's pushes until c closes: Descriptor pushes go to the
// board, progress pushes are counted, and error packets that answer no
// request (those to an oversized request_id, which is never echoed) are
// tallied as stray_error.
func (b *board) consume(c *xagenttest.Client, t *tally) {
	ctx := context.Background()
	go func() {
		for {
			p, err := c.WaitPush(ctx, connector.TypeDescriptorPush)
			if err != nil {
				return
			}
			b.setFrom(p)
		}
	}()
	go func() {
		for {
			if _, err := c.WaitPush(ctx, connector.TypeToolProgressPush); err != nil {
				return
			}
			b.progress.Add(1)
		}
	}()
	go func() {
		for {
			p, err := c.WaitPush(ctx, connector.TypeError)
			if err != nil {
				return
			}
			t.addPacket("stray_error", p, nil)
		}
	}()
}
