package ratelimit

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrLimited: an attempt was refused by a rate limit; the error is an *Error.
var ErrLimited = errors.New("too many attempts")

// Error is returned when an attempt is refused by a rate limit. It matches
// ErrLimited with errors.Is.
type Error struct {
	RetryAfter time.Duration // how long until the next attempt is allowed
}

func (e *Error) Error() string {
	return fmt.Sprintf("too many attempts, retry in %s", e.RetryAfter.Round(time.Second))
}

// Is reports whether target is ErrLimited.
func (e *Error) Is(target error) bool { return target == ErrLimited }

// Rate is a token bucket: Burst attempts at once, refilled at Burst per
// Per. The zero value means 5 attempts per minute.
type Rate struct {
	Burst int
	Per   time.Duration
}

func (r Rate) withDefaults() Rate {
	if r.Burst <= 0 {
		r.Burst = 5
	}
	if r.Per <= 0 {
		r.Per = time.Minute
	}
	return r
}

// maxIdleBuckets is the map size above which full buckets are dropped, so
// keys seen once cannot grow the map forever.
const maxIdleBuckets = 10000

type bucket struct {
	tokens float64
	at     time.Time
}

// Limiter keeps one token bucket per key. Safe for concurrent use.
type Limiter struct {
	rate Rate
	mu   sync.Mutex
	m    map[string]*bucket
}

// New returns a Limiter whose buckets all follow r.
func New(r Rate) *Limiter {
	return &Limiter{rate: r.withDefaults(), m: map[string]*bucket{}}
}

// Allow takes one token from every key's bucket, or none when any is empty;
// then it returns how long until that bucket has a token again.
func (l *Limiter) Allow(now time.Time, keys ...string) (ok bool, retryAfter time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	perToken := l.rate.Per / time.Duration(l.rate.Burst)
	if len(l.m) > maxIdleBuckets {
		for k, b := range l.m {
			if l.refill(b, now) >= float64(l.rate.Burst) {
				delete(l.m, k)
			}
		}
	}
	bs := make([]*bucket, len(keys))
	for i, k := range keys {
		b := l.m[k]
		if b == nil {
			b = &bucket{tokens: float64(l.rate.Burst), at: now}
			l.m[k] = b
		}
		l.refill(b, now)
		if b.tokens < 1 {
			wait := time.Duration((1 - b.tokens) * float64(perToken))
			retryAfter = max(retryAfter, wait)
		}
		bs[i] = b
	}
	if retryAfter > 0 {
		return false, retryAfter
	}
	for _, b := range bs {
		b.tokens--
	}
	return true, 0
}

func (l *Limiter) refill(b *bucket, now time.Time) float64 {
	if now.After(b.at) {
		b.tokens += float64(now.Sub(b.at)) / float64(l.rate.Per) * float64(l.rate.Burst)
		b.tokens = min(b.tokens, float64(l.rate.Burst))
		b.at = now
	}
	return b.tokens
}

// RetrySeconds is a retry hint in whole seconds for a message: d rounded
// up, at least 1.
func RetrySeconds(d time.Duration) int64 {
	return max(int64((d+time.Second-1)/time.Second), 1)
}
