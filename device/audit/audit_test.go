package audit

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/device/redact"
	"github.com/adb-connector/adb-connector/internal/testkit"
	"github.com/adb-connector/adb-connector/store"
)

func openDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestWriteAndRead: rows come back newest first with every field, filtered
// by each field; a follower after an id gets the newer ones oldest first.
func TestWriteAndRead(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	clock := testkit.NewClock()
	w := NewWriter(db.Write, 0, clock.Now)
	t.Cleanup(func() { w.Close() })
	ctx := t.Context()
	for i, r := range []Record{
		{ChannelID: "c1", DeviceHint: "…AAAA", ToolID: "android_tap", ToolCallID: "t1", Args: json.RawMessage(`{"x":1}`), Outcome: OutcomeOK, Latency: 12 * time.Millisecond},
		{ChannelID: "cch_3f9a1c0d2e4b5a69788796a5b4c3d2e1", DeviceHint: "…BBBB", ToolID: ResetToolID, Outcome: "reset_failed"},
		{ChannelID: "c1", DeviceHint: "…AAAA", ToolID: "android_tap", ToolCallID: "t1", Outcome: OutcomeOK, Replayed: true},
	} {
		r.At = clock.Now()
		if err := w.Write(ctx, r); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		clock.Advance(time.Second)
	}
	all, err := Read(ctx, db.Read, Query{})
	if err != nil || len(all) != 3 {
		t.Fatalf("read all: %d rows, %v", len(all), err)
	}
	if !all[0].Replayed || all[2].Latency != 12*time.Millisecond || string(all[2].Args) != `{"x":1}` || string(all[1].Args) != "{}" {
		t.Errorf("rows not as written, newest first: %+v", all)
	}
	for _, tc := range []struct {
		q    Query
		want int
	}{
		{Query{ChannelID: "c1"}, 2},
		{Query{ChannelID: redact.ChannelLabel("cch_3f9a1c0d2e4b5a69788796a5b4c3d2e1")}, 1}, // the short label
		{Query{ChannelID: "cch_3f9a1c0d2e4b5a69788796a5b4c3d2e1"}, 1},
		{Query{ChannelID: "cch_3f9a1d"}, 0},
		{Query{DeviceHint: "…BBBB"}, 1},
		{Query{ToolID: ResetToolID}, 1},
		{Query{Outcome: OutcomeOK}, 2},
		{Query{Since: all[1].At}, 2},
		{Query{Until: all[1].At}, 1},
		{Query{Limit: 1}, 1},
	} {
		if got, err := Read(ctx, db.Read, tc.q); err != nil || len(got) != tc.want {
			t.Errorf("%+v: %d rows, %v; want %d", tc.q, len(got), err, tc.want)
		}
	}
	after, err := Read(ctx, db.Read, Query{AfterID: all[2].ID})
	if err != nil || len(after) != 2 || after[0].ID != all[1].ID {
		t.Errorf("after the first: %+v %v, want the two newer, oldest first", after, err)
	}
	if last, err := LastID(ctx, db.Read); err != nil || last != all[0].ID {
		t.Errorf("LastID = %d %v, want %d", last, err, all[0].ID)
	}
}

// TestRetention: a write prunes rows past the retention, at most once a
// day (the first write included).
func TestRetention(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	clock := testkit.NewClock()
	w := NewWriter(db.Write, time.Hour, clock.Now)
	t.Cleanup(func() { w.Close() })
	ctx := t.Context()
	write := func() {
		t.Helper()
		if err := w.Write(ctx, Record{At: clock.Now(), ChannelID: "c", ToolID: "t", Outcome: OutcomeOK}); err != nil {
			t.Fatal(err)
		}
	}
	count := func() int {
		t.Helper()
		rs, err := Read(ctx, db.Read, Query{})
		if err != nil {
			t.Fatal(err)
		}
		return len(rs)
	}
	write()
	clock.Advance(2 * time.Hour)
	write()
	if n := count(); n != 2 {
		t.Fatalf("within the day: %d rows, want 2 (no prune yet)", n)
	}
	clock.Advance(23 * time.Hour)
	write()
	if n := count(); n != 1 {
		t.Fatalf("a day on: %d rows, want only the newest", n)
	}
}

func flag(f string) string { return "--" + f }

// TestFilterQuery: the operator's filter is read once for the CLI and the
// console; its errors name the field as the caller spells it.
func TestFilterQuery(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	q, err := Filter{Since: "2h", Until: "2026-01-02T14:30:00Z", Device: "127.0.0.1:5037/R58M123ABC", Channel: "c1",
		Tool: "android_tap", Outcome: "ok", Limit: 5, AfterID: 7}.Query(now, flag)
	if err != nil {
		t.Fatal(err)
	}
	want := Query{Since: now.Add(-2 * time.Hour), Until: now.Add(-30 * time.Minute), DeviceHint: "…3ABC", ChannelID: "c1",
		ToolID: "android_tap", Outcome: "ok", Limit: 5, AfterID: 7}
	if q != want {
		t.Errorf("query %+v, want %+v", q, want)
	}
	for _, dev := range []struct{ in, want string }{{"…3ABC", "…3ABC"}, {"...3ABC", "…3ABC"}, {"tcp #1a2b", "tcp #1a2b"}, {"R58M123ABC", "…3ABC"}} {
		if q, err := (Filter{Device: dev.in, Limit: 1}).Query(now, flag); err != nil || q.DeviceHint != dev.want {
			t.Errorf("device %q -> %q %v, want %q", dev.in, q.DeviceHint, err, dev.want)
		}
	}
	for _, tc := range []struct {
		f    Filter
		name func(string) string
		want string
	}{
		{Filter{Since: "2 hours", Limit: 1}, flag, `--since: "2 hours": want a duration (90m, 2h, 7d) or an RFC 3339 time`},
		{Filter{Since: "-2h", Limit: 1}, flag, "must not be negative"},
		{Filter{Limit: 0}, flag, "--limit 0: want 1..10000"},
		{Filter{Since: "1h", Until: "2h", Limit: 1}, flag, "--since must be before --until"},
		{Filter{Since: "1h", Until: "2h", Limit: 1}, func(f string) string { return f }, "since must be before until"},
		{Filter{Limit: 1, AfterID: -1}, flag, "--after: want a row id"},
	} {
		if _, err := tc.f.Query(now, tc.name); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.f, err, tc.want)
		}
	}
}

func TestParseRetention(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"30d", 30 * 24 * time.Hour, ""},
		{"36h", 36 * time.Hour, ""},
		{"0d", 0, "must be positive"},
		{"-1h", 0, "must be positive"},
		{"forever", 0, "want a duration such as 90d or 720h"},
		{"999999d", 0, "want a duration"},
	} {
		d, err := ParseRetention(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || d != tc.want {
			t.Errorf("%q = %v %v, want %v", tc.in, d, err, tc.want)
		}
	}
}

// FuzzFilterQuery: any filter gives a query within bounds or an error that
// names no flag but the caller's.
func FuzzFilterQuery(f *testing.F) {
	for _, s := range [][3]string{{"2h", "", "R58M"}, {"7d", "1h", "…3ABC"}, {"2026-01-02T15:04:05Z", "", "...A"}, {"-1h", "x", "a/b"}, {"99999999d", "", ""}} {
		f.Add(s[0], s[1], s[2], 5)
	}
	now := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, since, until, device string, limit int) {
		q, err := Filter{Since: since, Until: until, Device: device, Limit: limit}.Query(now, flag)
		if err != nil {
			return
		}
		if q.Limit < 1 || q.Limit > MaxLimit || !q.Since.IsZero() && !q.Until.IsZero() && !q.Since.Before(q.Until) {
			t.Fatalf("accepted %+v", q)
		}
		if device != "" && strings.Contains(q.DeviceHint, device) && len(device) > 8 && !strings.HasPrefix(device, "…") && !strings.HasPrefix(device, "tcp #") && !strings.HasPrefix(device, "...") {
			t.Fatalf("device %q kept unredacted: %q", device, q.DeviceHint)
		}
	})
}

// TestFollow: the rows selected come oldest first, then the rows written
// later that match, until the context ends.
func TestFollow(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	w := NewWriter(db.Write, 0, nil)
	t.Cleanup(func() { w.Close() })
	write := func(tool string) {
		t.Helper()
		if err := w.Write(t.Context(), Record{At: time.Now(), ChannelID: "c", ToolID: tool, Outcome: OutcomeOK}); err != nil {
			t.Fatal(err)
		}
	}
	write("a")
	write("b")
	ctx, cancel := context.WithCancel(t.Context())
	got := make(chan []Record, 8)
	done := make(chan error, 1)
	go func() {
		done <- Follow(ctx, db.Read, Query{ToolID: "", Limit: 10}, true, 5*time.Millisecond, func(rs []Record) error {
			got <- rs
			return nil
		})
	}()
	if first := <-got; len(first) != 2 || first[0].ToolID != "a" || first[1].ToolID != "b" {
		t.Fatalf("first batch %+v, want a then b", first)
	}
	write("c")
	if next := <-got; len(next) != 1 || next[0].ToolID != "c" {
		t.Fatalf("followed %+v, want c", next)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Follow ended with %v, want context.Canceled", err)
	}
}
