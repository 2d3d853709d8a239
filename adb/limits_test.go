package adb

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

func waitFor(cond func() bool) {
	for !cond() {
		runtime.Gosched()
	}
}

func TestLimiterBusyAndSerialized(t *testing.T) {
	l := newLimiter(Limits{MaxReads: 2, MaxQueue: 1})
	ctx := t.Context()
	in1, err := l.acquire(ctx, opInput)
	if err != nil {
		t.Fatal(err)
	}
	// Reads overlap with the input and with each other.
	r1, err := l.acquire(ctx, opRead)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := l.acquire(ctx, opRead)
	if err != nil {
		t.Fatal(err)
	}
	// A second input waits (queue slot 1) ...
	got := make(chan error, 1)
	go func() {
		rel, err := l.acquire(ctx, opInput)
		if err == nil {
			rel()
		}
		got <- err
	}()
	waitFor(func() bool { return l.waiting.Load() == 1 })
	// ... and the next caller is refused rather than queued.
	if _, err := l.acquire(ctx, opRead); !errors.Is(err, ErrBusy) {
		t.Fatalf("err = %v, want ErrBusy", err)
	}
	in1()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	r1()
	r2()
	// A waiter gives up with its context.
	in2, _ := l.acquire(ctx, opInput)
	defer in2()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := l.acquire(cctx, opInput); !errors.Is(err, context.Canceled) || errors.Is(err, ErrBusy) {
		t.Fatalf("err = %v, want Canceled", err)
	}
	// A waiter whose deadline passes never started: ErrBusy, not a timeout
	// of the device.
	dctx, dcancel := context.WithTimeout(ctx, time.Millisecond)
	defer dcancel()
	if _, err := l.acquire(dctx, opInput); !errors.Is(err, ErrBusy) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want ErrBusy wrapping DeadlineExceeded", err)
	}
}

// TestAcquireForRefusesWhatCannotFinish: a gesture whose turn comes with
// less time left than it takes is refused (ErrBusy: never started), and its
// turn is given back; with time enough it runs.
func TestAcquireForRefusesWhatCannotFinish(t *testing.T) {
	t.Parallel()
	l := newLimiter(Limits{MaxReads: 1, MaxQueue: 4})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := l.acquireFor(ctx, opInput, time.Minute); !errors.Is(err, ErrBusy) {
		t.Fatalf("a one-minute gesture with 100 ms left: %v, want ErrBusy", err)
	}
	release, err := l.acquireFor(ctx, opInput, time.Millisecond)
	if err != nil {
		t.Fatalf("the slot was not given back: %v", err)
	}
	release()
	if release, err := l.acquireFor(context.Background(), opInput, time.Minute); err != nil {
		t.Fatalf("no deadline: %v", err)
	} else {
		release()
	}
}
