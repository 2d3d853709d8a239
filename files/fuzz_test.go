package files

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzFileRefPath feeds arbitrary {file_ref} values to the handler, both as a
// ServeMux path value and through the URL-path fallback. Only the one stored
// ref may be served; everything else is a 404; a string ValidRef accepts can
// never name a path outside the store's directory.
func FuzzFileRefPath(f *testing.F) {
	e := newEnv(f, Config{})
	known := e.put("ch", []byte("payload"), Meta{MIMEType: "text/plain"}).FileRef
	for _, s := range []string{
		known, strings.ToUpper(known), known[:RefLen-1], known + "a", known + "/x", newRef(),
		"", ".", "..", "../secret", "..%2fsecret", "..%2f..%2f..%2fetc%2fpasswd", "secret", "tmp",
		"file_" + strings.Repeat("é", 16), "file_%C3%A9", known[:RefLen-1] + "\x00", "file_" + strings.Repeat("a", 32) + "\n",
		strings.Repeat("a", 8000), "file_00000000000000000000000000000000", "file_11111111111111111111111111111111",
	} {
		f.Add(s)
	}
	h := e.st.Handler()
	dir := e.st.cfg.Dir
	f.Fuzz(func(t *testing.T, s string) {
		if ValidRef(s) {
			if strings.ContainsAny(s, `/\.%`+"\x00") || len(s) != RefLen {
				t.Fatalf("ValidRef accepted %q", s)
			}
			if p := filepath.Join(dir, s); filepath.Dir(p) != dir {
				t.Fatalf("ref %q escapes the directory: %s", s, p)
			}
		}
		want := http.StatusNotFound
		if s == known {
			want = http.StatusOK
		}
		for _, viaPathValue := range []bool{true, false} {
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.URL.Path = DownloadPrefix + s
			if viaPathValue {
				req.SetPathValue("file_ref", s)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != want {
				t.Fatalf("%q (path value %v): status %d, want %d", s, viaPathValue, rec.Code, want)
			}
		}
	})
}
