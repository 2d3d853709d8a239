package device

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/adb-connector/adb-connector/adb"
)

// Request flow defaults.
const (
	DefaultRequestTTL   = 10 * time.Minute
	DefaultPollInterval = 2 * time.Second
	requestCodeLen      = 6 // 30 random bits, e.g. "K7Q-M2X"; only the operator redeems it
	requestPurpose      = "request"
)

// AuthStatus is an auth session's status (protocol §8.8/§8.10).
type AuthStatus string

// Auth statuses used by the device_request flow.
const (
	AuthPending         AuthStatus = "pending"
	AuthAuthenticated   AuthStatus = "authenticated"
	AuthExpired         AuthStatus = "expired"
	AuthUnauthenticated AuthStatus = "unauthenticated" // approved once, since unbound or revoked
)

// CancelStatus is auth.cancel.ack's status (§8.12).
type CancelStatus string

// Cancel outcomes.
const (
	CancelCanceled CancelStatus = "canceled"
	CancelIgnored  CancelStatus = "ignored" // already authenticated
	CancelNotFound CancelStatus = "not_found"
)

// DeviceInfo is a device the adb layer currently sees, as the device
// package needs it. State uses adb's words: "device" (online and
// authorized), "offline", "unauthorized", ...
type DeviceInfo struct {
	Key      string // "endpoint/serial"
	Endpoint string
	Serial   string
	Model    string
	State    string
}

// Online reports whether adb lists the device as usable ("device").
func (d DeviceInfo) Online() bool { return adb.State(d.State) == adb.StateDevice }

// AuthSession is a device_request session as auth.start.ack and
// auth.status.ack report it.
type AuthSession struct {
	ID           string // "auth_<hex>"
	ChannelID    string
	Code         string // request code to show the user; empty when not known (after a restart: refresh)
	Status       AuthStatus
	DeviceKey    string // set when authenticated
	ExpiresAt    time.Time
	PollInterval time.Duration
}

// RequestOptions configures Requests. The zero value is usable but approves
// nothing without a serial until Devices is set.
type RequestOptions struct {
	// Now is the clock; default time.Now.
	Now func() time.Time
	// TTL of a request code; default DefaultRequestTTL.
	TTL time.Duration
	// PollInterval suggested to the client; default DefaultPollInterval.
	PollInterval time.Duration
	// Devices lists the devices adb sees now (any state), in preference
	// order for approvals without a serial.
	Devices func() []DeviceInfo
}

// Requests is the device_request flow: a channel starts a session and shows
// its short code to the user, who asks the operator; the operator approves
// the code (adb-connector approve CODE [--serial S]) and the session's
// channel is bound. Codes are stored as HMAC digests; the clear code is kept
// in memory only, to echo it on polls. Safe for concurrent use.
type Requests struct {
	b       *Bindings
	secret  []byte
	now     func() time.Time
	ttl     time.Duration
	poll    time.Duration
	devices func() []DeviceInfo

	mu    sync.Mutex
	codes map[string]shownCode // session ID -> code shown to the user
}

type shownCode struct {
	code    string
	expires time.Time
}

// NewRequests returns the request flow over the binding table.
func NewRequests(b *Bindings, secret []byte, opts RequestOptions) *Requests {
	r := &Requests{b: b, secret: secret, now: opts.Now, ttl: opts.TTL, poll: opts.PollInterval,
		devices: opts.Devices, codes: map[string]shownCode{}}
	if r.now == nil {
		r.now = time.Now
	}
	if r.ttl <= 0 {
		r.ttl = DefaultRequestTTL
	}
	if r.poll <= 0 {
		r.poll = DefaultPollInterval
	}
	if r.devices == nil {
		r.devices = func() []DeviceInfo { return nil }
	}
	return r
}

func (r *Requests) remember(id, code string, exp time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	for k, c := range r.codes {
		if !now.Before(c.expires) {
			delete(r.codes, k)
		}
	}
	if code == "" {
		delete(r.codes, id)
		return
	}
	r.codes[id] = shownCode{code, exp}
}

func (r *Requests) shown(id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.codes[id].code
}

// Message is a readable status line for auth.start.ack / auth.status.ack.
// It holds the request code (shown to the user anyway in qr_code_text),
// never a pairing code or a device serial.
func (s AuthSession) Message() string {
	switch s.Status {
	case AuthPending:
		if s.Code == "" {
			return "Waiting for the operator's approval. Refresh to show the request code again."
		}
		return "Give the lab operator this request code: " + s.Code + " (they run: adb-connector approve " + s.Code + ")"
	case AuthAuthenticated:
		return "A device is bound to this connection"
	case AuthExpired:
		return "The request code expired; refresh to get a new one"
	case AuthUnauthenticated:
		return "The device was unbound; start again to request a device"
	}
	return string(s.Status)
}

// StartRequest opens a session for channelID (auth.start). A channel that is
// already bound gets an authenticated session at once; otherwise the new
// session is pending with a fresh code and replaces the channel's earlier
// pending sessions.
func (r *Requests) StartRequest(ctx context.Context, channelID string) (AuthSession, error) {
	for range 3 { // a fresh code collides with a live one with odds of about 2^-30
		s, err := r.startRequest(ctx, channelID)
		if !errors.Is(err, errCodeTaken) {
			return s, err
		}
	}
	return AuthSession{}, fmt.Errorf("start request: %w", errCodeTaken)
}

func (r *Requests) startRequest(ctx context.Context, channelID string) (AuthSession, error) {
	if channelID == "" {
		return AuthSession{}, fmt.Errorf("start request: %w: empty channel", ErrInvalidArgument)
	}
	now := r.now()
	s := AuthSession{ID: newSessionID(), ChannelID: channelID, PollInterval: r.poll, ExpiresAt: now.Add(r.ttl).UTC().Truncate(time.Millisecond)}
	code := newCode(requestCodeLen)
	h := codeHash(r.secret, requestPurpose, code)
	err := r.b.inTx(ctx, func(tx *sql.Tx) error {
		var key string
		err := tx.QueryRowContext(ctx, `SELECT device_key FROM device_bindings WHERE channel_id = ? AND state = 'bound'`, channelID).Scan(&key)
		switch {
		case err == nil:
			s.Status, s.DeviceKey = AuthAuthenticated, key
			h = make([]byte, 32) // never redeemable: not an HMAC of any code
			rand.Read(h)
			code = ""
		case errors.Is(err, sql.ErrNoRows):
			s.Status, s.Code = AuthPending, code
		default:
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM device_auth_requests WHERE channel_id = ? AND status = 'pending'`, channelID); err != nil {
			return err
		}
		if err := ensureFreeCode(ctx, tx, h); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO device_auth_requests(session_id, channel_id, code_hash, status, device_key, expires_at, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, s.ID, channelID, h, string(s.Status), s.DeviceKey, s.ExpiresAt.UnixMilli(), now.UnixMilli(), now.UnixMilli())
		return err
	})
	if err != nil {
		return AuthSession{}, fmt.Errorf("start request: %w", err)
	}
	r.remember(s.ID, code, s.ExpiresAt)
	return s, nil
}

// errCodeTaken: a fresh code collided with a live one (about 2^-30); retry.
var errCodeTaken = errors.New("request code collision, try again")

func ensureFreeCode(ctx context.Context, tx *sql.Tx, h []byte) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM device_auth_requests WHERE code_hash = ?`, h).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return errCodeTaken
	}
	return nil
}

// Status reports a session of channelID (auth.status): pending, expired,
// authenticated (with DeviceKey) or unauthenticated (approved, since
// released or revoked). refresh issues a new code and expiry for a session
// that is not authenticated. Unknown sessions, and sessions of other
// channels, return ErrSessionNotFound.
func (r *Requests) Status(ctx context.Context, channelID, sessionID string, refresh bool) (AuthSession, error) {
	now := r.now()
	var s AuthSession
	var code string
	err := r.b.inTx(ctx, func(tx *sql.Tx) error {
		var status string
		var exp int64
		err := tx.QueryRowContext(ctx, `SELECT status, device_key, expires_at FROM device_auth_requests
			WHERE session_id = ? AND channel_id = ?`, sessionID, channelID).Scan(&status, &s.DeviceKey, &exp)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrSessionNotFound
		}
		if err != nil {
			return err
		}
		s.ID, s.ChannelID, s.PollInterval = sessionID, channelID, r.poll
		s.ExpiresAt = time.UnixMilli(exp).UTC()
		if status == string(AuthAuthenticated) {
			var bound string
			err := tx.QueryRowContext(ctx, `SELECT device_key FROM device_bindings WHERE channel_id = ? AND state = 'bound'`, channelID).Scan(&bound)
			switch {
			case err == nil && bound == s.DeviceKey:
				s.Status = AuthAuthenticated
			case err == nil || errors.Is(err, sql.ErrNoRows):
				s.Status, s.DeviceKey = AuthUnauthenticated, ""
			default:
				return err
			}
			return nil
		}
		if refresh {
			code = newCode(requestCodeLen)
			h := codeHash(r.secret, requestPurpose, code)
			if err := ensureFreeCode(ctx, tx, h); err != nil {
				return err
			}
			s.ExpiresAt = now.Add(r.ttl).UTC().Truncate(time.Millisecond)
			if _, err := tx.ExecContext(ctx, `UPDATE device_auth_requests SET code_hash = ?, expires_at = ?, updated_at = ?
				WHERE session_id = ?`, h, s.ExpiresAt.UnixMilli(), now.UnixMilli(), sessionID); err != nil {
				return err
			}
		}
		s.Status = AuthPending
		if !now.Before(s.ExpiresAt) {
			s.Status = AuthExpired
		}
		return nil
	})
	if errors.Is(err, ErrSessionNotFound) {
		return AuthSession{}, err
	}
	if err != nil {
		return AuthSession{}, fmt.Errorf("auth status: %w", err)
	}
	switch {
	case refresh && code != "":
		r.remember(sessionID, code, s.ExpiresAt)
		s.Code = code
	case s.Status == AuthPending:
		s.Code = r.shown(sessionID)
	}
	return s, nil
}

// Cancel cancels a pending (or expired) session of channelID (auth.cancel):
// canceled; ignored when it is already authenticated; not_found otherwise.
// It never touches an existing binding.
func (r *Requests) Cancel(ctx context.Context, channelID, sessionID string) (CancelStatus, error) {
	var out CancelStatus
	err := r.b.inTx(ctx, func(tx *sql.Tx) error {
		var status string
		err := tx.QueryRowContext(ctx, `SELECT status FROM device_auth_requests WHERE session_id = ? AND channel_id = ?`,
			sessionID, channelID).Scan(&status)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			out = CancelNotFound
			return nil
		case err != nil:
			return err
		case status == string(AuthAuthenticated):
			out = CancelIgnored
			return nil
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM device_auth_requests WHERE session_id = ?`, sessionID)
		out = CancelCanceled
		return err
	})
	if err != nil {
		return "", fmt.Errorf("auth cancel: %w", err)
	}
	if out == CancelCanceled {
		r.remember(sessionID, "", time.Time{})
	}
	return out, nil
}

// Approval is the result of an operator's approval.
type Approval struct {
	ChannelID string
	DeviceKey string
}

// Approve is the operator's answer to a request code: it binds the
// session's channel to the device with this serial (bare or
// "endpoint/serial"), or, when serial is empty, to the first online device
// no channel holds. Errors: ErrInvalidRequestCode (unknown, expired or
// used), ErrUnknownDevice, ErrAmbiguousSerial, ErrDeviceInUse,
// ErrChannelBound, ErrNoFreeDevice.
func (r *Requests) Approve(ctx context.Context, code, serial string) (Approval, error) {
	now := r.now()
	h := codeHash(r.secret, requestPurpose, code)
	var candidates []DeviceInfo
	serial = strings.TrimSpace(serial)
	if serial != "" {
		d, err := FindDevice(r.devices(), serial)
		if err != nil {
			return Approval{}, err
		}
		candidates = []DeviceInfo{d}
	} else {
		for _, d := range r.devices() {
			if d.Online() {
				candidates = append(candidates, d)
			}
		}
	}
	var a Approval
	changed := false
	err := r.b.inTx(ctx, func(tx *sql.Tx) error {
		var sessionID string
		var exp int64
		err := tx.QueryRowContext(ctx, `SELECT session_id, channel_id, expires_at FROM device_auth_requests
			WHERE code_hash = ? AND status = 'pending'`, h).Scan(&sessionID, &a.ChannelID, &exp)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && now.UnixMilli() >= exp) {
			return ErrInvalidRequestCode
		}
		if err != nil {
			return err
		}
		for _, d := range candidates {
			changed, err = bindTx(ctx, tx, a.ChannelID, d.Key, now)
			if errors.Is(err, ErrDeviceInUse) && serial == "" {
				continue
			}
			if err != nil {
				return err
			}
			a.DeviceKey = d.Key
			break
		}
		if a.DeviceKey == "" {
			return ErrNoFreeDevice
		}
		_, err = tx.ExecContext(ctx, `UPDATE device_auth_requests SET status = 'authenticated', device_key = ?, updated_at = ?
			WHERE session_id = ?`, a.DeviceKey, now.UnixMilli(), sessionID)
		return err
	})
	if err != nil {
		for _, e := range []error{ErrInvalidRequestCode, ErrDeviceInUse, ErrChannelBound, ErrNoFreeDevice} {
			if errors.Is(err, e) {
				return Approval{}, err
			}
		}
		return Approval{}, fmt.Errorf("approve: %w", err)
	}
	if changed {
		r.b.changed(a.ChannelID)
	}
	return a, nil
}

// FindDevice picks the device whose serial, or whole "endpoint/serial" key,
// is serial: ErrUnknownDevice when none, ErrAmbiguousSerial when a bare
// serial is on several endpoints.
func FindDevice(devices []DeviceInfo, serial string) (DeviceInfo, error) {
	var found []DeviceInfo
	for _, d := range devices {
		if d.Key == serial {
			return d, nil
		}
		if d.Serial == serial {
			found = append(found, d)
		}
	}
	switch len(found) {
	case 0:
		return DeviceInfo{}, ErrUnknownDevice
	case 1:
		return found[0], nil
	}
	return DeviceInfo{}, ErrAmbiguousSerial
}
