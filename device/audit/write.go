package audit

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// Record is one entry of the audit trail: who, on which device, what
// (redacted), how it ended. Tool calls and resets write them.
type Record struct {
	ID         int64 // increasing in write order; Query.AfterID follows from it
	At         time.Time
	ChannelID  string
	DeviceHint string          // redacted serial; empty when no device was resolved
	ToolID     string          // a tool id, or ResetToolID
	ToolCallID string          // context.tool_call_id, may be empty
	Args       json.RawMessage // redacted arguments: free text as its length only
	Outcome    string          // OutcomeOK or the wire error code
	Latency    time.Duration   // millisecond precision
	Replayed   bool            // a repeated tool_call_id answered from the record
}

// OutcomeOK is the outcome of a call or reset that succeeded; failures
// carry their wire error code.
const OutcomeOK = "ok"

// ResetToolID is the tool id of a reset's row.
const ResetToolID = "reset"

// DefaultRetention is how long rows are kept unless the operator says
// otherwise; older ones are pruned.
const DefaultRetention = 90 * 24 * time.Hour

// pruneEvery is how often the Writer deletes: daily is enough for a
// retention counted in days, and keeps the DELETE off most writes.
const pruneEvery = 24 * time.Hour

const insertSQL = `INSERT INTO tool_audit
		(at_ms, channel_id, device_hint, tool_id, tool_call_id, args, outcome, latency_ms, replayed)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`

// Writer writes rows on a database's write handle and prunes rows past
// its retention, at most once a day (the first at the first write), in
// the transaction of a write: the trail stays bounded with no janitor of
// its own. Safe for concurrent use.
type Writer struct {
	db        *sql.DB
	retention time.Duration
	now       func() time.Time

	mu        sync.Mutex
	ins       *sql.Stmt
	lastSweep time.Time
}

// NewWriter writes on db (a store.DB's Write handle); retention <= 0 means
// DefaultRetention, a nil now time.Now.
func NewWriter(db *sql.DB, retention time.Duration, now func() time.Time) *Writer {
	if retention <= 0 {
		retention = DefaultRetention
	}
	if now == nil {
		now = time.Now
	}
	return &Writer{db: db, retention: retention, now: now}
}

// Prepare readies the insert statement. A caller that writes in its own
// transaction (WriteTx) calls it before BeginTx: the write handle has one
// connection, which the transaction then holds.
func (w *Writer) Prepare(ctx context.Context) error {
	_, err := w.stmt(ctx)
	return err
}

func (w *Writer) stmt(ctx context.Context) (*sql.Stmt, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ins != nil {
		return w.ins, nil
	}
	st, err := w.db.PrepareContext(ctx, insertSQL)
	if err != nil {
		return nil, fmt.Errorf("audit row: %w", err)
	}
	w.ins = st
	return st, nil
}

// WriteTx writes r in tx (begun on the Writer's handle, after Prepare) and
// prunes when a day has passed since the last prune. r.Args must already
// be redacted ("" is written as {}).
func (w *Writer) WriteTx(ctx context.Context, tx *sql.Tx, r Record) error {
	ins, err := w.stmt(ctx)
	if err != nil {
		return err
	}
	args := string(r.Args)
	if args == "" {
		args = "{}"
	}
	if _, err := tx.StmtContext(ctx, ins).ExecContext(ctx, r.At.UnixMilli(), r.ChannelID, r.DeviceHint, r.ToolID,
		r.ToolCallID, args, r.Outcome, r.Latency.Milliseconds(), r.Replayed); err != nil {
		return fmt.Errorf("audit row: %w", err)
	}
	return w.prune(ctx, tx)
}

// Write writes r in a transaction of its own, for work done outside a
// tool call (the reset of a released device), so the operator reviews it
// with the calls.
func (w *Writer) Write(ctx context.Context, r Record) error {
	if err := w.Prepare(ctx); err != nil {
		return err
	}
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("audit row: %w", err)
	}
	defer tx.Rollback()
	if err := w.WriteTx(ctx, tx, r); err != nil {
		return err
	}
	return tx.Commit()
}

// Close releases the prepared statement. Idempotent.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ins == nil {
		return nil
	}
	err := w.ins.Close()
	w.ins = nil
	return err
}

// prune deletes rows older than the retention when it is due.
func (w *Writer) prune(ctx context.Context, tx *sql.Tx) error {
	now := w.now()
	w.mu.Lock()
	due := now.Sub(w.lastSweep) >= pruneEvery
	if due {
		w.lastSweep = now
	}
	w.mu.Unlock()
	if !due {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM tool_audit WHERE at_ms < ?`, now.Add(-w.retention).UnixMilli()); err != nil {
		return fmt.Errorf("audit prune: %w", err)
	}
	return nil
}
