package auth

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
	"github.com/adb-connector/adb-connector/device/binding"
)

// Request flow defaults.
const (
	DefaultRequestTTL   = 10 * time.Minute
	DefaultPollInterval = 2 * time.Second
	requestCodeLen      = 6 // 30 random bits, e.g. "K7Q-M2X"; only the operator redeems it
	requestPurpose      = "request"
)

// Status is an auth session's status (protocol §8.8/§8.10).
type Status string

// Auth statuses used by the device_request flow.
const (
	Pending         Status = "pending"
	Authenticated   Status = "authenticated"
	Expired         Status = "expired"
	Unauthenticated Status = "unauthenticated" // approved once, since unbound or revoked
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

// Session is a device_request session as auth.start.ack and
// auth.status.ack report it.
type Session struct {
	ID           string // "auth_<hex>"
	ChannelID    string
	Code         string // request code to show the user; empty when not known (after a restart: refresh)
	Status       Status
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
	b       *binding.Table
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
func NewRequests(b *binding.Table, secret []byte, opts RequestOptions) *Requests {
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
func (s Session) Message() string {
	switch s.Status {
	case Pending:
		if s.Code == "" {
			return "Waiting for the operator's approval. Refresh to show the request code again."
		}
		return "Give the lab operator this request code: " + s.Code + " (they run: adb-connector approve " + s.Code + ")"
	case Authenticated:
		return "A device is bound to this connection"
	case Expired:
		return "The request code expired; refresh to get a new one"
	case Unauthenticated:
		return "The device was unbound; start again to request a device"
	}
	return string(s.Status)
}

// StartRequest opens a session for channelID (auth.start). A channel that is
// already bound gets an authenticated session at once; otherwise the new
// session is pending with a fresh code and replaces the channel's earlier
// pending sessions.
func (r *Requests) StartRequest(ctx context.Context, channelID string) (Session, error) {
	for range 3 { // a fresh code collides with a live one with odds of about 2^-30
		s, err := r.startRequest(ctx, channelID)
		if !errors.Is(err, errCodeTaken) {
			return s, err
		}
	}
	return Session{}, fmt.Errorf("start request: %w", errCodeTaken)
}

func (r *Requests) startRequest(ctx context.Context, channelID string) (Session, error) {
	if channelID == "" {
		return Session{}, fmt.Errorf("start request: %w: empty channel", ErrInvalidArgument)
	}
	now := r.now()
	s := Session{ID: NewSessionID(), ChannelID: channelID, PollInterval: r.poll, ExpiresAt: now.Add(r.ttl).UTC().Truncate(time.Millisecond)}
	code := newCode(requestCodeLen)
	h := codeHash(r.secret, requestPurpose, code)
	err := r.b.Update(ctx, func(tx *binding.Tx) error {
		var key string
		err := tx.QueryRowContext(ctx, `SELECT device_key FROM device_bindings WHERE channel_id = ? AND state = 'bound'`, channelID).Scan(&key)
		switch {
		case err == nil:
			s.Status, s.DeviceKey = Authenticated, key
			h = make([]byte, 32) // never redeemable: not an HMAC of any code
			rand.Read(h)
			code = ""
		case errors.Is(err, sql.ErrNoRows):
			s.Status, s.Code = Pending, code
		default:
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM device_auth_requests WHERE channel_id = ? AND status = 'pending'`, channelID); err != nil {
			return err
		}
		if err := ensureFreeCode(ctx, tx.Tx, h); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO device_auth_requests(session_id, channel_id, code_hash, status, device_key, expires_at, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, s.ID, channelID, h, string(s.Status), s.DeviceKey, s.ExpiresAt.UnixMilli(), now.UnixMilli(), now.UnixMilli())
		return err
	})
	if err != nil {
		return Session{}, fmt.Errorf("start request: %w", err)
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
func (r *Requests) Status(ctx context.Context, channelID, sessionID string, refresh bool) (Session, error) {
	now := r.now()
	var s Session
	var code string
	err := r.b.Update(ctx, func(tx *binding.Tx) error {
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
		if status == string(Authenticated) {
			var bound string
			err := tx.QueryRowContext(ctx, `SELECT device_key FROM device_bindings WHERE channel_id = ? AND state = 'bound'`, channelID).Scan(&bound)
			switch {
			case err == nil && bound == s.DeviceKey:
				s.Status = Authenticated
			case err == nil || errors.Is(err, sql.ErrNoRows):
				s.Status, s.DeviceKey = Unauthenticated, ""
			default:
				return err
			}
			return nil
		}
		if refresh {
			code = newCode(requestCodeLen)
			h := codeHash(r.secret, requestPurpose, code)
			if err := ensureFreeCode(ctx, tx.Tx, h); err != nil {
				return err
			}
			s.ExpiresAt = now.Add(r.ttl).UTC().Truncate(time.Millisecond)
			if _, err := tx.ExecContext(ctx, `UPDATE device_auth_requests SET code_hash = ?, expires_at = ?, updated_at = ?
				WHERE session_id = ?`, h, s.ExpiresAt.UnixMilli(), now.UnixMilli(), sessionID); err != nil {
				return err
			}
		}
		s.Status = Pending
		if !now.Before(s.ExpiresAt) {
			s.Status = Expired
		}
		return nil
	})
	if errors.Is(err, ErrSessionNotFound) {
		return Session{}, err
	}
	if err != nil {
		return Session{}, fmt.Errorf("auth status: %w", err)
	}
	switch {
	case refresh && code != "":
		r.remember(sessionID, code, s.ExpiresAt)
		s.Code = code
	case s.Status == Pending:
		s.Code = r.shown(sessionID)
	}
	return s, nil
}

// Cancel cancels a pending (or expired) session of channelID (auth.cancel):
// canceled; ignored when it is already authenticated; not_found otherwise.
// It never touches an existing binding.
func (r *Requests) Cancel(ctx context.Context, channelID, sessionID string) (CancelStatus, error) {
	var out CancelStatus
	err := r.b.Update(ctx, func(tx *binding.Tx) error {
		var status string
		err := tx.QueryRowContext(ctx, `SELECT status FROM device_auth_requests WHERE session_id = ? AND channel_id = ?`,
			sessionID, channelID).Scan(&status)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			out = CancelNotFound
			return nil
		case err != nil:
			return err
		case status == string(Authenticated):
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

// Pending lists the sessions waiting for an operator's approval, oldest
// first, each with its request code when this process still knows it (the
// clear code lives in memory only: after a restart a session shows none
// until its channel refreshes). Expired sessions are left out. The codes
// are what the users were shown; callers show them to the operator only.
func (r *Requests) Pending(ctx context.Context) ([]Session, error) {
	rows, err := r.b.Read().QueryContext(ctx, `SELECT session_id, channel_id, expires_at FROM device_auth_requests
		WHERE status = 'pending' AND expires_at > ? ORDER BY created_at, session_id`, r.now().UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("pending requests: %w", err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		var s Session
		var exp int64
		if err := rows.Scan(&s.ID, &s.ChannelID, &exp); err != nil {
			return nil, fmt.Errorf("pending requests: %w", err)
		}
		s.Status, s.ExpiresAt, s.PollInterval = Pending, time.UnixMilli(exp).UTC(), r.poll
		s.Code = r.shown(s.ID)
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("pending requests: %w", err)
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
// used), ErrUnknownDevice, ErrAmbiguousSerial, binding.ErrDeviceInUse,
// binding.ErrChannelBound, ErrNoFreeDevice.
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
	err := r.b.Update(ctx, func(tx *binding.Tx) error {
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
			_, err = tx.Bind(ctx, a.ChannelID, d.Key)
			if errors.Is(err, binding.ErrDeviceInUse) && serial == "" {
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
		for _, e := range []error{ErrInvalidRequestCode, binding.ErrDeviceInUse, binding.ErrChannelBound, ErrNoFreeDevice} {
			if errors.Is(err, e) {
				return Approval{}, err
			}
		}
		return Approval{}, fmt.Errorf("approve: %w", err)
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
