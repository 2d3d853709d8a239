package binding

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Resets: a device freed by a channel owes a reset (the Profile resets the
// phone so the next user does not find the last one's apps and files).
// While it owes one it is not bound again: the row is checked in the same
// transaction as every bind, so no flow can hand out a phone that was not
// reset.

// ResetStatus is where a device's owed reset stands.
type ResetStatus string

// Reset statuses. ResetNone is never stored: it is the absence of a row.
const (
	ResetNone    ResetStatus = ""
	ResetPending ResetStatus = "pending" // released while away: runs when the device answers
	ResetRunning ResetStatus = "running"
	ResetFailed  ResetStatus = "failed" // until a retry succeeds or the operator clears it
)

// Release reasons the Table gives; lease ends give their own.
const (
	ReasonLogout        = "logout"
	ReasonChannelClosed = "channel_closed"
	ReasonUnbind        = "unbind"
)

// Release is a bound device freed by a channel, and the reset it owes.
type Release struct {
	ChannelID string
	DeviceKey string
	Reason    string
	Reset     ResetStatus
}

// Reset is one owed reset.
type Reset struct {
	DeviceKey string
	ChannelID string // the channel whose release owes it
	Reason    string
	Status    ResetStatus
	Error     string // why the last attempt failed
	UpdatedAt time.Time
}

// resetError is a reset that keeps a device from being bound. It matches
// ErrDeviceInUse too (errors.Is), so a flow that skips devices in use (an
// approval without a serial) skips it as well.
type resetError struct{ msg string }

func (e *resetError) Error() string        { return e.msg }
func (e *resetError) Is(target error) bool { return target == ErrDeviceInUse }

// Errors of a bind refused for a reset. Their messages are safe to show to
// a user or an agent.
var (
	// ErrResetting: the device is being reset; it is free once that ends.
	ErrResetting error = &resetError{"device is being reset; try again in a few seconds"}
	// ErrNeedsReset: the device's reset failed or has not run yet (it was
	// away when released); an operator can clear it.
	ErrNeedsReset error = &resetError{"device needs a reset before it is used again; the operator can clear it with `adb-connector unbind SERIAL --clear-reset`"}
	// ErrNoReset: the device owes no reset (ClearReset).
	ErrNoReset = errors.New("device owes no reset")
)

// resetGate refuses a bind of a device that owes a reset.
func resetGate(ctx context.Context, tx *sql.Tx, deviceKey string) error {
	var status string
	err := tx.QueryRowContext(ctx, `SELECT status FROM device_resets WHERE device_key = ?`, deviceKey).Scan(&status)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return fmt.Errorf("bind: %w", err)
	case status == string(ResetRunning):
		return ErrResetting
	}
	return ErrNeedsReset
}

// owe records, in a release's transaction, the reset a freed device owes
// (Options.ResetOnRelease).
func (b *Table) owe(ctx context.Context, tx *sql.Tx, channelID, deviceKey, reason string) (Release, error) {
	r := Release{ChannelID: channelID, DeviceKey: deviceKey, Reason: reason}
	if b.resetFor != nil {
		r.Reset = b.resetFor(deviceKey)
	}
	if r.Reset == ResetNone {
		return r, nil
	}
	ms := b.now().UnixMilli()
	_, err := tx.ExecContext(ctx, `INSERT INTO device_resets(device_key, channel_id, reason, status, error, created_at, updated_at)
		VALUES (?, ?, ?, ?, '', ?, ?) ON CONFLICT(device_key) DO UPDATE SET channel_id = excluded.channel_id,
		reason = excluded.reason, status = excluded.status, error = '', updated_at = excluded.updated_at`,
		deviceKey, channelID, reason, string(r.Reset), ms, ms)
	if err != nil {
		return r, fmt.Errorf("owe reset: %w", err)
	}
	return r, nil
}

func (b *Table) released(rs ...Release) {
	if b.onRelease == nil {
		return
	}
	for _, r := range rs {
		if r.DeviceKey != "" {
			b.onRelease(r)
		}
	}
}

// Resets lists the owed resets, by device key.
func (b *Table) Resets(ctx context.Context) ([]Reset, error) {
	rows, err := b.db.Read.QueryContext(ctx, `SELECT device_key, channel_id, reason, status, error, updated_at
		FROM device_resets ORDER BY device_key`)
	if err != nil {
		return nil, fmt.Errorf("list resets: %w", err)
	}
	defer rows.Close()
	var out []Reset
	for rows.Next() {
		var r Reset
		var status string
		var updated int64
		if err := rows.Scan(&r.DeviceKey, &r.ChannelID, &r.Reason, &status, &r.Error, &updated); err != nil {
			return nil, fmt.Errorf("list resets: %w", err)
		}
		r.Status, r.UpdatedAt = ResetStatus(status), time.UnixMilli(updated).UTC()
		out = append(out, r)
	}
	return out, rows.Err()
}

// ClaimReset marks the device's reset running when its status is one of
// from; ok is false when it owes none in those statuses (cleared, or
// claimed by someone else).
func (b *Table) ClaimReset(ctx context.Context, deviceKey string, from ...ResetStatus) (r Reset, ok bool, err error) {
	err = b.inTx(ctx, func(tx *sql.Tx) error {
		var status string
		err := tx.QueryRowContext(ctx, `SELECT channel_id, reason, status FROM device_resets WHERE device_key = ?`, deviceKey).
			Scan(&r.ChannelID, &r.Reason, &status)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, f := range from {
			if status == string(f) {
				ok = true
			}
		}
		if !ok {
			return nil
		}
		r.DeviceKey, r.Status = deviceKey, ResetRunning
		_, err = tx.ExecContext(ctx, `UPDATE device_resets SET status = 'running', updated_at = ? WHERE device_key = ?`,
			b.now().UnixMilli(), deviceKey)
		return err
	})
	if err != nil {
		return Reset{}, false, fmt.Errorf("claim reset: %w", err)
	}
	return r, ok, nil
}

// FinishReset ends a running reset: done deletes it (the device is free),
// otherwise it becomes to (ResetFailed with why, or ResetPending when the
// device went away). A reset cleared meanwhile stays cleared.
func (b *Table) FinishReset(ctx context.Context, deviceKey string, done bool, to ResetStatus, why string) error {
	var err error
	if done {
		_, err = b.db.Write.ExecContext(ctx, `DELETE FROM device_resets WHERE device_key = ? AND status = 'running'`, deviceKey)
	} else {
		_, err = b.db.Write.ExecContext(ctx, `UPDATE device_resets SET status = ?, error = ?, updated_at = ?
			WHERE device_key = ? AND status = 'running'`, string(to), why, b.now().UnixMilli(), deviceKey)
	}
	if err != nil {
		return fmt.Errorf("finish reset: %w", err)
	}
	return nil
}

// RequeueRunning turns resets left running (the server stopped mid-reset)
// into pending ones, to run again when their device answers.
func (b *Table) RequeueRunning(ctx context.Context) error {
	if _, err := b.db.Write.ExecContext(ctx, `UPDATE device_resets SET status = 'pending' WHERE status = 'running'`); err != nil {
		return fmt.Errorf("requeue resets: %w", err)
	}
	return nil
}

// ClearReset is the operator's word that the device is fit to hand out
// again: its owed reset is dropped. ErrNoReset when it owes none.
func (b *Table) ClearReset(ctx context.Context, deviceKey string) error {
	res, err := b.db.Write.ExecContext(ctx, `DELETE FROM device_resets WHERE device_key = ?`, deviceKey)
	if err != nil {
		return fmt.Errorf("clear reset: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNoReset
	}
	return nil
}
