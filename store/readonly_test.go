package store

import (
	"context"
	"errors"
	"testing"
)

// TestOpenReadOnly: the read-only handle reads what the server's handle
// wrote, refuses to write, and a directory with no database is
// ErrNoDatabase (the file is not created).
func TestOpenReadOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := OpenReadOnly(ctx, dir); !errors.Is(err, ErrNoDatabase) {
		t.Fatalf("empty dir: err %v, want ErrNoDatabase", err)
	}
	db, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Write.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('k', 'v')`); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenReadOnly(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	var v string
	if err := ro.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'k'`).Scan(&v); err != nil || v != "v" {
		t.Fatalf("read: %q %v", v, err)
	}
	if _, err := ro.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('k2', 'v')`); err == nil {
		t.Fatal("a write through the read-only handle succeeded")
	}
}
