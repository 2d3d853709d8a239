package files

import (
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// rangeCases are parseRange's table cases for a 100-byte representation;
// FuzzRange starts from them.
var rangeCases = []struct {
	name    string
	header  string
	want    []byteRange
	outcome rangeOutcome
}{
	{"absent", "", nil, rangeIgnore},
	{"one", "bytes=2-5", []byteRange{{2, 5}}, rangeServe},
	{"open end", "bytes=90-", []byteRange{{90, 99}}, rangeServe},
	{"last past end", "bytes=90-1000", []byteRange{{90, 99}}, rangeServe},
	{"suffix", "bytes=-3", []byteRange{{97, 99}}, rangeServe},
	{"suffix longer than file", "bytes=-1000", []byteRange{{0, 99}}, rangeServe},
	{"suffix zero", "bytes=-0", nil, rangeReject},
	{"suffix zero padded", "bytes=-000", nil, rangeReject},
	{"suffix zero and a good one", "bytes=-0,2-5", []byteRange{{2, 5}}, rangeServe},
	{"first at end", "bytes=100-", nil, rangeReject},
	{"first past end", "bytes=100-200", nil, rangeReject},
	{"huge first", "bytes=99999999999999999999999-", nil, rangeReject},
	{"huge last", "bytes=5-99999999999999999999999", []byteRange{{5, 99}}, rangeServe},
	{"unit case", "Bytes=2-5", []byteRange{{2, 5}}, rangeServe},
	{"other unit", "items=0-5", nil, rangeIgnore},
	{"no unit", "=0-5", nil, rangeReject},
	{"no equals", "bytes", nil, rangeReject},
	{"empty set", "bytes=", nil, rangeReject},
	{"only commas", "bytes=, ,", nil, rangeReject},
	{"empty elements", "bytes=,2-5, ,", []byteRange{{2, 5}}, rangeServe},
	{"list whitespace", "bytes= 2-5 ,\t10-12", []byteRange{{2, 5}, {10, 12}}, rangeServe},
	{"inner whitespace", "bytes=2 - 5", nil, rangeReject},
	{"plus sign", "bytes=+2-5", nil, rangeReject},
	{"minus sign", "bytes=--5", nil, rangeReject},
	{"last before first", "bytes=5-2", nil, rangeReject},
	{"no dash", "bytes=5", nil, rangeReject},
	{"two dashes", "bytes=1-2-3", nil, rangeReject},
	{"hex", "bytes=0x1-2", nil, rangeReject},
	{"invalid after good", "bytes=2-5,x", nil, rangeReject},
	{"overlapping", "bytes=0-9,5-14,12-19", []byteRange{{0, 19}}, rangeServe},
	{"adjacent", "bytes=0-9,10-19", []byteRange{{0, 19}}, rangeServe},
	{"contained", "bytes=0-50,10-20", []byteRange{{0, 50}}, rangeServe},
	{"duplicates", "bytes=0-0,0-0,0-0", []byteRange{{0, 0}}, rangeServe},
	{"disjoint keeps order", "bytes=50-59,0-9", []byteRange{{50, 59}, {0, 9}}, rangeServe},
	{"merge takes earliest position", "bytes=50-59,0-9,60-69", []byteRange{{50, 69}, {0, 9}}, rangeServe},
	{"bridge", "bytes=0-9,20-29,10-19", []byteRange{{0, 29}}, rangeServe},
	{"suffix overlaps", "bytes=90-95,-5", []byteRange{{90, 99}}, rangeServe},
	{"max ranges", "bytes=" + ranges(maxRanges, 2), evenBytes(maxRanges), rangeServe},
	{"too many", "bytes=" + ranges(maxRanges+1, 2), nil, rangeReject},
	{"too many adjacent", "bytes=" + ranges(maxRanges+1, 1), nil, rangeReject},
	{"too many unsatisfiable", "bytes=" + strings.Repeat("200-,", maxRanges+1), nil, rangeReject},
	{"thousands", "bytes=" + ranges(5000, 2), nil, rangeReject},
}

// ranges returns n one-byte range-specs "0-0,s-s,2s-2s,...".
func ranges(n, step int) string {
	specs := make([]string, n)
	for i := range specs {
		specs[i] = fmt.Sprintf("%d-%d", i*step, i*step)
	}
	return strings.Join(specs, ",")
}

func evenBytes(n int) []byteRange {
	rs := make([]byteRange, n)
	for i := range rs {
		rs[i] = byteRange{int64(2 * i), int64(2 * i)}
	}
	return rs
}

func TestParseRange(t *testing.T) {
	t.Parallel()
	for _, tt := range rangeCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, outcome := parseRange(tt.header, 100)
			if outcome != tt.outcome {
				t.Fatalf("parseRange(%.60q) outcome = %d, want %d", tt.header, outcome, tt.outcome)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(byteRange{})); diff != "" {
				t.Fatalf("parseRange(%.60q) (-want +got):\n%s", tt.header, diff)
			}
		})
	}
}

func TestParseRangeEmptyFile(t *testing.T) {
	t.Parallel()
	for _, h := range []string{"bytes=0-", "bytes=0-0", "bytes=-1", "bytes=-0"} {
		if got, outcome := parseRange(h, 0); outcome != rangeReject || got != nil {
			t.Errorf("parseRange(%q, 0) = %v, %d; want nil, reject", h, got, outcome)
		}
	}
}

// TestHandlerRange serves hostile and ordinary Range headers through the
// mux and checks status, headers and body, and that no 200 or 206 body is
// larger than the file.
func TestHandlerRange(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	small := "0123456789abcdef"
	big := strings.Repeat("0123456789abcdef", 256) // 4096 bytes
	smallRef := e.put("ch", []byte(small), Meta{MIMEType: "image/png"}).FileRef
	bigRef := e.put("ch", []byte(big), Meta{MIMEType: "image/png"}).FileRef
	srv := newServer(t, e.st)

	type part struct{ contentRange, body string }
	tests := []struct {
		name, ref, data string
		header          http.Header
		wantStatus      int
		wantRange       string // Content-Range
		wantBody        string // single-part and 200 bodies
		wantParts       []part // multipart/byteranges bodies
	}{
		{name: "suffix zero", ref: smallRef, data: small, header: http.Header{"Range": {"bytes=-0"}},
			wantStatus: 416, wantRange: "bytes */16"},
		{name: "suffix zero and a good one", ref: smallRef, data: small, header: http.Header{"Range": {"bytes=-0,2-5"}},
			wantStatus: 206, wantRange: "bytes 2-5/16", wantBody: "2345"},
		{name: "thousands of one-byte ranges", ref: bigRef, data: big, header: http.Header{"Range": {"bytes=" + ranges(2000, 2)}},
			wantStatus: 416, wantRange: "bytes */4096"},
		{name: "thousands on a small file", ref: smallRef, data: small, header: http.Header{"Range": {"bytes=" + strings.Repeat("0-,", 5000)}},
			wantStatus: 416, wantRange: "bytes */16"},
		{name: "too many", ref: bigRef, data: big, header: http.Header{"Range": {"bytes=" + ranges(maxRanges+1, 100)}},
			wantStatus: 416, wantRange: "bytes */4096"},
		{name: "overlapping merge to one part", ref: bigRef, data: big, header: http.Header{"Range": {"bytes=0-9,5-14,15-19"}},
			wantStatus: 206, wantRange: "bytes 0-19/4096", wantBody: big[:20]},
		{name: "repeated whole file", ref: smallRef, data: small, header: http.Header{"Range": {"bytes=0-,0-,0-,-16"}},
			wantStatus: 206, wantRange: "bytes 0-15/16", wantBody: small},
		{name: "multipart in request order", ref: bigRef, data: big, header: http.Header{"Range": {"bytes=1000-1009,0-9"}},
			wantStatus: 206, wantParts: []part{{"bytes 1000-1009/4096", big[1000:1010]}, {"bytes 0-9/4096", big[:10]}}},
		{name: "max ranges multipart", ref: bigRef, data: big, header: http.Header{"Range": {"bytes=" + ranges(maxRanges, 100)}},
			wantStatus: 206, wantParts: func() []part {
				var ps []part
				for i := range maxRanges {
					ps = append(ps, part{fmt.Sprintf("bytes %d-%d/4096", i*100, i*100), big[i*100 : i*100+1]})
				}
				return ps
			}()},
		{name: "multipart larger than file", ref: smallRef, data: small, header: http.Header{"Range": {"bytes=0-0,2-2"}},
			wantStatus: 200, wantBody: small},
		{name: "other unit", ref: smallRef, data: small, header: http.Header{"Range": {"items=0-5"}},
			wantStatus: 200, wantBody: small},
		{name: "unit case", ref: smallRef, data: small, header: http.Header{"Range": {"BYTES=2-5"}},
			wantStatus: 206, wantRange: "bytes 2-5/16", wantBody: "2345"},
		{name: "plus sign", ref: smallRef, data: small, header: http.Header{"Range": {"bytes=+2-5"}},
			wantStatus: 416, wantRange: "bytes */16"},
		{name: "invalid", ref: smallRef, data: small, header: http.Header{"Range": {"bytes=x"}},
			wantStatus: 416, wantRange: "bytes */16"},
		// RFC 9110 §13.1.5: a failed If-Range means the Range is ignored,
		// even one that would be rejected. Stored files have no ETag.
		{name: "if-range mismatch", ref: smallRef, data: small,
			header:     http.Header{"Range": {"bytes=-0"}, "If-Range": {`"some-etag"`}},
			wantStatus: 200, wantBody: small},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, body := do(t, http.MethodGet, srv.URL+DownloadPrefix+tt.ref, tt.header)
			if resp == nil {
				return
			}
			if resp.StatusCode != 416 && len(body) > len(tt.data) {
				t.Errorf("body is %d bytes, more than the %d-byte file", len(body), len(tt.data))
			}
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status = %d, want %d (%d-byte body)", resp.StatusCode, tt.wantStatus, len(body))
			}
			if got := resp.Header.Get("Content-Range"); got != tt.wantRange {
				t.Errorf("Content-Range = %q, want %q", got, tt.wantRange)
			}
			if resp.StatusCode == 416 {
				return
			}
			if tt.wantParts == nil {
				if string(body) != tt.wantBody {
					t.Errorf("body = %.40q, want %.40q", body, tt.wantBody)
				}
				return
			}
			mt, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
			if err != nil || mt != "multipart/byteranges" {
				t.Fatalf("Content-Type = %q, want multipart/byteranges", resp.Header.Get("Content-Type"))
			}
			var got []part
			mr := multipart.NewReader(strings.NewReader(string(body)), params["boundary"])
			for {
				p, err := mr.NextPart()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				b, err := io.ReadAll(p)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, part{p.Header.Get("Content-Range"), string(b)})
			}
			if diff := cmp.Diff(tt.wantParts, got, cmp.AllowUnexported(part{})); diff != "" {
				t.Errorf("parts (-want +got):\n%s", diff)
			}
		})
	}
}
