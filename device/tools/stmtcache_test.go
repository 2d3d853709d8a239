package tools

import (
	"context"
	"database/sql"
	"testing"

	"github.com/adb-connector/adb-connector/store"
)

// TestStmtCache: a statement is prepared once per handle and reused; a
// statement that fails to prepare is not kept.
func TestStmtCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c := stmtCache{stmts: map[*sql.DB]map[string]*sql.Stmt{}}
	get := func(h *sql.DB, q string) *sql.Stmt {
		t.Helper()
		st, err := c.get(ctx, h, q)
		if err != nil {
			t.Fatalf("get %q: %v", q, err)
		}
		return st
	}
	for _, tc := range []struct {
		name string
		h    *sql.DB
		q    string
	}{
		{"lookup on the read handle", db.Read, idemLookupSQL},
		{"record on the write handle", db.Write, idemInsertSQL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if a, b := get(tc.h, tc.q), get(tc.h, tc.q); a != b {
				t.Fatal("the same statement was prepared twice")
			}
		})
	}
	if get(db.Read, "SELECT 1") == get(db.Write, "SELECT 1") {
		t.Fatal("two handles share one statement")
	}
	if _, err := c.get(ctx, db.Write, "SELECT FROM nowhere"); err == nil {
		t.Fatal("bad SQL prepared")
	}
	if st := c.stmts[db.Write]["SELECT FROM nowhere"]; st != nil {
		t.Fatal("a failed preparation was kept")
	}
}
