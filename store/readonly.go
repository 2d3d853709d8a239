package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
)

// ErrNoDatabase: the data directory holds no database (wrong --data-dir,
// or a server that never ran there).
var ErrNoDatabase = errors.New("no database")

// OpenReadOnly opens the database in dir for reading only, for operator
// commands that run beside (or without) the server, which stays the only
// writer. It neither creates the file nor migrates it; SQLite's WAL lets it
// read while the server writes. The caller closes the handle.
func OpenReadOnly(ctx context.Context, dir string) (*sql.DB, error) {
	path := filepath.Join(dir, FileName)
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("open database %s: %w", path, ErrNoDatabase)
		}
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	// mode=ro: never creates or writes the file; query_only on top, so no
	// statement can write even if the mode were ignored.
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?mode=ro&_pragma=busy_timeout(5000)&_pragma=query_only(ON)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	return db, nil
}
