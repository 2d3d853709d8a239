package files

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
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

// FuzzRange feeds arbitrary Range headers to parseRange and to the handler.
// Served ranges lie inside the file, are disjoint and not adjacent, number
// at most maxRanges and round-trip through rangeHeader; only an empty header
// or another unit is ignored; no 200 or 206 body is larger than the file,
// and a single-part 206 carries exactly the bytes its Content-Range names.
func FuzzRange(f *testing.F) {
	data := strings.Repeat("0123456789abcdef", 64) // 1024 bytes
	e := newEnv(f, Config{})
	ref := e.put("ch", []byte(data), Meta{MIMEType: "image/png"}).FileRef
	for _, tt := range rangeCases {
		f.Add(tt.header, uint16(100))
		f.Add(tt.header, uint16(0))
	}
	h := e.st.Handler()
	f.Fuzz(func(t *testing.T, header string, size16 uint16) {
		size := int64(size16)
		rs, outcome := parseRange(header, size)
		switch outcome {
		case rangeIgnore:
			unit, _, _ := strings.Cut(header, "=")
			if header != "" && strings.EqualFold(unit, "bytes") {
				t.Fatalf("parseRange(%q) ignored a bytes range", header)
			}
		case rangeServe:
			if len(rs) == 0 || len(rs) > maxRanges {
				t.Fatalf("parseRange(%q, %d) served %d ranges", header, size, len(rs))
			}
			var total int64
			for i, r := range rs {
				if r.first < 0 || r.first > r.last || r.last >= size {
					t.Fatalf("parseRange(%q, %d): range %v outside the file", header, size, r)
				}
				for _, o := range rs[:i] {
					if r.first <= o.last+1 && o.first <= r.last+1 {
						t.Fatalf("parseRange(%q, %d): %v and %v not merged", header, size, o, r)
					}
				}
				total += r.length()
			}
			if total > size {
				t.Fatalf("parseRange(%q, %d): %d bytes in total", header, size, total)
			}
			again, o := parseRange(rangeHeader(rs), size)
			if o != rangeServe || !slices.Equal(again, rs) {
				t.Fatalf("parseRange(%q, %d) = %v; its normal form %q gives %v", header, size, rs, rangeHeader(rs), again)
			}
		case rangeReject:
			if rs != nil {
				t.Fatalf("parseRange(%q) rejected with ranges %v", header, rs)
			}
		}

		req := httptest.NewRequest(http.MethodGet, DownloadPrefix+ref, nil)
		req.SetPathValue("file_ref", ref)
		req.Header.Set("Range", header)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		body := rec.Body.String()
		switch rec.Code {
		case http.StatusRequestedRangeNotSatisfiable:
			return
		case http.StatusOK:
			if body != data {
				t.Fatalf("Range %q: 200 with a %d-byte body", header, len(body))
			}
		case http.StatusPartialContent:
			if len(body) > len(data) {
				t.Fatalf("Range %q: %d-byte body for a %d-byte file", header, len(body), len(data))
			}
			var first, last int64
			if cr := rec.Header().Get("Content-Range"); cr != "" {
				if _, err := fmt.Sscanf(cr, "bytes %d-%d/1024", &first, &last); err != nil {
					t.Fatalf("Range %q: Content-Range %q", header, cr)
				}
				if body != data[first:last+1] {
					t.Fatalf("Range %q: body is not bytes %d-%d", header, first, last)
				}
			}
		default:
			t.Fatalf("Range %q: status %d", header, rec.Code)
		}
	})
}
