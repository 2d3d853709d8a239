package console

import (
	"io/fs"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/device/audit"
)

// TestAssetsAreLocal: no template, script or style names another host, so
// a browser fetches nothing from outside the server (the browser test in
// cmd/adb-connector checks the requests themselves).
func TestAssetsAreLocal(t *testing.T) {
	external := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}|@import|url\(`)
	for _, root := range []fs.FS{templateFS, staticFS} {
		err := fs.WalkDir(root, ".", func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(root, path)
			if err != nil {
				return err
			}
			text := string(b)
			// SVG's namespace is a name, not a fetch.
			text = strings.ReplaceAll(text, `xmlns="http://www.w3.org/2000/svg"`, "")
			if m := external.FindString(text); m != "" {
				t.Errorf("%s names %q: every asset must come from the console server", path, m)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestNoInlineScript: the CSP allows no inline script, so none may be
// written (it would silently not run).
func TestNoInlineScript(t *testing.T) {
	inline := regexp.MustCompile(`(?i)<script[^>]*>[^<]|\son[a-z]+=|javascript:|<style`)
	err := fs.WalkDir(templateFS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(templateFS, path)
		if err != nil {
			return err
		}
		if m := inline.FindString(string(b)); m != "" {
			t.Errorf("%s: inline script or style %q", path, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestAuditFilter(t *testing.T) {
	tests := []struct {
		query   string
		want    audit.Filter
		wantBad bool
	}{
		{"", audit.Filter{Limit: defaultAuditRows}, false},
		{"since=2h&device=VIRT1&tool=android_tap&outcome=ok&channel=c1&limit=5",
			audit.Filter{Since: "2h", Device: "VIRT1", Tool: "android_tap", Outcome: "ok", Channel: "c1", Limit: 5}, false},
		{"after=42", audit.Filter{Limit: defaultAuditRows, AfterID: 42}, false},
		{"limit=0", audit.Filter{}, true},
		{"limit=1001", audit.Filter{}, true},
		{"limit=x", audit.Filter{}, true},
		{"after=-1", audit.Filter{}, true},
	}
	for _, tt := range tests {
		q, err := url.ParseQuery(tt.query)
		if err != nil {
			t.Fatal(err)
		}
		got, bad := auditFilter(q)
		if (bad != "") != tt.wantBad {
			t.Errorf("%q: bad %q, want bad %v", tt.query, bad, tt.wantBad)
			continue
		}
		if !tt.wantBad && got != tt.want {
			t.Errorf("%q: %+v, want %+v", tt.query, got, tt.want)
		}
	}
}

// FuzzAuditFilter: any query string gives a filter within bounds or a
// refusal, and a filter's own query reads back as the same filter.
func FuzzAuditFilter(f *testing.F) {
	for _, s := range []string{"", "since=2h&limit=5", "after=42&tool=android_tap", "limit=1001", "device=%E2%80%A6A1B2&until=2026-01-02T15:04:05Z", "limit=%00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		got, bad := auditFilter(q)
		if bad != "" {
			return
		}
		if got.Limit < 1 || got.Limit > maxAuditRows || got.AfterID < 0 {
			t.Fatalf("%q: filter out of bounds %+v", raw, got)
		}
		again, bad := auditFilter(filterQuery(got))
		if bad != "" {
			t.Fatalf("%q: its own query %q refused: %s", raw, filterQuery(got).Encode(), bad)
		}
		got.AfterID = 0
		if again != got {
			t.Fatalf("%q: round trip %+v, want %+v", raw, again, got)
		}
	})
}

func TestTokenEqual(t *testing.T) {
	if !tokenEqual("abc", "abc") || tokenEqual("abc", "abd") || tokenEqual("", "abc") || tokenEqual("abc", "abcd") {
		t.Fatal("tokenEqual")
	}
}
