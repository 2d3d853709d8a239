package audit

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Bounds of Query.Limit.
const (
	DefaultLimit = 100
	MaxLimit     = 10000
)

// Query selects records; every set field narrows the selection. The zero
// value means the newest DefaultLimit of every channel.
type Query struct {
	ChannelID  string    // only this channel: its id or a prefix of it (its short label)
	DeviceHint string    // only this redacted serial (redact.SerialHint)
	ToolID     string    // only this tool
	Outcome    string    // only this outcome: "ok" or a wire error code
	Since      time.Time // only records at or after Since
	Until      time.Time // only records before Until
	// AfterID keeps only records written after the one with this ID, and
	// returns the oldest first: a follower polls with the last ID it saw.
	AfterID int64
	// Limit caps the records: default DefaultLimit, at most MaxLimit.
	// Newest first, unless AfterID is set.
	Limit int
}

// Read returns the records q selects from db, which may be the server's
// read handle or a read-only one an operator command opened
// (store.OpenReadOnly). Safe for concurrent use.
func Read(ctx context.Context, db *sql.DB, q Query) ([]Record, error) {
	if q.Limit <= 0 {
		q.Limit = DefaultLimit
	}
	q.Limit = min(q.Limit, MaxLimit)
	var where []string
	var args []any
	add := func(cond string, v any) {
		where = append(where, cond)
		args = append(args, v)
	}
	if q.ChannelID != "" {
		// A prefix, so the short label an operator reads
		// (redact.ChannelLabel) selects its channel (ids have one length:
		// a whole id is a prefix of itself only). As a range, which the
		// index on channel_id serves: 0xff follows every byte of UTF-8
		// text in SQLite's BINARY (memcmp) order.
		where = append(where, "channel_id >= ? AND channel_id < ?")
		args = append(args, q.ChannelID, q.ChannelID+"\xff")
	}
	if q.DeviceHint != "" {
		add("device_hint = ?", q.DeviceHint)
	}
	if q.ToolID != "" {
		add("tool_id = ?", q.ToolID)
	}
	if q.Outcome != "" {
		add("outcome = ?", q.Outcome)
	}
	if !q.Since.IsZero() {
		add("at_ms >= ?", q.Since.UnixMilli())
	}
	if !q.Until.IsZero() {
		add("at_ms < ?", q.Until.UnixMilli())
	}
	order := "at_ms DESC, id DESC"
	if q.AfterID > 0 {
		add("id > ?", q.AfterID)
		order = "id ASC"
	}
	sqlText := `SELECT id, at_ms, channel_id, device_hint, tool_id, tool_call_id,
		args, outcome, latency_ms, replayed FROM tool_audit`
	if len(where) > 0 {
		sqlText += " WHERE " + strings.Join(where, " AND ")
	}
	sqlText += " ORDER BY " + order + " LIMIT ?"
	args = append(args, q.Limit)
	rows, err := db.QueryContext(ctx, sqlText, args...)
	if err != nil {
		return nil, fmt.Errorf("audit query: %w", err)
	}
	defer rows.Close()
	var out []Record
	for rows.Next() {
		var (
			r         Record
			at, lat   int64
			argsText  string
			replayedN int
		)
		if err := rows.Scan(&r.ID, &at, &r.ChannelID, &r.DeviceHint, &r.ToolID, &r.ToolCallID, &argsText, &r.Outcome, &lat, &replayedN); err != nil {
			return nil, fmt.Errorf("audit query: %w", err)
		}
		r.At = time.UnixMilli(at)
		r.Args = json.RawMessage(argsText)
		r.Latency = time.Duration(lat) * time.Millisecond
		r.Replayed = replayedN != 0
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit query: %w", err)
	}
	return out, nil
}

// LastID returns the ID of the newest record, 0 when there is none: where
// a follower starts.
func LastID(ctx context.Context, db *sql.DB) (int64, error) {
	var id sql.NullInt64
	if err := db.QueryRowContext(ctx, `SELECT MAX(id) FROM tool_audit`).Scan(&id); err != nil {
		return 0, fmt.Errorf("audit query: %w", err)
	}
	return id.Int64, nil
}

// Follow reads what q selects and hands it to emit oldest first, as a log
// reads (emit is called once, maybe with none); with follow, it then polls
// every poll for the rows written after the newest it handed over, and
// hands them on until ctx ends, which returns ctx's error. db may be a
// read-only handle (store.OpenReadOnly).
func Follow(ctx context.Context, db *sql.DB, q Query, follow bool, poll time.Duration, emit func([]Record) error) error {
	// Taken before the first query: with nothing to hand over yet,
	// following starts here, so a row written meanwhile is not missed.
	last, err := LastID(ctx, db)
	if err != nil {
		return err
	}
	recs, err := Read(ctx, db, q)
	if err != nil {
		return err
	}
	slices.Reverse(recs)
	if err := emit(recs); err != nil || !follow {
		return err
	}
	if len(recs) > 0 {
		// The newest matching row: a matching row with a higher id was
		// written after the query.
		last = recs[len(recs)-1].ID
	}
	q.Limit = MaxLimit
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		for {
			q.AfterID = last
			recs, err := Read(ctx, db, q)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err != nil {
				return err
			}
			if len(recs) == 0 {
				break
			}
			if err := emit(recs); err != nil {
				return err
			}
			last = recs[len(recs)-1].ID
			if len(recs) < q.Limit {
				break
			}
		}
	}
}
