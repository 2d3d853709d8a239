package connector

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// state holds connector_ids (runtime instances, §8.2) and channels (§8.3),
// mirrored in SQLite (tables connectors and channels, migration 0010) so they
// survive restarts. One mutex guards the maps; rows are written under it so
// the file and memory never disagree. Lease timers run for connector_ids with
// no data plane; expiry deletes the rows and calls Profile.ChannelsReleased.
type state struct {
	s  *Server
	mu sync.Mutex
	// connectors by connector_id
	connectors map[string]*connectorRec
	// channels by connector_channel_id
	channels map[string]*channelRec
	stopped  bool
	expiring sync.WaitGroup
}

type connectorRec struct {
	id    string
	conns map[*conn]struct{}
	timer *time.Timer
	gen   uint64 // bumped on every lease start/cancel; a stale timer sees a newer gen
}

type channelRec struct {
	id          string
	connectorID string
	profiles    []string
	conn        *conn // the connection holding it open, nil when closed
	// linkSince is when conn last changed (open or closed; the load for
	// a restored channel): what an operator reads as "up since" or
	// "gone since".
	linkSince time.Time
}

func newState(s *Server) *state {
	return &state{s: s, connectors: map[string]*connectorRec{}, channels: map[string]*channelRec{}}
}

func (r *channelRec) channel() Channel {
	return Channel{ID: r.id, ConnectorID: r.connectorID, Profiles: slices.Clone(r.profiles)}
}

// load reads persisted connectors and channels and starts a lease for each
// connector_id: restored channels that no hello claims within the grace are
// released like an expired lease (§8.2).
func (st *state) load(ctx context.Context) error {
	db := st.s.cfg.DB
	rows, err := db.Read.QueryContext(ctx, `SELECT connector_id FROM connectors WHERE card_id = ?`, st.s.card.CardID)
	if err != nil {
		return err
	}
	defer rows.Close()
	st.mu.Lock()
	defer st.mu.Unlock()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		st.connectors[id] = &connectorRec{id: id, conns: map[*conn]struct{}{}}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	crows, err := db.Read.QueryContext(ctx, `SELECT channel_id, connector_id, profiles FROM channels`)
	if err != nil {
		return err
	}
	defer crows.Close()
	for crows.Next() {
		var id, cid, profs string
		if err := crows.Scan(&id, &cid, &profs); err != nil {
			return err
		}
		if st.connectors[cid] == nil {
			continue
		}
		var pl []string
		if profs != "" {
			pl = strings.Split(profs, ",")
		}
		st.channels[id] = &channelRec{id: id, connectorID: cid, profiles: pl, linkSince: time.Now()}
	}
	if err := crows.Err(); err != nil {
		return err
	}
	for _, rec := range st.connectors {
		st.startLeaseLocked(rec)
	}
	if n := len(st.connectors); n > 0 {
		st.s.log.Info("restored persisted state", "connector_ids", n, "channels", len(st.channels),
			"lease_grace", st.s.cfg.LeaseGrace.String())
	}
	return nil
}

// hello binds c to connector_id requested when known (cancelling its lease),
// else issues and persists a new one.
func (st *state) hello(ctx context.Context, c *conn, requested string) (string, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	now := time.Now().UnixMilli()
	rec := st.connectors[requested]
	if rec == nil {
		id := connectorIDPrefix + strings.NewReplacer(".", "_", "-", "_").Replace(st.s.card.CardID) + "_" + randomID("")[:16]
		if _, err := st.s.cfg.DB.Write.ExecContext(ctx,
			`INSERT INTO connectors (connector_id, card_id, created_ms, seen_ms) VALUES (?, ?, ?, ?)`,
			id, st.s.card.CardID, now, now); err != nil {
			return "", fmt.Errorf("insert connector: %w", err)
		}
		rec = &connectorRec{id: id, conns: map[*conn]struct{}{}}
		st.connectors[id] = rec
	} else {
		if _, err := st.s.cfg.DB.Write.ExecContext(ctx,
			`UPDATE connectors SET seen_ms = ? WHERE connector_id = ?`, now, rec.id); err != nil {
			return "", fmt.Errorf("update connector: %w", err)
		}
	}
	if rec.timer != nil {
		rec.timer.Stop()
		rec.timer = nil
	}
	rec.gen++
	rec.conns[c] = struct{}{}
	return rec.id, nil
}

// connClosed detaches c; when it was the last data plane of its connector_id
// the lease starts.
func (st *state) connClosed(c *conn) {
	id, _ := c.hello()
	if id == "" {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, ch := range st.channels {
		if ch.conn == c {
			ch.conn, ch.linkSince = nil, time.Now()
		}
	}
	rec := st.connectors[id]
	if rec == nil {
		return
	}
	delete(rec.conns, c)
	if len(rec.conns) == 0 && !st.stopped {
		st.startLeaseLocked(rec)
	}
}

func (st *state) startLeaseLocked(rec *connectorRec) {
	if rec.timer != nil {
		rec.timer.Stop()
	}
	rec.gen++
	gen, id := rec.gen, rec.id
	rec.timer = time.AfterFunc(st.s.cfg.LeaseGrace, func() { st.expire(id, gen) })
}

// expire unregisters connector_id id and its channels if lease generation gen
// is still current (no hello came in between).
func (st *state) expire(id string, gen uint64) {
	st.mu.Lock()
	rec := st.connectors[id]
	if st.stopped || rec == nil || rec.gen != gen || len(rec.conns) > 0 {
		st.mu.Unlock()
		return
	}
	st.expiring.Add(1)
	defer st.expiring.Done()
	var released []Channel
	for cid, ch := range st.channels {
		if ch.connectorID == id {
			released = append(released, ch.channel())
			delete(st.channels, cid)
		}
	}
	delete(st.connectors, id)
	ctx := st.s.baseCtx
	// channels rows go with it: ON DELETE CASCADE (migration 0010, store
	// opens every handle with foreign_keys on).
	_, err := st.s.cfg.DB.Write.ExecContext(ctx, `DELETE FROM connectors WHERE connector_id = ?`, id)
	st.mu.Unlock()
	if err != nil {
		st.s.log.Error("lease expiry: delete rows", "connector_id", id, "err", err)
	}
	st.s.metrics.leaseExpiries.Inc()
	st.s.log.Info("connector_id lease expired; unregistered", "connector_id", id, "channels", len(released))
	if p := st.s.cfg.Profile; p != nil && len(released) > 0 {
		slices.SortFunc(released, func(a, b Channel) int { return strings.Compare(a.ID, b.ID) })
		p.ChannelsReleased(ctx, released)
	}
}

// stopTimers stops every lease timer without expiring and waits for expiries
// already running. Called by Shutdown.
func (st *state) stopTimers() {
	st.mu.Lock()
	st.stopped = true
	for _, rec := range st.connectors {
		if rec.timer != nil {
			rec.timer.Stop()
		}
	}
	st.mu.Unlock()
	st.expiring.Wait()
}

// leasePending reports whether connector_id id has a running lease timer
// (for tests).
func (st *state) leasePending(id string) (known, pending bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	rec := st.connectors[id]
	if rec == nil {
		return false, false
	}
	return true, rec.timer != nil && len(rec.conns) == 0
}

// open implements channel.open for c: restore a known channel, adopt one
// whose connector_id has no live data plane, or create a new one.
func (st *state) open(ctx context.Context, c *conn, requested string) (Channel, *Error) {
	connectorID, profiles := c.hello()
	st.mu.Lock()
	defer st.mu.Unlock()
	if rec := st.channels[requested]; requested != "" && rec != nil {
		if rec.connectorID != connectorID {
			if owner := st.connectors[rec.connectorID]; owner != nil && len(owner.conns) > 0 {
				return Channel{}, &Error{Code: CodeChannelConnectorMismatch, Message: genericChannelMismatchMessage}
			}
		}
		if _, err := st.s.cfg.DB.Write.ExecContext(ctx,
			`UPDATE channels SET connector_id = ?, profiles = ? WHERE channel_id = ?`,
			connectorID, strings.Join(profiles, ","), rec.id); err != nil {
			st.s.log.Error("channel.open: update channel", "err", err)
			return Channel{}, &Error{Code: CodeInternal, Message: genericInternalMessage}
		}
		rec.connectorID, rec.profiles, rec.conn, rec.linkSince = connectorID, profiles, c, time.Now()
		return rec.channel(), nil
	}
	id := randomID(channelIDPrefix)
	if _, err := st.s.cfg.DB.Write.ExecContext(ctx,
		`INSERT INTO channels (channel_id, connector_id, profiles, created_ms) VALUES (?, ?, ?, ?)`,
		id, connectorID, strings.Join(profiles, ","), time.Now().UnixMilli()); err != nil {
		st.s.log.Error("channel.open: insert channel", "err", err)
		return Channel{}, &Error{Code: CodeInternal, Message: genericInternalMessage}
	}
	rec := &channelRec{id: id, connectorID: connectorID, profiles: profiles, conn: c, linkSince: time.Now()}
	st.channels[id] = rec
	return rec.channel(), nil
}

func (st *state) closeChannel(c *conn, id string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if rec := st.channels[id]; rec != nil && rec.conn == c {
		rec.conn, rec.linkSince = nil, time.Now()
	}
}

// resolve checks a user-level packet's channel for connection c (§7, §8.23).
func (st *state) resolve(c *conn, connectorID, id string, closedOK bool) (Channel, *Error) {
	if id == "" {
		return Channel{}, &Error{Code: CodeChannelIDRequired, Message: genericChannelIDRequiredMessage}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	rec := st.channels[id]
	switch {
	case rec == nil:
		return Channel{}, &Error{Code: CodeConnectionNotFound, Message: genericChannelUnknownMessage}
	case rec.connectorID != connectorID:
		return Channel{}, &Error{Code: CodeChannelConnectorMismatch, Message: genericChannelMismatchMessage}
	case rec.conn != c && !closedOK:
		return Channel{}, &Error{Code: CodeChannelNotOpen, Message: genericChannelNotOpenMessage}
	}
	return rec.channel(), nil
}

// holder returns the channel and the connection holding it open (nil if none).
func (st *state) holder(id string) (Channel, *conn, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	rec := st.channels[id]
	if rec == nil {
		return Channel{}, nil, false
	}
	return rec.channel(), rec.conn, true
}

// link is whether channel id is open on a connection and since when it is
// (or is not); ok is false for an unknown channel.
func (st *state) link(id string) (open bool, since time.Time, ok bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	rec := st.channels[id]
	if rec == nil {
		return false, time.Time{}, false
	}
	return rec.conn != nil, rec.linkSince, true
}
