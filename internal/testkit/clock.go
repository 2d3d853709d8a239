package testkit

import (
	"sync"
	"time"
)

// ClockStart is where a NewClock starts: 2026-12-02 10:00:00 UTC.
var ClockStart = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)

// Clock is a clock that moves only when told, for a Config.Now field.
// It is safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a Clock at ClockStart.
func NewClock() *Clock {
	return &Clock{now: ClockStart}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d (back when d is negative).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
