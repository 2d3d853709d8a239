package files

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/adb-connector/adb-connector/internal/testkit"
)

func TestPutGetRoundTrip(t *testing.T) {
	t.Parallel()
	clock := testkit.NewClock()
	e := newEnv(t, Config{Now: clock.Now})
	data := []byte("\x89PNG fake image bytes")
	ref := e.put("ch-1", data, Meta{MIMEType: "image/png", Filename: "shot.png", Width: 1080, Height: 2400})

	if !ValidRef(ref.FileRef) {
		t.Fatalf("FileRef %q is not a valid ref", ref.FileRef)
	}
	want := Ref{
		FileRef:     ref.FileRef,
		DownloadURL: "/files/refs/" + ref.FileRef,
		MIMEType:    "image/png",
		Filename:    "shot.png",
		ByteSize:    int64(len(data)),
		Width:       1080,
		Height:      2400,
		ExpiresAt:   clock.Now().Add(DefaultTTL),
	}
	if diff := cmp.Diff(want, ref); diff != "" {
		t.Fatalf("Put ref (-want +got):\n%s", diff)
	}

	got, f, err := e.st.Get(context.Background(), ref.FileRef, "ch-1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	body, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, data) {
		t.Fatalf("Get bytes = %q, want %q", body, data)
	}
	if diff := cmp.Diff(want.ExpiresAt.UnixMilli(), got.ExpiresAt.UnixMilli()); diff != "" {
		t.Fatalf("Get ExpiresAt: %s", diff)
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Ref{}, "ExpiresAt")); diff != "" {
		t.Fatalf("Get ref (-want +got):\n%s", diff)
	}

	// Permissions: directory 0700, file 0600.
	for path, mode := range map[string]os.FileMode{e.st.cfg.Dir: 0o700, e.st.path(ref.FileRef): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != mode {
			t.Errorf("%s mode = %v, want %v", path, fi.Mode().Perm(), mode)
		}
	}
	if want := filepath.Join(e.dataDir, DefaultDirName); e.st.cfg.Dir != want {
		t.Errorf("default Dir = %q, want %q", e.st.cfg.Dir, want)
	}
}

func TestRefJSON(t *testing.T) {
	t.Parallel()
	ref := Ref{
		FileRef:     "file_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		DownloadURL: "/files/refs/file_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		MIMEType:    "image/png",
		Filename:    "shot.png",
		ByteSize:    42,
		Width:       10,
		Height:      20,
		ExpiresAt:   time.UnixMilli(1790000000123),
	}
	b, err := json.Marshal(ref)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"file_ref":     ref.FileRef,
		"download_url": ref.DownloadURL,
		"mime_type":    "image/png",
		"filename":     "shot.png",
		"byte_size":    42.0,
		"width":        10.0,
		"height":       20.0,
		"expires_at":   1790000000123.0,
	}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Fatalf("JSON (-want +got):\n%s", diff)
	}
	var back Ref
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !back.ExpiresAt.Equal(ref.ExpiresAt) {
		t.Fatalf("round trip ExpiresAt = %v, want %v", back.ExpiresAt, ref.ExpiresAt)
	}
	if diff := cmp.Diff(ref, back, cmpopts.IgnoreFields(Ref{}, "ExpiresAt")); diff != "" {
		t.Fatalf("round trip (-want +got):\n%s", diff)
	}
}

func TestNewRefUnique(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 1000 {
		r := newRef()
		if !ValidRef(r) || seen[r] {
			t.Fatalf("newRef() = %q: valid=%v duplicate=%v", r, ValidRef(r), seen[r])
		}
		seen[r] = true
	}
	if RefLen != 37 {
		t.Fatalf("RefLen = %d, want 37 (5 + 160 bits in base32)", RefLen)
	}
}

func TestMetaDefaults(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	tests := []struct {
		name     string
		meta     Meta
		wantMIME string
		wantName string
	}{
		{"zero", Meta{}, "application/octet-stream", "file.bin"},
		{"png no name", Meta{MIMEType: "image/png"}, "image/png", "file.png"},
		{"jpeg no name", Meta{MIMEType: "IMAGE/JPEG"}, "image/jpeg", "file.jpg"},
		{"bad mime", Meta{MIMEType: "not a type;;"}, "application/octet-stream", "file.bin"},
		{"path stripped", Meta{MIMEType: "video/mp4", Filename: "../../etc/clip.mp4"}, "video/mp4", "clip.mp4"},
		{"windows path", Meta{Filename: `C:\x\y.txt`}, "application/octet-stream", "y.txt"},
		{"control chars", Meta{Filename: "a\r\nb\x00.png"}, "application/octet-stream", "ab.png"},
		{"dots only", Meta{MIMEType: "image/png", Filename: ".."}, "image/png", "file.png"},
		{"unicode kept", Meta{Filename: "écran 📱.png"}, "application/octet-stream", "écran 📱.png"},
		{"long cut", Meta{Filename: strings.Repeat("é", 300)}, "application/octet-stream", strings.Repeat("é", 100)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := e.put("ch", []byte("x"), tt.meta)
			if ref.MIMEType != tt.wantMIME || ref.Filename != tt.wantName {
				t.Fatalf("mime, filename = %q, %q; want %q, %q", ref.MIMEType, ref.Filename, tt.wantMIME, tt.wantName)
			}
		})
	}
}

func TestTooLarge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		cfg       Config
		size      int
		wantLimit int64 // 0: accepted
	}{
		{"at file limit", Config{MaxFileBytes: 10}, 10, 0},
		{"over file limit", Config{MaxFileBytes: 10}, 11, 10},
		{"over total cap", Config{MaxFileBytes: 100, MaxTotalBytes: 20}, 21, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, tt.cfg)
			_, err := e.st.PutBytes(context.Background(), "ch", Meta{}, make([]byte, tt.size))
			var tl *TooLargeError
			switch {
			case tt.wantLimit == 0 && err != nil:
				t.Fatalf("Put: %v", err)
			case tt.wantLimit != 0 && (!errors.As(err, &tl) || tl.Limit != tt.wantLimit):
				t.Fatalf("Put err = %v, want *TooLargeError{%d}", err, tt.wantLimit)
			}
			if tt.wantLimit != 0 {
				assertDirEntries(t, e.st.cfg.Dir, []string{tmpDirName})
				assertDirEntries(t, e.st.tmpDir, nil)
			}
		})
	}
}

// assertDirEntries checks the names in dir.
func assertDirEntries(t *testing.T, dir string, want []string) {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, de := range des {
		got = append(got, de.Name())
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty(), cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Fatalf("%s entries (-want +got):\n%s", dir, diff)
	}
}

func TestPutContextCanceled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.st.Put(ctx, "ch", Meta{}, strings.NewReader("data")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Put err = %v, want context.Canceled", err)
	}
	assertDirEntries(t, e.st.tmpDir, nil)
	if _, err := e.st.Put(context.Background(), "", Meta{}, strings.NewReader("data")); err == nil {
		t.Fatal("Put with empty channel succeeded")
	}
}

func TestExpiry(t *testing.T) {
	t.Parallel()
	clock := testkit.NewClock()
	e := newEnv(t, Config{Now: clock.Now, TTL: time.Minute})
	ref := e.put("ch", []byte("data"), Meta{})
	ctx := context.Background()

	clock.Advance(time.Minute - time.Millisecond)
	_, f, err := e.st.Get(ctx, ref.FileRef, "")
	if err != nil {
		t.Fatalf("Get just before expiry: %v", err)
	}
	f.Close()

	clock.Advance(time.Millisecond)
	if _, _, err := e.st.Get(ctx, ref.FileRef, ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get at expiry err = %v, want ErrNotFound", err)
	}
	if !e.exists(ref.FileRef) {
		t.Fatal("file removed before a sweep")
	}
	if err := e.st.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if e.exists(ref.FileRef) {
		t.Fatal("expired file still on disk after sweep")
	}
	if got := testutil.ToFloat64(e.st.metrics.expired); got != 1 {
		t.Fatalf("expired_total = %v, want 1", got)
	}
	if got := testutil.ToFloat64(e.st.metrics.files); got != 0 {
		t.Fatalf("stored = %v, want 0", got)
	}
}

func TestEvictionOldestFirst(t *testing.T) {
	t.Parallel()
	clock := testkit.NewClock()
	e := newEnv(t, Config{Now: clock.Now, MaxTotalBytes: 100})
	put := func(size int, advance bool) string {
		if advance {
			clock.Advance(time.Second)
		}
		return e.put("ch", make([]byte, size), Meta{}).FileRef
	}
	// Same timestamp for a, b: insertion order breaks the tie.
	a := put(30, false)
	b := put(30, false)
	c := put(30, true)
	assertLive(t, e, []string{a, b, c}, nil)

	d := put(30, true) // 120 > 100: a goes
	assertLive(t, e, []string{b, c, d}, []string{a})

	f := put(50, true) // 140 > 100: b and c go
	assertLive(t, e, []string{d, f}, []string{a, b, c})

	g := put(100, true) // everything else goes
	assertLive(t, e, []string{g}, []string{a, b, c, d, f})

	if got := testutil.ToFloat64(e.st.metrics.evictions); got != 5 {
		t.Fatalf("evictions_total = %v, want 5", got)
	}
	if got := testutil.ToFloat64(e.st.metrics.bytes); got != 100 {
		t.Fatalf("stored_bytes = %v, want 100", got)
	}
}

// assertLive checks which refs can be fetched and are on disk.
func assertLive(t *testing.T, e *env, live, gone []string) {
	t.Helper()
	ctx := context.Background()
	for _, r := range live {
		_, f, err := e.st.Get(ctx, r, "")
		if err != nil {
			t.Fatalf("Get(%s): %v", redactRef(r), err)
		}
		f.Close()
	}
	for _, r := range gone {
		if _, _, err := e.st.Get(ctx, r, ""); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Get(%s) err = %v, want ErrNotFound", redactRef(r), err)
		}
		if e.exists(r) {
			t.Fatalf("%s still on disk", redactRef(r))
		}
	}
}

func TestRestartKeepsIndex(t *testing.T) {
	t.Parallel()
	clock := testkit.NewClock()
	e := newEnv(t, Config{Now: clock.Now, TTL: 10 * time.Minute})
	old := e.put("ch", []byte("old"), Meta{MIMEType: "image/png", Filename: "old.png"})
	clock.Advance(5 * time.Minute)
	young := e.put("ch", []byte("young"), Meta{MIMEType: "image/jpeg", Filename: "young.jpg", Width: 3, Height: 4})
	clock.Advance(6 * time.Minute) // old expired, young has 4 minutes left

	e.reopen()
	assertLive(t, e, []string{young.FileRef}, []string{old.FileRef})
	got, f, err := e.st.Get(context.Background(), young.FileRef, "ch")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if diff := cmp.Diff(young, got, cmpopts.EquateApproxTime(time.Millisecond)); diff != "" {
		t.Fatalf("restored ref (-want +got):\n%s", diff)
	}
	if got := testutil.ToFloat64(e.st.metrics.bytes); got != float64(len("young")) {
		t.Fatalf("stored_bytes after restart = %v", got)
	}
}

func TestSweepOrphans(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	keep := e.put("ch", []byte("keep"), Meta{})
	missing := e.put("ch", []byte("missing"), Meta{})
	truncated := e.put("ch", []byte("truncated"), Meta{})
	dir := e.st.cfg.Dir
	if err := os.Remove(e.st.path(missing.FileRef)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.st.path(truncated.FileRef), []byte("trunc"), 0o600); err != nil {
		t.Fatal(err)
	}
	orphan := newRef()
	writeFile(t, filepath.Join(dir, orphan), "orphan")
	writeFile(t, filepath.Join(dir, "operator-notes.txt"), "not ours") // not a ref name: left alone
	writeFile(t, filepath.Join(e.st.tmpDir, "put-123"), "interrupted") // cleared at Open

	e.reopen()
	assertLive(t, e, []string{keep.FileRef}, []string{missing.FileRef, truncated.FileRef, orphan})
	assertDirEntries(t, dir, []string{keep.FileRef, "operator-notes.txt", tmpDirName})
	assertDirEntries(t, e.st.tmpDir, nil)
	var rows int
	if err := e.db.Read.QueryRow(`SELECT count(*) FROM files`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != 1 {
		t.Fatalf("index rows = %d, want 1", rows)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestDeleteChannel(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	a1 := e.put("a", []byte("a1"), Meta{})
	a2 := e.put("a", []byte("a2"), Meta{})
	b1 := e.put("b", []byte("b1"), Meta{})
	if err := e.st.DeleteChannel(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	assertLive(t, e, []string{b1.FileRef}, []string{a1.FileRef, a2.FileRef})
	if err := e.st.DeleteChannel(context.Background(), "nobody"); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ToFloat64(e.st.metrics.files); got != 1 {
		t.Fatalf("stored = %v, want 1", got)
	}
}

func TestGetOtherChannel(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	ref := e.put("a", []byte("a"), Meta{})
	if _, _, err := e.st.Get(context.Background(), ref.FileRef, "b"); !errors.Is(err, ErrForbidden) {
		t.Fatalf("Get other channel err = %v, want ErrForbidden", err)
	}
}

func TestCloseIdempotent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{JanitorInterval: time.Hour})
	ref := e.put("ch", []byte("x"), Meta{})
	for range 2 {
		if err := e.st.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.st.PutBytes(context.Background(), "ch", Meta{}, []byte("y")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Put after Close err = %v, want ErrClosed", err)
	}
	_, f, err := e.st.Get(context.Background(), ref.FileRef, "")
	if err != nil {
		t.Fatalf("Get after Close: %v", err)
	}
	f.Close()
}
