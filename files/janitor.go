package files

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// victim is a row about to be removed.
type victim struct {
	ref  string
	size int64
}

// janitor runs Sweep every interval until ctx is canceled.
func (s *Store) janitor(ctx context.Context, interval time.Duration) {
	defer close(s.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.Sweep(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("file sweep failed", "err", err)
			}
		}
	}
}

// Sweep removes expired files, rows whose file is missing or has the wrong
// size, and files named like a ref that have no row. Files with other names
// are left alone. The janitor calls it every JanitorInterval and Open once;
// calling it directly is safe at any time.
func (s *Store) Sweep(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()

	rows, err := s.queryEntries(ctx)
	if err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	now := s.cfg.Now()
	live := make(map[string]entry, len(rows))
	var expired, broken []victim
	var totalBytes int64
	for _, e := range rows {
		v := victim{ref: e.FileRef, size: e.ByteSize}
		if !now.Before(e.ExpiresAt) {
			expired = append(expired, v)
			continue
		}
		if !ValidRef(v.ref) {
			broken = append(broken, v)
			continue
		}
		fi, err := os.Lstat(s.path(v.ref))
		if err != nil || !fi.Mode().IsRegular() || fi.Size() != v.size {
			broken = append(broken, v)
			continue
		}
		live[v.ref] = e
		totalBytes += v.size
	}
	if err := s.removeLocked(ctx, append(expired, broken...)); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	s.metrics.expired.Add(float64(len(expired)))

	entries, err := os.ReadDir(s.cfg.Dir)
	if err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	orphans := 0
	for _, de := range entries {
		name := de.Name()
		if _, ok := live[name]; !ValidRef(name) || ok || !de.Type().IsRegular() {
			continue
		}
		if err := os.Remove(s.path(name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.log.Warn("remove orphan file", "file_ref", redactRef(name), "err", err)
			continue
		}
		orphans++
	}

	s.idxMu.Lock()
	s.idx = live
	s.idxMu.Unlock()
	s.totalBytes = totalBytes
	s.publishTotalsLocked()
	if len(expired)+len(broken)+orphans > 0 {
		s.log.Debug("file sweep", "expired", len(expired), "missing_or_truncated", len(broken),
			"orphans", orphans, "files", len(live), "bytes", s.totalBytes)
	}
	return nil
}

// evictFor removes the oldest files until n more bytes fit under
// MaxTotalBytes. s.mu must be held.
func (s *Store) evictFor(ctx context.Context, n int64) error {
	need := s.totalBytes + n - s.cfg.MaxTotalBytes
	if need <= 0 {
		return nil
	}
	rows, err := s.db.Read.QueryContext(ctx,
		`SELECT file_ref, byte_size FROM files ORDER BY created_at_ms, rowid`)
	if err != nil {
		return fmt.Errorf("evict: %w", err)
	}
	var victims []victim
	var freed int64
	for freed < need && rows.Next() {
		var v victim
		if err := rows.Scan(&v.ref, &v.size); err != nil {
			rows.Close()
			return fmt.Errorf("evict: %w", err)
		}
		victims = append(victims, v)
		freed += v.size
	}
	err = errors.Join(rows.Err(), rows.Close())
	if err != nil {
		return fmt.Errorf("evict: %w", err)
	}
	if err := s.removeLocked(ctx, victims); err != nil {
		return fmt.Errorf("evict: %w", err)
	}
	s.metrics.evictions.Add(float64(len(victims)))
	s.log.Debug("files evicted for space", "files", len(victims), "bytes", freed)
	return nil
}

// queryEntries reads every row of the index.
func (s *Store) queryEntries(ctx context.Context) ([]entry, error) {
	rows, err := s.db.Read.QueryContext(ctx, `SELECT file_ref, channel_id, mime_type, filename, byte_size,
		width, height, created_at_ms, expires_at_ms FROM files`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var es []entry
	for rows.Next() {
		var e entry
		var createdMS, expiresMS int64
		if err := rows.Scan(&e.FileRef, &e.channelID, &e.MIMEType, &e.Filename, &e.ByteSize, &e.Width, &e.Height,
			&createdMS, &expiresMS); err != nil {
			return nil, err
		}
		e.DownloadURL = DownloadPrefix + e.FileRef
		e.createdAt = time.UnixMilli(createdMS)
		e.ExpiresAt = time.UnixMilli(expiresMS)
		es = append(es, e)
	}
	return es, rows.Err()
}

func (s *Store) queryVictims(ctx context.Context, query string, args ...any) ([]victim, error) {
	rows, err := s.db.Read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var vs []victim
	for rows.Next() {
		var v victim
		if err := rows.Scan(&v.ref, &v.size); err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	return vs, rows.Err()
}

// removeLocked deletes the rows, then the files. s.mu must be held.
func (s *Store) removeLocked(ctx context.Context, vs []victim) error {
	if len(vs) == 0 {
		return nil
	}
	tx, err := s.db.Write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for _, v := range vs {
		if _, err := tx.ExecContext(ctx, `DELETE FROM files WHERE file_ref = ?`, v.ref); err != nil {
			tx.Rollback()
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	s.idxMu.Lock()
	for _, v := range vs {
		delete(s.idx, v.ref)
	}
	s.idxMu.Unlock()
	for _, v := range vs {
		if !ValidRef(v.ref) {
			// Not a name this package writes: never turn it into a path.
		} else if err := os.Remove(s.path(v.ref)); err != nil && !errors.Is(err, os.ErrNotExist) {
			// The row is gone; the next sweep removes the file as an orphan.
			s.log.Warn("remove file", "file_ref", redactRef(v.ref), "err", err)
		}
		s.totalBytes -= v.size
	}
	s.publishTotalsLocked()
	return nil
}
