package tools

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/store"
)

// ack is the outcome of a tool call as sent in tool.invoke.ack: the result
// as marshalled JSON, or the wire error.
type ack struct {
	Result json.RawMessage
	Err    *connector.Error
}

// idemKey identifies a call for deduplication: context.tool_call_id is
// only unique within a channel.
type idemKey struct{ channel, callID string }

// flight is a claimed call: running, or being looked up in the records.
// Duplicates wait on done and then read ack.
type flight struct {
	done     chan struct{}
	key      idemKey
	toolID   string
	argsHash [32]byte
	ack      ack
}

// errCallIDReused: a tool_call_id already used for another tool or other
// arguments on this channel.
var errCallIDReused = &argError{Field: "context.tool_call_id", Reason: "was already used on this channel for a different call"}

// idempotency makes a tool_call_id act once per channel: in memory while a
// call runs (duplicates wait for it), in SQLite once it completed (for TTL).
// Safe for concurrent use.
type idempotency struct {
	db  *store.DB
	ttl time.Duration
	now func() time.Time

	mu        sync.Mutex
	inflight  map[idemKey]*flight
	lastSweep time.Time

	// stmts holds the per-call statements of the pipeline (idempotency
	// lookup and record, audit row), prepared once.
	stmts stmtCache

	// onWait, when set (tests), is called as a duplicate starts waiting
	// for the running call with its key.
	onWait func()
}

func newIdempotency(db *store.DB, ttl time.Duration, now func() time.Time) *idempotency {
	return &idempotency{db: db, ttl: ttl, now: now, inflight: map[idemKey]*flight{},
		stmts: stmtCache{stmts: map[*sql.DB]map[string]*sql.Stmt{}}}
}

// stmtCache prepares each statement once per handle and keeps it: the
// SQLite driver otherwise parses the SQL text again on every call, a
// measured part of a tool call's cost. Safe for concurrent use.
type stmtCache struct {
	mu    sync.Mutex
	stmts map[*sql.DB]map[string]*sql.Stmt
}

// get returns query prepared on db. A failed preparation is not kept.
// Call it before beginning a transaction on db: preparing needs a
// connection of db, and the write handle has only one.
func (c *stmtCache) get(ctx context.Context, db *sql.DB, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.stmts[db][query]; st != nil {
		return st, nil
	}
	st, err := db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if c.stmts[db] == nil {
		c.stmts[db] = map[string]*sql.Stmt{}
	}
	c.stmts[db][query] = st
	return st, nil
}

const (
	idemLookupSQL = `SELECT tool_id, args_hash, result, error_code, error_message
		FROM tool_idempotency WHERE channel_id = ? AND tool_call_id = ? AND expires_at > ?`
	idemInsertSQL = `INSERT OR REPLACE INTO tool_idempotency
		(channel_id, tool_call_id, tool_id, args_hash, result, error_code, error_message, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
)

// recordable reports whether an ack is kept for replays: every outcome but
// rate_limited, which acted on nothing and says "retry later" (a retry
// with the same tool_call_id then runs).
func recordable(a ack) bool { return a.Err == nil || a.Err.Code != CodeRateLimited }

// claim either returns the ack of an earlier or running call with the same
// key (replayed true; it waits for a running one while ctx allows), or
// claims the key and returns the flight the caller must finish.
func (s *idempotency) claim(ctx context.Context, key idemKey, toolID string, h [32]byte) (f *flight, a ack, replayed bool, err error) {
	s.mu.Lock()
	if f := s.inflight[key]; f != nil {
		s.mu.Unlock()
		if f.toolID != toolID || f.argsHash != h {
			return nil, ack{}, false, errCallIDReused
		}
		if s.onWait != nil {
			s.onWait()
		}
		select {
		case <-f.done:
			return nil, f.ack, true, nil
		case <-ctx.Done():
			return nil, ack{}, false, ctx.Err()
		}
	}
	f = &flight{done: make(chan struct{}), key: key, toolID: toolID, argsHash: h}
	s.inflight[key] = f
	s.mu.Unlock()

	rec, found, err := s.lookup(ctx, key)
	if err != nil || found {
		if err == nil && (rec.toolID != toolID || rec.argsHash != h) {
			err = errCallIDReused
		}
		if err != nil {
			s.release(key, f, ack{Err: WireError(err)})
			return nil, ack{}, false, err
		}
		s.release(key, f, rec.ack)
		return nil, rec.ack, true, nil
	}
	return f, ack{}, false, nil
}

// release publishes a as f's ack and wakes the duplicates waiting on f.
// The record must be written first (see Tools.persist).
func (s *idempotency) release(key idemKey, f *flight, a ack) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f.ack = a
	if s.inflight[key] == f {
		delete(s.inflight, key)
	}
	close(f.done)
}

type idemRecord struct {
	toolID   string
	argsHash [32]byte
	ack      ack
}

// lookup reads the live record of key.
func (s *idempotency) lookup(ctx context.Context, key idemKey) (idemRecord, bool, error) {
	var (
		r       idemRecord
		hash    []byte
		result  sql.NullString
		code    string
		message string
	)
	st, err := s.stmts.get(ctx, s.db.Read, idemLookupSQL)
	if err != nil {
		return idemRecord{}, false, fmt.Errorf("idempotency lookup: %w", err)
	}
	err = st.QueryRowContext(ctx, key.channel, key.callID, s.now().UnixMilli()).Scan(&r.toolID, &hash, &result, &code, &message)
	if errors.Is(err, sql.ErrNoRows) {
		return idemRecord{}, false, nil
	}
	if err != nil {
		return idemRecord{}, false, fmt.Errorf("idempotency lookup: %w", err)
	}
	copy(r.argsHash[:], hash)
	if code != "" {
		r.ack.Err = &connector.Error{Code: code, Message: message}
	} else {
		r.ack.Result = json.RawMessage(result.String)
	}
	return r, true, nil
}

// insert writes the record of f's completed call in tx with ins (idemInsertSQL
// prepared on the write handle) and, at most once a minute, drops expired
// records.
func (s *idempotency) insert(ctx context.Context, tx *sql.Tx, ins *sql.Stmt, f *flight, a ack) error {
	now := s.now()
	var result sql.NullString
	var code, message string
	if a.Err != nil {
		code, message = a.Err.Code, a.Err.Message
	} else {
		result = sql.NullString{String: string(a.Result), Valid: true}
	}
	_, err := tx.StmtContext(ctx, ins).ExecContext(ctx, f.key.channel, f.key.callID, f.toolID, bytes.Clone(f.argsHash[:]), result, code, message,
		now.UnixMilli(), now.Add(s.ttl).UnixMilli())
	if err != nil {
		return fmt.Errorf("idempotency record: %w", err)
	}
	s.mu.Lock()
	sweep := now.Sub(s.lastSweep) >= time.Minute
	if sweep {
		s.lastSweep = now
	}
	s.mu.Unlock()
	if sweep {
		if _, err := tx.ExecContext(ctx, `DELETE FROM tool_idempotency WHERE expires_at <= ?`, now.UnixMilli()); err != nil {
			return fmt.Errorf("idempotency sweep: %w", err)
		}
	}
	return nil
}
