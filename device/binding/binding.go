package binding

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/store"
)

// Errors callers branch on (errors.Is). Their messages are safe to show to
// a user or an agent.
var (
	// ErrDeviceInUse: the device is already bound to another channel.
	ErrDeviceInUse = errors.New("device is in use by another channel")
	// ErrChannelBound: the channel already holds a different device.
	ErrChannelBound = errors.New("channel is already bound to a device")
	// ErrNotBound: no binding for this channel or device.
	ErrNotBound = errors.New("not bound")
	// ErrEmptyKey: Bind was given an empty channel id or device key.
	ErrEmptyKey = errors.New("empty channel or device")
)

// State is a channel's binding state as the Descriptor sees it.
type State string

// Binding states. None is never stored: it is the absence of a row.
const (
	None    State = "none"
	Bound   State = "bound"
	Revoked State = "revoked" // operator unbind; cleared by logout or a new bind
	Expired State = "expired" // the lease ended; cleared by logout or a new bind
)

// Binding is one channel's binding row.
type Binding struct {
	ChannelID string
	DeviceKey string // "endpoint/serial"
	State     State
	CreatedAt time.Time
	UpdatedAt time.Time
}

// SplitKey splits a device key, "endpoint/serial" (adb.DeviceKey),
// the key under which bindings are stored; a key without "/" is all
// serial. Unlike adb.SplitKey it never fails.
func SplitKey(key string) (endpoint, serial string) {
	if ep, s, ok := strings.Cut(key, "/"); ok {
		return ep, s
	}
	return "", key
}

// Options configures Table. The zero value is usable.
type Options struct {
	// Now is the clock; default time.Now.
	Now func() time.Time
	// OnChange, when set, is called after every committed change with the
	// channels whose binding changed, so their Descriptors can be pushed.
	// It runs on the caller's goroutine and must not block for long.
	OnChange func(channelIDs ...string)
	// ResetOnRelease, when set, says inside the releasing transaction
	// which reset a device freed by a channel owes (ResetNone, ResetRunning
	// to run it now, ResetPending to run it when the device answers); the
	// device is not bound again while it owes one. It must be quick and
	// must not use the Table.
	ResetOnRelease func(deviceKey string) ResetStatus
	// OnRelease, when set, is called after every committed release of a
	// bound device (logout, channel closed, unbind, lease end), after
	// OnChange, on the caller's goroutine.
	OnRelease func(Release)
}

// Table is the exclusive channel<->device binding table. A channel holds
// at most one device and a device is bound to at most one channel; both are
// enforced by the schema and by serialising writers on the single write
// connection. Safe for concurrent use.
type Table struct {
	db        *store.DB
	now       func() time.Time
	onChange  func(...string)
	resetFor  func(string) ResetStatus
	onRelease func(Release)
}

// New returns the binding table over db.
func New(db *store.DB, opts Options) *Table {
	b := &Table{db: db, now: opts.Now, onChange: opts.OnChange, resetFor: opts.ResetOnRelease, onRelease: opts.OnRelease}
	if b.now == nil {
		b.now = time.Now
	}
	return b
}

// Read returns the read handle of the table's database, for flows that
// keep their own tables beside it (auth's request sessions) and list them
// without taking the write connection.
func (b *Table) Read() *sql.DB { return b.db.Read }

func (b *Table) changed(channels ...string) {
	if b.onChange != nil && len(channels) > 0 {
		b.onChange(channels...)
	}
}

// Bind binds channelID to deviceKey. Binding a channel again to the device it
// already holds succeeds. It returns ErrDeviceInUse when another channel holds
// the device and ErrChannelBound when this channel holds another device. A
// revoked marker on the channel is replaced.
func (b *Table) Bind(ctx context.Context, channelID, deviceKey string) error {
	return b.Update(ctx, func(tx *Tx) error {
		_, err := tx.Bind(ctx, channelID, deviceKey)
		return err
	})
}

// Tx is a write transaction of Update: a flow that binds as part of a
// larger change (a code consumed in the same transaction as the bind) runs
// its own statements on the embedded *sql.Tx and binds with Tx.Bind.
type Tx struct {
	*sql.Tx
	now     time.Time
	changed []string
}

// Bind is Table.Bind inside the transaction; changed is false when the
// binding already existed. The change is notified once Update commits.
func (tx *Tx) Bind(ctx context.Context, channelID, deviceKey string) (changed bool, err error) {
	if channelID == "" || deviceKey == "" {
		return false, fmt.Errorf("bind: %w", ErrEmptyKey)
	}
	changed, err = bindTx(ctx, tx.Tx, channelID, deviceKey, tx.now)
	if changed {
		tx.changed = append(tx.changed, channelID)
	}
	return changed, err
}

// Update runs f in a write transaction on the single write connection, so
// writers are serialised; it commits when f returns nil, then reports the
// channels f bound to OnChange.
func (b *Table) Update(ctx context.Context, f func(*Tx) error) error {
	tx := &Tx{now: b.now()}
	err := b.inTx(ctx, func(sqlTx *sql.Tx) error {
		tx.Tx, tx.changed = sqlTx, tx.changed[:0]
		return f(tx)
	})
	if err != nil {
		return err
	}
	b.changed(tx.changed...)
	return nil
}

// bindTx binds inside tx; changed is false when the binding already existed.
func bindTx(ctx context.Context, tx *sql.Tx, channelID, deviceKey string, now time.Time) (changed bool, err error) {
	var holder string
	err = tx.QueryRowContext(ctx,
		`SELECT channel_id FROM device_bindings WHERE device_key = ? AND state = 'bound'`, deviceKey).Scan(&holder)
	switch {
	case err == nil && holder == channelID:
		return false, nil
	case err == nil:
		return false, ErrDeviceInUse
	case !errors.Is(err, sql.ErrNoRows):
		return false, fmt.Errorf("bind: %w", err)
	}
	if err := resetGate(ctx, tx, deviceKey); err != nil {
		return false, err
	}
	var state string
	err = tx.QueryRowContext(ctx, `SELECT state FROM device_bindings WHERE channel_id = ?`, channelID).Scan(&state)
	switch {
	case err == nil && state == string(Bound):
		return false, ErrChannelBound
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return false, fmt.Errorf("bind: %w", err)
	}
	ms := now.UnixMilli()
	_, err = tx.ExecContext(ctx, `INSERT INTO device_bindings(channel_id, device_key, state, created_at, updated_at)
		VALUES (?, ?, 'bound', ?, ?)
		ON CONFLICT(channel_id) DO UPDATE SET device_key = excluded.device_key, state = 'bound',
			created_at = excluded.created_at, updated_at = excluded.updated_at`,
		channelID, deviceKey, ms, ms)
	if err != nil {
		return false, fmt.Errorf("bind: %w", err)
	}
	return true, nil
}

// Release removes the channel's binding or revoked/expired marker
// (auth.logout) and its pending request sessions. Releasing an unbound
// channel is not an error.
func (b *Table) Release(ctx context.Context, channelID string) error {
	_, err := b.release(ctx, []string{channelID}, ReasonLogout)
	return err
}

// ReleaseChannels releases every listed channel (their connection closed
// for good) in one transaction and returns how many bindings it removed.
func (b *Table) ReleaseChannels(ctx context.Context, channelIDs []string) (int, error) {
	return b.release(ctx, channelIDs, ReasonChannelClosed)
}

func (b *Table) release(ctx context.Context, channelIDs []string, reason string) (int, error) {
	var released []string
	var freed []Release
	err := b.inTx(ctx, func(tx *sql.Tx) error {
		released, freed = released[:0], freed[:0]
		for _, ch := range channelIDs {
			var key, state string
			err := tx.QueryRowContext(ctx, `DELETE FROM device_bindings WHERE channel_id = ? RETURNING device_key, state`, ch).Scan(&key, &state)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("release: %w", err)
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM device_auth_requests WHERE channel_id = ?`, ch); err != nil {
				return fmt.Errorf("release: %w", err)
			}
			if key == "" {
				continue
			}
			released = append(released, ch)
			if state == string(Bound) {
				r, err := b.owe(ctx, tx, ch, key, reason)
				if err != nil {
					return err
				}
				freed = append(freed, r)
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	b.changed(released...)
	b.released(freed...)
	return len(released), nil
}

// Revoke is the operator's unbind: the device is freed and the channel that
// held it keeps a revoked marker, returned here, so its Descriptor says
// revoked. It returns ErrNotBound when no channel holds the device.
func (b *Table) Revoke(ctx context.Context, deviceKey string) (channelID string, err error) {
	return b.endBinding(ctx, deviceKey, "", Revoked, ReasonUnbind)
}

// Expire ends channelID's binding of deviceKey because its lease ended
// (reason, e.g. "idle_timeout"): the device is freed and the channel keeps
// an expired marker, so its Descriptor says expired. ErrNotBound when the
// channel no longer holds the device.
func (b *Table) Expire(ctx context.Context, channelID, deviceKey, reason string) error {
	_, err := b.endBinding(ctx, deviceKey, channelID, Expired, reason)
	return err
}

// endBinding turns the bound row of deviceKey (held by channelID, when not
// empty) into a marker of state to.
func (b *Table) endBinding(ctx context.Context, deviceKey, channelID string, to State, reason string) (string, error) {
	var freed Release
	err := b.inTx(ctx, func(tx *sql.Tx) error {
		var ch string
		err := tx.QueryRowContext(ctx, `UPDATE device_bindings SET state = ?, updated_at = ?
			WHERE device_key = ? AND state = 'bound' AND (? = '' OR channel_id = ?) RETURNING channel_id`,
			string(to), b.now().UnixMilli(), deviceKey, channelID, channelID).Scan(&ch)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotBound
		}
		if err != nil {
			return fmt.Errorf("%s: %w", to, err)
		}
		freed, err = b.owe(ctx, tx, ch, deviceKey, reason)
		return err
	})
	if err != nil {
		return "", err
	}
	b.changed(freed.ChannelID)
	b.released(freed)
	return freed.ChannelID, nil
}

// ByChannel returns the channel's binding (bound or revoked), or ErrNotBound.
func (b *Table) ByChannel(ctx context.Context, channelID string) (Binding, error) {
	return b.one(ctx, `WHERE channel_id = ?`, channelID)
}

// ByDevice returns the binding that holds the device, or ErrNotBound.
// Revoked markers are not returned: a revoked device is free.
func (b *Table) ByDevice(ctx context.Context, deviceKey string) (Binding, error) {
	return b.one(ctx, `WHERE device_key = ? AND state = 'bound'`, deviceKey)
}

// List returns every binding row (bound and revoked), ordered by channel.
func (b *Table) List(ctx context.Context) ([]Binding, error) {
	rows, err := b.db.Read.QueryContext(ctx, selectBinding+` ORDER BY channel_id`)
	if err != nil {
		return nil, fmt.Errorf("list bindings: %w", err)
	}
	defer rows.Close()
	var out []Binding
	for rows.Next() {
		bd, err := scanBinding(rows)
		if err != nil {
			return nil, fmt.Errorf("list bindings: %w", err)
		}
		out = append(out, bd)
	}
	return out, rows.Err()
}

const selectBinding = `SELECT channel_id, device_key, state, created_at, updated_at FROM device_bindings `

func (b *Table) one(ctx context.Context, where string, arg string) (Binding, error) {
	bd, err := scanBinding(b.db.Read.QueryRowContext(ctx, selectBinding+where, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return Binding{}, ErrNotBound
	}
	if err != nil {
		return Binding{}, fmt.Errorf("read binding: %w", err)
	}
	return bd, nil
}

func scanBinding(s interface{ Scan(...any) error }) (Binding, error) {
	var bd Binding
	var state string
	var created, updated int64
	if err := s.Scan(&bd.ChannelID, &bd.DeviceKey, &state, &created, &updated); err != nil {
		return Binding{}, err
	}
	bd.State = State(state)
	bd.CreatedAt = time.UnixMilli(created).UTC()
	bd.UpdatedAt = time.UnixMilli(updated).UTC()
	return bd, nil
}

// inTx runs f in a write transaction on the single write connection, so
// writers are serialised; it commits when f returns nil.
func (b *Table) inTx(ctx context.Context, f func(*sql.Tx) error) error {
	tx, err := b.db.Write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}
