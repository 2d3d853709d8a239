package files

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/internal/testkit"
	"github.com/google/go-cmp/cmp"
)

// newServer serves st the way the connector mounts it: a ServeMux pattern.
func newServer(t testing.TB, st *Store) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle(RoutePattern, st.Handler())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// download GETs url (with the channel header when channel is not empty).
func download(t *testing.T, url, channel string) (int, []byte) {
	t.Helper()
	resp, body := do(t, http.MethodGet, url, http.Header{ChannelHeader: nonEmpty(channel)})
	if resp == nil {
		return 0, nil
	}
	return resp.StatusCode, body
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

func do(t *testing.T, method, url string, h http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Error(err)
		return nil, nil
	}
	for k, vs := range h {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return nil, nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Error(err)
	}
	return resp, body
}

func TestHandler(t *testing.T) {
	t.Parallel()
	clock := testkit.NewClock()
	e := newEnv(t, Config{Now: clock.Now, TTL: time.Minute})
	data := "0123456789abcdef"
	expired := e.put("ch-1", []byte(data), Meta{})
	clock.Advance(45 * time.Second)
	ref := e.put("ch-1", []byte(data), Meta{MIMEType: "image/png", Filename: "shot.png"}).FileRef
	uni := e.put("ch-1", []byte(data), Meta{MIMEType: "image/jpeg", Filename: `écran "1".jpg`}).FileRef
	clock.Advance(30 * time.Second) // expired is past its TTL, the others have 30 s left
	// A file a traversal would reach: <data dir>/secret, one level above Dir.
	writeFile(t, filepath.Join(e.dataDir, "secret"), "TOPSECRET")
	writeFile(t, filepath.Join(e.st.cfg.Dir, "secret"), "TOPSECRET")

	okHeaders := map[string]string{
		"Content-Type":           "image/png",
		"Content-Disposition":    `attachment; filename="shot.png"`,
		"Cache-Control":          "no-store",
		"X-Content-Type-Options": "nosniff",
		"Accept-Ranges":          "bytes",
		"Content-Length":         "16",
	}
	tests := []struct {
		name        string
		method      string
		path        string // appended to the server URL as is
		header      http.Header
		wantStatus  int
		wantBody    string // checked when the status is 2xx
		wantHeaders map[string]string
	}{
		{name: "get", path: DownloadPrefix + ref, wantStatus: 200, wantBody: data, wantHeaders: okHeaders},
		{name: "head", method: http.MethodHead, path: DownloadPrefix + ref, wantStatus: 200, wantHeaders: okHeaders},
		{name: "range", path: DownloadPrefix + ref, header: http.Header{"Range": {"bytes=2-5"}},
			wantStatus: 206, wantBody: "2345",
			wantHeaders: map[string]string{"Content-Range": "bytes 2-5/16", "Content-Type": "image/png", "Cache-Control": "no-store"}},
		{name: "suffix range", path: DownloadPrefix + ref, header: http.Header{"Range": {"bytes=-3"}},
			wantStatus: 206, wantBody: "def"},
		{name: "unsatisfiable range", path: DownloadPrefix + ref, header: http.Header{"Range": {"bytes=100-"}},
			wantStatus: 416},
		{name: "unicode filename", path: DownloadPrefix + uni, wantStatus: 200, wantBody: data,
			wantHeaders: map[string]string{
				"Content-Type":        "image/jpeg",
				"Content-Disposition": `attachment; filename="_cran _1_.jpg"; filename*=UTF-8''%C3%A9cran%20%221%22.jpg`,
			}},
		{name: "own channel", path: DownloadPrefix + ref, header: http.Header{ChannelHeader: {"ch-1"}},
			wantStatus: 200, wantBody: data},
		{name: "other channel", path: DownloadPrefix + ref, header: http.Header{ChannelHeader: {"ch-2"}},
			wantStatus: 403, wantHeaders: map[string]string{"Cache-Control": "no-store"}},
		{name: "expired", path: DownloadPrefix + expired.FileRef, wantStatus: 404},
		{name: "expired other channel", path: DownloadPrefix + expired.FileRef,
			header: http.Header{ChannelHeader: {"ch-2"}}, wantStatus: 404},
		{name: "unknown", path: DownloadPrefix + newRef(), wantStatus: 404},
		{name: "upper case", path: DownloadPrefix + strings.ToUpper(ref), wantStatus: 404},
		{name: "truncated", path: DownloadPrefix + ref[:RefLen-1], wantStatus: 404},
		{name: "extra char", path: DownloadPrefix + ref + "a", wantStatus: 404},
		{name: "sub path", path: DownloadPrefix + ref + "/x", wantStatus: 404},
		{name: "empty", path: DownloadPrefix, wantStatus: 404},
		{name: "encoded traversal", path: DownloadPrefix + "..%2fsecret", wantStatus: 404},
		{name: "encoded traversal deep", path: DownloadPrefix + "..%2f..%2f..%2f..%2fetc%2fpasswd", wantStatus: 404},
		{name: "plain traversal", path: DownloadPrefix + "../secret", wantStatus: 404},
		{name: "dot segment", path: DownloadPrefix + ".", wantStatus: 404},
		{name: "same-dir name", path: DownloadPrefix + "secret", wantStatus: 404},
		{name: "nul", path: DownloadPrefix + ref[:RefLen-1] + "%00", wantStatus: 404},
		{name: "encoded ref", path: DownloadPrefix + "%66ile_" + ref[len(RefPrefix):], wantStatus: 200, wantBody: data},
		{name: "very long", path: DownloadPrefix + strings.Repeat("a", 8000), wantStatus: 404},
		{name: "non-ASCII", path: DownloadPrefix + "file_" + strings.Repeat("é", 16), wantStatus: 404},
		{name: "non-ASCII encoded", path: DownloadPrefix + "file_%C3%A9" + ref[len(RefPrefix)+2:], wantStatus: 404},
		{name: "post", method: http.MethodPost, path: DownloadPrefix + ref, wantStatus: 405,
			wantHeaders: map[string]string{"Allow": "GET, HEAD"}},
		{name: "delete", method: http.MethodDelete, path: DownloadPrefix + ref, wantStatus: 405},
	}
	mounts := map[string]*httptest.Server{"mux": newServer(t, e.st)}
	bare := httptest.NewServer(e.st.Handler())
	t.Cleanup(bare.Close)
	mounts["bare"] = bare
	for mount, srv := range mounts {
		for _, tt := range tests {
			t.Run(mount+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				method := tt.method
				if method == "" {
					method = http.MethodGet
				}
				resp, body := do(t, method, srv.URL+tt.path, tt.header)
				if resp == nil {
					return
				}
				if resp.StatusCode != tt.wantStatus {
					t.Fatalf("status = %d, want %d (body %q)", resp.StatusCode, tt.wantStatus, body)
				}
				if strings.Contains(string(body), "TOPSECRET") {
					t.Fatal("served a file outside the store")
				}
				if resp.StatusCode/100 == 2 && method == http.MethodGet && string(body) != tt.wantBody {
					t.Fatalf("body = %q, want %q", body, tt.wantBody)
				}
				if method == http.MethodHead && len(body) != 0 {
					t.Fatalf("HEAD body = %q", body)
				}
				got := map[string]string{}
				for k := range tt.wantHeaders {
					got[k] = resp.Header.Get(k)
				}
				if diff := cmp.Diff(tt.wantHeaders, got, cmpEmptyMap); diff != "" {
					t.Fatalf("headers (-want +got):\n%s", diff)
				}
			})
		}
	}
}

var cmpEmptyMap = cmp.FilterValues(func(a, b map[string]string) bool { return len(a) == 0 && len(b) == 0 }, cmp.Ignore())

func TestContentDisposition(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"plain", "shot.png", `attachment; filename="shot.png"`},
		{"space", "my shot.png", `attachment; filename="my shot.png"`},
		{"quote", `a"b.png`, `attachment; filename="a_b.png"; filename*=UTF-8''a%22b.png`},
		{"backslash", `a\b`, `attachment; filename="a_b"; filename*=UTF-8''a%5Cb`},
		{"percent", "100%.txt", `attachment; filename="100_.txt"; filename*=UTF-8''100%25.txt`},
		{"unicode", "日本.png", `attachment; filename="__.png"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.png`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := contentDisposition(tt.in); got != tt.want {
				t.Fatalf("contentDisposition(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

// TestRefNotLogged drives every path that logs a ref and checks that only
// its prefix appears.
func TestRefNotLogged(t *testing.T) {
	t.Parallel()
	var logs testkit.LogBuffer
	clock := testkit.NewClock()
	e := newEnv(t, Config{Now: clock.Now, TTL: time.Minute, MaxTotalBytes: 10, Logger: logs.TextLogger()})
	srv := newServer(t, e.st)
	var refs []string
	put := func(data string) string {
		r := e.put("ch", []byte(data), Meta{}).FileRef
		refs = append(refs, r)
		return r
	}
	a := put("aaaaaaaa")
	download(t, srv.URL+DownloadPrefix+a, "")
	download(t, srv.URL+DownloadPrefix+a, "other")
	put("bbbbbbbb") // evicts a
	download(t, srv.URL+DownloadPrefix+a, "")
	clock.Advance(time.Hour)
	if err := e.st.Sweep(context.Background()); err != nil {
		t.Fatal(err)
	}
	orphan := newRef()
	refs = append(refs, orphan)
	writeFile(t, filepath.Join(e.st.cfg.Dir, orphan), "x")
	if err := os.Remove(e.st.path(put("c"))); err != nil {
		t.Fatal(err)
	}
	if err := e.st.Sweep(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	for _, r := range refs {
		if strings.Contains(out, r) || strings.Contains(out, r[len(RefPrefix):]) {
			t.Fatalf("log contains a full ref:\n%s", out)
		}
	}
	if !strings.Contains(out, redactRef(a)) {
		t.Fatalf("log lacks the ref prefix %q:\n%s", redactRef(a), out)
	}
}
