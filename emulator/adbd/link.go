package adbd

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Link models the cable or network between the host and the phone: each
// direction has a one-way latency and a bandwidth, and every message
// (OPEN, WRTE and the OKAY that acknowledges it) pays them. The zero value
// is an instant link (no wait at all, what tests use). The values of the
// timing profiles and their sources are in docs/phone-timings.md.
type Link struct {
	// Up is device to host: command output, pulled files, screenshots.
	Up Direction
	// Down is host to device: service names, stdin, pushed files, and the
	// host's OKAYs.
	Down Direction
}

// Direction is one direction of a Link. The zero value costs nothing.
type Direction struct {
	// Latency is the one-way delay of every message.
	Latency time.Duration
	// BytesPerSec is the payload throughput; 0 is unlimited.
	BytesPerSec int64
}

// messageHeader is the ADB message header every WRTE, OKAY and OPEN
// carries on the wire (AOSP protocol.txt: six uint32).
const messageHeader = 24

// transmit is how long n payload bytes (plus the message header) occupy
// the direction.
func (d Direction) transmit(n int) time.Duration {
	if d.BytesPerSec <= 0 {
		return 0
	}
	return time.Duration(int64(n+messageHeader) * int64(time.Second) / d.BytesPerSec)
}

// Cost is how long one message with n payload bytes takes to arrive on an
// idle link: its transmission plus the latency.
func (d Direction) Cost(n int) time.Duration { return d.transmit(n) + d.Latency }

// IsZero reports whether the link costs nothing (no waits are made).
func (l Link) IsZero() bool { return l == Link{} }

// OpenCost is the round trip of opening a stream: the host's OPEN travels
// down, the device's OKAY comes back up.
func (l Link) OpenCost(service int) time.Duration {
	return l.Down.Cost(service) + l.Up.Cost(0)
}

// WriteCost is what one device WRTE of n bytes costs the stream on an idle
// link: the message travels up and the host's OKAY comes back down before
// the next may leave (one WRTE in flight, no delayed-ack feature).
func (l Link) WriteCost(n int) time.Duration { return l.Up.Cost(n) + l.Down.Cost(0) }

// ReadCost is what one host WRTE of n bytes costs the stream on an idle
// link: the message travels down and the device's OKAY goes back up before
// the host sends the next one.
func (l Link) ReadCost(n int) time.Duration { return l.Down.Cost(n) + l.Up.Cost(0) }

// wire is a Server's link in use: each direction is one queue shared by
// every stream of every host connection (one cable), so concurrent
// streams split the bandwidth. Safe for concurrent use.
type wire struct {
	link             Link
	upLane, downLane lane
	charged          atomic.Int64 // nanoseconds waited on the link, all streams
}

// lane is one direction's transmit queue: free is when the last message
// scheduled has finished leaving.
type lane struct {
	mu   sync.Mutex
	free time.Time
}

// arrival schedules a message of n bytes handed to the lane at now and
// returns when it has fully arrived at the other end: it starts when the
// lane is free, occupies it for its transmission, then travels for the
// latency.
func (l *lane) arrival(d Direction, now time.Time, n int) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	start := now
	if l.free.After(start) {
		start = l.free
	}
	l.free = start.Add(d.transmit(n))
	return l.free.Add(d.Latency)
}

// wait blocks until a message of n bytes handed to lane l now has
// arrived at the other end. It reports false when ctx ended first. An
// instant link returns true at once (data already received is still
// delivered after the stream ends).
func (w *wire) wait(ctx context.Context, l *lane, d Direction, n int) bool {
	dur := w.book(l, d, n)
	if dur <= 0 {
		return true
	}
	t := time.NewTimer(dur)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// book schedules a message of n bytes handed to lane l now and returns
// how long until it has arrived (charged to the link); 0 on an instant
// link.
func (w *wire) book(l *lane, d Direction, n int) time.Duration {
	if w.link.IsZero() {
		return 0
	}
	now := time.Now()
	dur := l.arrival(d, now, n).Sub(now)
	if dur <= 0 {
		return 0
	}
	w.charged.Add(int64(dur))
	return dur
}

// upAfter sends a device message of no payload (an OKAY) with send once
// it has reached the host, without making the caller wait: the device
// goes on while the message travels.
func (w *wire) upAfter(send func()) {
	if dur := w.book(&w.upLane, w.link.Up, 0); dur > 0 {
		time.AfterFunc(dur, send)
		return
	}
	send()
}

// up waits for a device message of n payload bytes to reach the host.
func (w *wire) up(ctx context.Context, n int) bool { return w.wait(ctx, &w.upLane, w.link.Up, n) }

// down waits for a host message of n payload bytes to reach the device.
func (w *wire) down(ctx context.Context, n int) bool {
	return w.wait(ctx, &w.downLane, w.link.Down, n)
}

// LinkCharged returns the total time streams have waited on the modelled
// link (Options.Link) since Listen; zero for an instant link. Tests use it
// to see that a profile's link was applied without timing anything.
func (s *Server) LinkCharged() time.Duration { return time.Duration(s.wire.charged.Load()) }
