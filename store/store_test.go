package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestOpenMigratesAndReopens(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	db, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	var v int
	if err := db.Read.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if want := ms[len(ms)-1].version; v != want {
		t.Fatalf("user_version = %d, want %d", v, want)
	}
	var mode string
	if err := db.Read.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v; want wal", mode, err)
	}
	if _, err := db.Read.ExecContext(ctx, "INSERT INTO meta(key, value) VALUES ('a', 'b')"); err == nil {
		t.Fatal("read handle accepted a write")
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(ctx, dir)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	db.Close()
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	db, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Write.ExecContext(ctx, "INSERT INTO schema_migrations(version, name, applied_at) VALUES (99999, '99999_future.sql', 0)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Open(ctx, dir); err == nil {
		t.Fatal("opened a database from a newer binary")
	}
}

// A package's migration added after a higher-numbered one of another
// package was applied must still run on existing databases.
func TestLowerNumberedMigrationAddedLaterIsApplied(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	db, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	late := migration{version: 21, name: "0021_late.sql", sql: "CREATE TABLE late_table (x INTEGER)"}
	if err := db.migrateWith(ctx, []migration{late}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Read.ExecContext(ctx, "SELECT x FROM late_table"); err != nil {
		t.Fatalf("migration 0021 was skipped: %v", err)
	}
	// Applying again is a no-op.
	if err := db.migrateWith(ctx, []migration{late}); err != nil {
		t.Fatal(err)
	}
	db.Close()
}

func TestOpenUnwritableDir(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "missing", "deeper")
	if _, err := Open(context.Background(), dir); err == nil {
		t.Fatal("opened a database in a directory that does not exist")
	}
	_ = os.Remove(dir)
}
