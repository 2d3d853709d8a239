package binding

import (
	"context"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/adb-connector/adb-connector/internal/testkit"
	"github.com/adb-connector/adb-connector/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testEnv is a real SQLite database in a temp dir with the table on it,
// recording the channels OnChange reports.
type testEnv struct {
	dir      string
	db       *store.DB
	clock    *testkit.Clock
	bindings *Table

	mu      sync.Mutex
	changed []string
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := &testEnv{dir: dir, db: db, clock: testkit.NewClock()}
	e.bindings = New(db, Options{Now: e.clock.Now, OnChange: func(ch ...string) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.changed = append(e.changed, ch...)
	}})
	return e
}

func (e *testEnv) takeChanged() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.changed
	e.changed = nil
	return c
}
