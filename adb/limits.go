package adb

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// Limits bounds the work in flight on one device. Zero fields take defaults.
type Limits struct {
	// MaxReads is how many read operations (shell, screencap, dumps, pull)
	// may run at once on a device. Default 4.
	MaxReads int
	// MaxQueue is how many operations may wait for a slot on a device before
	// further ones fail with ErrBusy. Default 16.
	MaxQueue int
}

func (l Limits) withDefaults() Limits {
	if l.MaxReads <= 0 {
		l.MaxReads = 4
	}
	if l.MaxQueue <= 0 {
		l.MaxQueue = 16
	}
	return l
}

// opKind classifies operations for the per-device limiter.
type opKind int

const (
	opRead  opKind = iota // may overlap up to MaxReads
	opInput               // serialized: one at a time per device
)

// limiter serializes inputs and bounds reads on one device; waiters beyond
// maxQueue are refused with ErrBusy instead of piling up.
type limiter struct {
	input    chan struct{}
	reads    chan struct{}
	waiting  atomic.Int32
	maxQueue int32
}

func newLimiter(l Limits) *limiter {
	return &limiter{
		input:    make(chan struct{}, 1),
		reads:    make(chan struct{}, l.MaxReads),
		maxQueue: int32(l.MaxQueue),
	}
}

// acquire takes a slot of kind, waiting while ctx allows. The returned
// function releases it.
func (l *limiter) acquire(ctx context.Context, kind opKind) (func(), error) {
	return l.acquireFor(ctx, kind, 0)
}

// acquireFor is acquire for an operation that takes need on the device (a
// gesture held that long): when, once its turn comes, less than need is
// left before ctx's deadline, it gives its turn back and fails with ErrBusy
// rather than start an action certain to be cut off half-done.
func (l *limiter) acquireFor(ctx context.Context, kind opKind, need time.Duration) (func(), error) {
	release, err := l.wait(ctx, kind)
	if err != nil || need <= 0 {
		return release, err
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < need {
		release()
		return nil, fmt.Errorf("wait for device: %w: too little time left to finish a %s gesture", ErrBusy, need)
	}
	return release, nil
}

// wait takes a slot of kind, queueing while the device is busy.
func (l *limiter) wait(ctx context.Context, kind opKind) (func(), error) {
	sem := l.reads
	if kind == opInput {
		sem = l.input
	}
	select {
	case sem <- struct{}{}:
		return func() { <-sem }, nil
	default:
	}
	if l.waiting.Add(1) > l.maxQueue {
		l.waiting.Add(-1)
		return nil, ErrBusy
	}
	defer l.waiting.Add(-1)
	select {
	case sem <- struct{}{}:
		return func() { <-sem }, nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			// The operation never reached the device: it is busy, not slow
			// and not offline, so callers may retry without fearing the
			// action ran.
			return nil, fmt.Errorf("wait for device: %w: the deadline passed before the operation could start (%w)", ErrBusy, ctx.Err())
		}
		return nil, ctxError(ctx, "wait for device", ctx.Err())
	}
}
