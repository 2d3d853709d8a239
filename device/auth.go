package device

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Auth flow identifiers and form fields, as the Card declares them (§4.1 auth_flows).
const (
	// FlowPairing is the form flow: the user types a serial and the
	// operator's one-time code (fields FieldSerial and FieldPairingCode, the
	// latter a secret password field).
	FlowPairing = "device_pairing"
	// FlowRequest is the polling flow: auth.start shows a request code the
	// operator approves; auth.status polls until authenticated or expired.
	FlowRequest = "device_request"

	FieldSerial      = "serial"
	FieldPairingCode = "pairing_code"
)

// Errors callers branch on (errors.Is). Their messages are safe to show to a
// user or an agent: they never contain a code, a secret or a full serial.
var (
	// ErrDeviceInUse: the device is already bound to another channel.
	ErrDeviceInUse = errors.New("device is in use by another channel")
	// ErrChannelBound: the channel already holds a different device.
	ErrChannelBound = errors.New("channel is already bound to a device")
	// ErrNotBound: no binding for this channel or device.
	ErrNotBound = errors.New("not bound")
	// ErrPairingFailed is the one generic pairing failure: unknown serial,
	// wrong, expired or already used code all return it, with one message.
	ErrPairingFailed = errors.New("pairing failed: check the serial and the pairing code")
	// ErrRateLimited: too many attempts; the error is a *RateLimitError.
	ErrRateLimited = errors.New("too many attempts")
	// ErrSessionNotFound: no such auth session on this channel (§8.9 auth_session_not_found).
	ErrSessionNotFound = errors.New("authentication session not found")
	// ErrInvalidRequestCode: an operator approved an unknown, expired or used request code.
	ErrInvalidRequestCode = errors.New("unknown or expired request code")
	// ErrUnknownDevice: no connected device has this serial.
	ErrUnknownDevice = errors.New("unknown device")
	// ErrAmbiguousSerial: the serial exists on several adb endpoints; use endpoint/serial.
	ErrAmbiguousSerial = errors.New("serial is ambiguous: several adb endpoints have it, use endpoint/serial")
	// ErrNoFreeDevice: approval without a serial found no online, unbound device.
	ErrNoFreeDevice = errors.New("no free online device")
	// ErrInvalidArgument: a malformed input (empty serial, bad TTL, ...).
	ErrInvalidArgument = errors.New("invalid argument")
)

// RateLimitError is returned when an attempt is refused by a rate limit.
// It matches ErrRateLimited with errors.Is.
type RateLimitError struct {
	RetryAfter time.Duration // how long until the next attempt is allowed
}

func (e *RateLimitError) Error() string {
	return fmt.Sprintf("too many attempts, retry in %s", e.RetryAfter.Round(time.Second))
}

// Is reports whether target is ErrRateLimited.
func (e *RateLimitError) Is(target error) bool { return target == ErrRateLimited }

// SecretFileName is the per-install secret's file name in the data directory.
const SecretFileName = "auth.key"

const secretLen = 32

// LoadOrCreateSecret returns the per-install secret kept in dir/auth.key
// (32 random bytes, mode 0600), creating it on first use. It keys the HMACs
// under which pairing and request codes are stored, so a stolen database
// alone does not allow an offline search for the short codes.
func LoadOrCreateSecret(dir string) ([]byte, error) {
	path := filepath.Join(dir, SecretFileName)
	b, err := os.ReadFile(path)
	if err == nil {
		if len(b) != secretLen {
			return nil, fmt.Errorf("secret %s: want %d bytes, found %d", path, secretLen, len(b))
		}
		if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(path, 0o600); err != nil {
				return nil, fmt.Errorf("secret %s: tighten mode: %w", path, err)
			}
		}
		return b, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read secret: %w", err)
	}
	b = make([]byte, secretLen)
	rand.Read(b)
	// Written whole to a temp file, then linked into place: the name never
	// shows a short file (a crash mid-write would otherwise stop every later
	// start), and the link fails if another opener won the race.
	f, err := os.CreateTemp(dir, SecretFileName+".tmp*") // mode 0600
	if err != nil {
		return nil, fmt.Errorf("create secret: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, fmt.Errorf("write secret: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, fmt.Errorf("write secret: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("write secret: %w", err)
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) { // lost a race with another opener
			return LoadOrCreateSecret(dir)
		}
		return nil, fmt.Errorf("create secret: %w", err)
	}
	return b, nil
}

// codeAlphabet is Crockford's base32: no I, L, O or U, so codes read aloud
// or typed from a screen are unambiguous. 5 bits per character.
const codeAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// newCode returns n random characters from codeAlphabet, grouped by 4 (or by
// 3 when n is 6) with dashes, e.g. "7K3M-Q9XD".
func newCode(n int) string {
	raw := make([]byte, n)
	rand.Read(raw)
	group := 4
	if n == 6 {
		group = 3
	}
	var sb strings.Builder
	for i, b := range raw {
		if i > 0 && i%group == 0 {
			sb.WriteByte('-')
		}
		sb.WriteByte(codeAlphabet[b&31]) // 256 is a multiple of 32: no bias
	}
	return sb.String()
}

// normalizeCode maps user input to canonical code characters: upper case,
// separators and spaces dropped, Crockford's look-alikes folded (O->0, I/L->1).
func normalizeCode(s string) string {
	var sb strings.Builder
	for _, r := range strings.ToUpper(s) {
		switch {
		case r == '-' || r == ' ' || r == '\t' || r == '_':
			continue
		case r == 'O':
			r = '0'
		case r == 'I' || r == 'L':
			r = '1'
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// codeHash is HMAC-SHA256(secret, purpose || 0 || normalized code).
func codeHash(secret []byte, purpose, code string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(purpose))
	m.Write([]byte{0})
	m.Write([]byte(normalizeCode(code)))
	return m.Sum(nil)
}

func newSessionID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return "auth_" + hex.EncodeToString(b)
}

// RateLimit is a token bucket: Burst attempts at once, refilled at Burst per
// Per. The zero value means 5 attempts per minute.
type RateLimit struct {
	Burst int
	Per   time.Duration
}

func (r RateLimit) withDefaults() RateLimit {
	if r.Burst <= 0 {
		r.Burst = 5
	}
	if r.Per <= 0 {
		r.Per = time.Minute
	}
	return r
}

type bucket struct {
	tokens float64
	at     time.Time
}

// limiter keeps one token bucket per key. Safe for concurrent use.
type limiter struct {
	rate RateLimit
	mu   sync.Mutex
	m    map[string]*bucket
}

func newLimiter(r RateLimit) *limiter {
	return &limiter{rate: r.withDefaults(), m: map[string]*bucket{}}
}

// allow takes one token from every key's bucket, or none when any is empty;
// then it returns how long until that bucket has a token again.
func (l *limiter) allow(now time.Time, keys ...string) (ok bool, retryAfter time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	perToken := l.rate.Per / time.Duration(l.rate.Burst)
	if len(l.m) > 10000 { // drop full buckets so unknown keys cannot grow the map forever
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

func (l *limiter) refill(b *bucket, now time.Time) float64 {
	if now.After(b.at) {
		b.tokens += float64(now.Sub(b.at)) / float64(l.rate.Per) * float64(l.rate.Burst)
		b.tokens = min(b.tokens, float64(l.rate.Burst))
		b.at = now
	}
	return b.tokens
}

// equalHash compares two digests in constant time.
func equalHash(a, b []byte) bool { return hmac.Equal(a, b) }
