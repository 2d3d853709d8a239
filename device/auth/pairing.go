package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/internal/ratelimit"
)

// Pairing code defaults and limits.
const (
	DefaultPairingTTL = 15 * time.Minute
	MaxPairingTTL     = 24 * time.Hour
	pairingCodeLen    = 8 // 40 random bits, e.g. "7K3M-Q9XD"
	pairingPurpose    = "pair"
)

// PairingOptions configures Pairing. The zero value is usable.
type PairingOptions struct {
	// Now is the clock; default time.Now.
	Now func() time.Time
	// RateLimit bounds redeem attempts, separately per channel and per
	// typed serial; default 5 per minute.
	RateLimit ratelimit.Rate
}

// Pairing is the device_pairing flow: the operator issues a one-time code
// for a device (adb-connector pair SERIAL), the user types serial and code
// into the form, and RedeemPairing binds the channel. Codes are stored only
// as HMAC-SHA256 digests under the install secret. Safe for concurrent use.
type Pairing struct {
	b      *binding.Table
	secret []byte
	now    func() time.Time
	lim    *ratelimit.Limiter
}

// NewPairing returns the pairing flow over the binding table; secret is the
// install secret (LoadOrCreateSecret).
func NewPairing(b *binding.Table, secret []byte, opts PairingOptions) *Pairing {
	p := &Pairing{b: b, secret: secret, now: opts.Now, lim: ratelimit.New(opts.RateLimit)}
	if p.now == nil {
		p.now = time.Now
	}
	return p
}

// IssuePairingCode creates a one-time code for deviceKey ("endpoint/serial")
// valid for ttl (0 means DefaultPairingTTL, at most MaxPairingTTL) and
// returns it; it replaces any earlier code for the device. The code is
// returned once and never stored in clear.
func (p *Pairing) IssuePairingCode(ctx context.Context, deviceKey string, ttl time.Duration) (string, error) {
	if deviceKey == "" {
		return "", fmt.Errorf("issue pairing code: %w: empty device", ErrInvalidArgument)
	}
	if ttl == 0 {
		ttl = DefaultPairingTTL
	}
	if ttl < time.Second || ttl > MaxPairingTTL {
		return "", fmt.Errorf("issue pairing code: %w: ttl must be between 1s and %s", ErrInvalidArgument, MaxPairingTTL)
	}
	code := newCode(pairingCodeLen)
	now := p.now()
	err := p.b.Update(ctx, func(tx *binding.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM device_pairing_codes WHERE expires_at <= ?`, now.UnixMilli()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO device_pairing_codes(device_key, code_hash, expires_at, created_at)
			VALUES (?, ?, ?, ?) ON CONFLICT(device_key) DO UPDATE SET code_hash = excluded.code_hash,
			expires_at = excluded.expires_at, created_at = excluded.created_at`,
			deviceKey, codeHash(p.secret, pairingPurpose, code), now.Add(ttl).UnixMilli(), now.UnixMilli())
		return err
	})
	if err != nil {
		return "", fmt.Errorf("issue pairing code: %w", err)
	}
	return code, nil
}

// RedeemPairing checks serial and code typed by the user of channelID and,
// when they match a live code, binds the channel to that device, consumes
// the code and returns the device key. Every mismatch — unknown serial,
// wrong, expired or used code — returns ErrPairingFailed alone. Attempts are
// rate limited per channel and per serial (*ratelimit.Error). A valid code
// for a device bound elsewhere returns binding.ErrDeviceInUse and stays usable.
// serial is the bare serial or "endpoint/serial".
func (p *Pairing) RedeemPairing(ctx context.Context, channelID, serial, code string) (deviceKey string, err error) {
	if channelID == "" {
		return "", fmt.Errorf("redeem pairing: %w: empty channel", ErrInvalidArgument)
	}
	serial = strings.TrimSpace(serial)
	now := p.now()
	// One budget per device serial, typed bare or as "endpoint/serial".
	_, bare := binding.SplitKey(serial)
	if ok, wait := p.lim.Allow(now, "channel\x00"+channelID, "serial\x00"+strings.ToLower(bare)); !ok {
		return "", &ratelimit.Error{RetryAfter: wait}
	}
	want := codeHash(p.secret, pairingPurpose, code)
	err = p.b.Update(ctx, func(tx *binding.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT device_key, code_hash, expires_at FROM device_pairing_codes
			WHERE device_key = ?1 OR substr(device_key, instr(device_key, '/') + 1) = ?1`, serial)
		if err != nil {
			return err
		}
		match := ""
		for rows.Next() {
			var key string
			var h []byte
			var exp int64
			if err := rows.Scan(&key, &h, &exp); err != nil {
				rows.Close()
				return err
			}
			// Compare every candidate, in constant time, before looking at expiry.
			if equalHash(h, want) && now.UnixMilli() < exp && match == "" {
				match = key
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if match == "" {
			return ErrPairingFailed
		}
		_, err = tx.Bind(ctx, channelID, match)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM device_pairing_codes WHERE device_key = ?`, match); err != nil {
			return err
		}
		deviceKey = match
		return nil
	})
	switch {
	case err == nil:
	case errors.Is(err, ErrPairingFailed), errors.Is(err, binding.ErrDeviceInUse), errors.Is(err, binding.ErrChannelBound):
		return "", err
	default:
		return "", fmt.Errorf("redeem pairing: %w", err)
	}
	return deviceKey, nil
}
