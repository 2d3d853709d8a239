package files

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/adb-connector/adb-connector/store"
)

// TestFileModes opens the database and the file store in a data directory
// and a files directory that already exist with mode 0755, stores a file,
// and checks every entry the two created or own: files 0600 (database,
// -wal, -shm, stored bytes), directories 0700 (files/, files/tmp).
func TestFileModes(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	filesDir := filepath.Join(dataDir, DefaultDirName)
	if err := os.Mkdir(filesDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dataDir, filesDir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	db, err := store.Open(ctx, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := Open(ctx, db, Config{JanitorInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ref, err := st.PutBytes(ctx, "ch", Meta{MIMEType: "image/png"}, []byte("screenshot"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	err = filepath.WalkDir(dataDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dataDir {
			return err
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
		rel, _ := filepath.Rel(dataDir, path)
		seen[rel] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		store.FileName, store.FileName + "-wal", store.FileName + "-shm",
		DefaultDirName, filepath.Join(DefaultDirName, tmpDirName), filepath.Join(DefaultDirName, ref.FileRef),
	} {
		if !seen[p] {
			t.Errorf("%s not found", p)
		}
	}
}
