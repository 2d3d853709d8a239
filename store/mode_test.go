package store

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenFileModes opens the database in a data directory that already
// exists with mode 0755 (so the directory does not hide its files) and
// checks that the database and its -wal and -shm companions, present after
// a write, are 0600. Under the usual umask 022 SQLite's own default would
// make them 0644: readable by every local user.
func TestOpenFileModes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		// prepare runs on the 0755 directory before Open.
		prepare func(t *testing.T, dir string)
	}{
		{name: "new database", prepare: func(*testing.T, string) {}},
		{name: "older 0644 files", prepare: func(t *testing.T, dir string) {
			// The database, WAL and shared memory of a live database, as a
			// crash of an older binary that left them 0644 would leave them.
			// Non-empty: SQLite itself resets the mode of an empty file it
			// opens, not of one with content.
			src := t.TempDir()
			db, err := Open(context.Background(), src)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Write.Exec("INSERT INTO meta(key, value) VALUES ('old', 'x')"); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{FileName, FileName + "-wal", FileName + "-shm"} {
				b, err := os.ReadFile(filepath.Join(src, name))
				if err != nil {
					t.Fatal(err)
				}
				if len(b) == 0 {
					t.Fatalf("%s is empty", name)
				}
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(p, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.Chmod(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			tt.prepare(t, dir)
			db, err := Open(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Write.Exec("INSERT INTO meta(key, value) VALUES ('k', 'v')"); err != nil {
				t.Fatal(err)
			}
			var n int
			if err := db.Read.QueryRow("SELECT count(*) FROM meta").Scan(&n); err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{FileName: false, FileName + "-wal": false, FileName + "-shm": false}
			checkPrivate(t, dir, func(path string) {
				if _, ok := want[filepath.Base(path)]; ok {
					want[filepath.Base(path)] = true
				}
			})
			for name, seen := range want {
				if !seen {
					t.Errorf("%s not created", name)
				}
			}
		})
	}
}

// checkPrivate fails t for every file under root, root excluded, that is
// not 0600 and every directory that is not 0700, and calls seen for each
// regular file.
func checkPrivate(t testing.TB, root string, seen func(path string)) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == root {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %#o, want %#o", path, got, want)
		}
		if fi.Mode().IsRegular() && seen != nil {
			seen(path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
