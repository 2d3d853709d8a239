package device

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
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
var errCallIDReused = &ArgError{Field: "context.tool_call_id", Reason: "was already used on this channel for a different call"}

// idempotency makes a tool_call_id act once per channel: in memory while a
// call runs (duplicates wait for it), in SQLite once it completed (for TTL).
// Safe for concurrent use.
type idempotency struct {
	db  *store.DB
	ttl time.Duration
	now func() time.Time
	log *slog.Logger

	mu        sync.Mutex
	inflight  map[idemKey]*flight
	lastSweep time.Time

	// onWait, when set (tests), is called as a duplicate starts waiting
	// for the running call with its key.
	onWait func()
}

func newIdempotency(db *store.DB, ttl time.Duration, now func() time.Time, log *slog.Logger) *idempotency {
	return &idempotency{db: db, ttl: ttl, now: now, log: log, inflight: map[idemKey]*flight{}}
}

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

// finish records a (unless record is false) and wakes the duplicates
// waiting on f. The record is written even when ctx is canceled: the
// device may have acted.
func (s *idempotency) finish(ctx context.Context, f *flight, a ack, record bool) {
	if record {
		if err := s.store(context.WithoutCancel(ctx), f.key, f, a); err != nil {
			s.log.Warn("idempotency record not written", "tool", f.toolID, "err", err)
		}
	}
	s.release(f.key, f, a)
}

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
	err := s.db.Read.QueryRowContext(ctx, `SELECT tool_id, args_hash, result, error_code, error_message
		FROM tool_idempotency WHERE channel_id = ? AND tool_call_id = ? AND expires_at > ?`,
		key.channel, key.callID, s.now().UnixMilli()).Scan(&r.toolID, &hash, &result, &code, &message)
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

// store writes the record and, at most once a minute, drops expired ones.
func (s *idempotency) store(ctx context.Context, key idemKey, f *flight, a ack) error {
	now := s.now()
	var result sql.NullString
	var code, message string
	if a.Err != nil {
		code, message = a.Err.Code, a.Err.Message
	} else {
		result = sql.NullString{String: string(a.Result), Valid: true}
	}
	_, err := s.db.Write.ExecContext(ctx, `INSERT OR REPLACE INTO tool_idempotency
		(channel_id, tool_call_id, tool_id, args_hash, result, error_code, error_message, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		key.channel, key.callID, f.toolID, bytes.Clone(f.argsHash[:]), result, code, message,
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
		if _, err := s.db.Write.ExecContext(ctx, `DELETE FROM tool_idempotency WHERE expires_at <= ?`, now.UnixMilli()); err != nil {
			return fmt.Errorf("idempotency sweep: %w", err)
		}
	}
	return nil
}
