package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// FileName is the database file's name inside the data directory.
const FileName = "adb-connector.db"

// DB is the opened database: Write has exactly one connection, Read a pool.
// Both are safe for concurrent use. Close closes both.
type DB struct {
	Write *sql.DB
	Read  *sql.DB
	Path  string
}

// Open opens (creating if needed) the database in dir and migrates it to the
// newest schema. It fails if the file was written by a newer binary. The
// database and its -wal and -shm files are mode 0600 whatever dir's mode.
func Open(ctx context.Context, dir string) (*DB, error) {
	path := filepath.Join(dir, FileName)
	if err := createPrivate(path); err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=foreign_keys(ON)&_pragma=synchronous(NORMAL)"
	w, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	r, err := sql.Open("sqlite", dsn+"&_pragma=query_only(ON)")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	r.SetMaxOpenConns(4)
	db := &DB{Write: w, Read: r, Path: path}
	if err := db.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	// The migration opened the WAL. SQLite gives new -wal and -shm files the
	// database file's mode and resets an empty one, but ones with content,
	// left by a crash of an older binary, keep theirs.
	for _, p := range []string{path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			db.Close()
			return nil, fmt.Errorf("open database %s: %w", path, err)
		}
	}
	return db, nil
}

// createPrivate creates the database file at path with mode 0600 unless it
// exists, and tightens an existing one to 0600. SQLite would create it 0644
// less the umask, readable by every local user when the data directory
// already existed with a looser mode; the umask is process-wide, so a
// library must not change it. An empty file is a valid empty database.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Chmod(path, 0o600)
}

// Close closes both handles. Safe to call more than once.
func (db *DB) Close() error {
	return errors.Join(db.Write.Close(), db.Read.Close())
}

type migration struct {
	version int
	name    string
	sql     string
}

func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %q: name must start with a positive number and '_'", e.Name())
		}
		body, err := migrationFiles.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: e.Name(), sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i := 1; i < len(ms); i++ {
		if ms[i].version == ms[i-1].version {
			return nil, fmt.Errorf("migrations %q and %q share version %d", ms[i-1].name, ms[i].name, ms[i].version)
		}
	}
	return ms, nil
}

// migrate applies every embedded migration not yet recorded in
// schema_migrations, in version order. Each owning package numbers its
// migrations in its own range, so a migration added later may carry a lower
// number than one already applied: tracking each version (not only the
// highest, as PRAGMA user_version would) applies it all the same.
// user_version is kept at the highest applied version for inspection.
func (db *DB) migrate(ctx context.Context) error {
	return db.migrateWith(ctx, nil)
}

func (db *DB) migrateWith(ctx context.Context, extra []migration) error {
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	ms = append(ms, extra...)
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	if _, err := db.Write.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("schema_migrations: %w", err)
	}
	applied := map[int]bool{}
	rows, err := db.Write.QueryContext(ctx, "SELECT version FROM schema_migrations")
	if err != nil {
		return fmt.Errorf("read applied migrations: %w", err)
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return err
		}
		applied[v] = true
	}
	if err := rows.Close(); err != nil {
		return err
	}
	known := map[int]bool{}
	for _, m := range ms {
		known[m.version] = true
	}
	for v := range applied {
		if !known[v] {
			return fmt.Errorf("database %s has migration %d, which this binary does not know: it was written by a newer binary", db.Path, v)
		}
	}
	for _, m := range ms {
		if applied[m.version] {
			continue
		}
		tx, err := db.Write.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, strftime('%s','now'))", m.version, m.name); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		// PRAGMA takes no bind parameters; the version is our own integer.
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", max(m.version, highest(applied)))); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		applied[m.version] = true
	}
	return nil
}

func highest(applied map[int]bool) int {
	h := 0
	for v := range applied {
		h = max(h, v)
	}
	return h
}
