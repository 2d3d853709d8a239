package ratelimit

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestLimiter(t *testing.T) {
	t.Parallel()
	l := New(Rate{Burst: 2, Per: time.Minute})
	now := time.Unix(1000, 0)
	for i := range 2 {
		if ok, _ := l.Allow(now, "a"); !ok {
			t.Fatalf("attempt %d refused within the burst", i)
		}
	}
	ok, retry := l.Allow(now, "a")
	if ok || retry != 30*time.Second {
		t.Fatalf("third attempt: ok=%v retry=%s, want refused, 30s", ok, retry)
	}
	if ok, _ := l.Allow(now.Add(30*time.Second), "a"); !ok {
		t.Fatal("a token refilled after 30 s is refused")
	}
	// All or nothing across keys: "b" is full, "a" empty, so "b" keeps its tokens.
	if ok, _ := l.Allow(now.Add(30*time.Second), "a", "b"); ok {
		t.Fatal("allowed with an empty bucket")
	}
	for i := range 2 {
		if ok, _ := l.Allow(now.Add(30*time.Second), "b"); !ok {
			t.Fatalf("b attempt %d refused: a refused multi-key attempt took its token", i)
		}
	}
}

func TestDefaultsAndError(t *testing.T) {
	t.Parallel()
	l := New(Rate{})
	now := time.Unix(0, 0)
	n := 0
	for ok := true; ok; n++ {
		ok, _ = l.Allow(now, "k")
	}
	if n-1 != 5 {
		t.Fatalf("zero Rate allowed %d at once, want 5", n-1)
	}
	err := fmt.Errorf("pair: %w", &Error{RetryAfter: 1500 * time.Millisecond})
	if !errors.Is(err, ErrLimited) || err.Error() != "pair: too many attempts, retry in 2s" {
		t.Fatalf("error %q does not match ErrLimited or reads wrong", err)
	}
}

func TestIdleBucketsDropped(t *testing.T) {
	t.Parallel()
	l := New(Rate{Burst: 1, Per: time.Second})
	now := time.Unix(0, 0)
	for i := range maxIdleBuckets + 1 {
		l.Allow(now, fmt.Sprint(i))
	}
	l.Allow(now.Add(time.Hour), "x")
	if len(l.m) > 2 {
		t.Fatalf("%d buckets kept after every one refilled", len(l.m))
	}
}
