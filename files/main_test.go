package files

import (
	"context"
	"os"
	"testing"

	"github.com/adb-connector/adb-connector/store"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// env is a database directory with a Store on it that can be reopened.
type env struct {
	t       testing.TB
	dataDir string
	cfg     Config
	db      *store.DB
	st      *Store
}

// newEnv opens a real SQLite database in a temp dir and a Store on it with
// cfg (JanitorInterval -1 unless set: tests sweep explicitly).
func newEnv(t testing.TB, cfg Config) *env {
	t.Helper()
	if cfg.JanitorInterval == 0 {
		cfg.JanitorInterval = -1
	}
	e := &env{t: t, dataDir: t.TempDir(), cfg: cfg}
	e.open()
	t.Cleanup(e.close)
	return e
}

func (e *env) open() {
	e.t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, e.dataDir)
	if err != nil {
		e.t.Fatal(err)
	}
	st, err := Open(ctx, db, e.cfg)
	if err != nil {
		db.Close()
		e.t.Fatal(err)
	}
	e.db, e.st = db, st
}

func (e *env) close() {
	if e.st == nil {
		return
	}
	if err := e.st.Close(); err != nil {
		e.t.Error(err)
	}
	if err := e.db.Close(); err != nil {
		e.t.Error(err)
	}
	e.st, e.db = nil, nil
}

func (e *env) reopen() {
	e.t.Helper()
	e.close()
	e.open()
}

func (e *env) put(channel string, data []byte, meta Meta) Ref {
	e.t.Helper()
	ref, err := e.st.PutBytes(context.Background(), channel, meta, data)
	if err != nil {
		e.t.Fatalf("put: %v", err)
	}
	return ref
}

// exists reports whether ref's file is on disk.
func (e *env) exists(ref string) bool {
	_, err := os.Stat(e.st.path(ref))
	return err == nil
}
