package files

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/adb-connector/adb-connector/internal/testkit"
)

// assertIndexMatchesTable checks that the in-memory index holds exactly the
// rows of the files table, field for field.
func assertIndexMatchesTable(t *testing.T, e *env) {
	t.Helper()
	rows, err := e.st.queryEntries(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]entry{}
	for _, r := range rows {
		want[r.FileRef] = r
	}
	e.st.idxMu.RLock()
	got := e.st.idx
	e.st.idxMu.RUnlock()
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(entry{})); diff != "" {
		t.Fatalf("index differs from the files table (-table +index):\n%s", diff)
	}
}

// TestIndexFollowsTable: every change of the table (put, eviction, channel
// delete, expiry sweep, restart) leaves the download index equal to it.
func TestIndexFollowsTable(t *testing.T) {
	t.Parallel()
	clock := testkit.NewClock()
	e := newEnv(t, Config{Now: clock.Now, MaxTotalBytes: 10, TTL: time.Minute})
	steps := []struct {
		name string
		do   func()
	}{
		{"empty", func() {}},
		{"put", func() {
			e.put("a", []byte("1234"), Meta{MIMEType: "image/png", Width: 2, Height: 3})
			e.put("b", []byte("5678"), Meta{Filename: "x.txt"})
		}},
		{"evict oldest for space", func() {
			clock.Advance(time.Second)
			e.put("a", []byte("abcd"), Meta{})
		}},
		{"delete channel", func() {
			if err := e.st.DeleteChannel(context.Background(), "b"); err != nil {
				t.Fatal(err)
			}
		}},
		{"expiry sweep", func() {
			clock.Advance(30 * time.Second)
			e.put("c", []byte("z"), Meta{})
			clock.Advance(40 * time.Second)
			if err := e.st.Sweep(context.Background()); err != nil {
				t.Fatal(err)
			}
		}},
		{"restart", func() {
			e.put("d", []byte("zz"), Meta{MIMEType: "image/jpeg"})
			e.reopen()
		}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			s.do()
			assertIndexMatchesTable(t, e)
		})
	}
	e.st.idxMu.RLock()
	n := len(e.st.idx)
	e.st.idxMu.RUnlock()
	if n != 2 { // "c" and "d"
		t.Fatalf("index holds %d refs after the steps, want 2", n)
	}
}
