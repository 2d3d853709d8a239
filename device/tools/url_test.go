package tools

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// urlCases are URLs and how checkURL answers them with the default
// schemes: "" accepted, "arg" invalid_arguments, "policy" not_permitted.
var urlCases = []struct{ url, want string }{
	{"https://example.com/", ""},
	{"http://example.com/a?q=a%20b&c=d#top", ""},
	{"HTTPS://EXAMPLE.COM", ""},
	{"https://例え.jp/パス", ""},
	{"https://example.com/a b", "arg"},
	{"https://example.com/\nintent:x", "arg"},
	{"https://example.com/\r", "arg"},
	{"https://example.com/\t", "arg"},
	{"https://example.com/\x00", "arg"},
	{"https://example.com/\u00a0", "arg"},
	{"https://example.com/\u202e", "arg"},
	{"https://example.com/\u200b", "arg"},
	{"https://example.com/\xff", "arg"},
	{"https://" + strings.Repeat("a", maxURLBytes), "arg"},
	{"example.com", "arg"},
	{"/path", "arg"},
	{"", "arg"},
	{"https:", "arg"},
	{"https:///path", "arg"},
	{"http://[::1", "arg"},
	{"intent:#Intent;component=com.android.settings/.Settings;end", "policy"},
	{"intent://x#Intent;scheme=https;end", "policy"},
	{"file:///sdcard/DCIM", "policy"},
	{"content://com.android.contacts/contacts", "policy"},
	{"javascript:alert(1)", "policy"},
	{"JavaScript:alert(1)", "policy"},
	{"tel:123", "policy"},
	{"market://details?id=com.example", "policy"},
}

func TestCheckURL(t *testing.T) {
	t.Parallel()
	for _, tc := range urlCases {
		err := checkURL(tc.url, defaultURLSchemes)
		var (
			ae *argError
			pe *policyError
		)
		switch tc.want {
		case "":
			if err != nil {
				t.Errorf("%q refused: %v", tc.url, err)
			}
		case "arg":
			if !errors.As(err, &ae) || ae.Field != "url" {
				t.Errorf("%q: %v, want an *ArgError on url", tc.url, err)
			}
		case "policy":
			if !errors.As(err, &pe) || WireError(err).Code != codeNotPermitted || !strings.Contains(pe.Message, "https") {
				t.Errorf("%q: %v, want not_permitted", tc.url, err)
			}
		}
		if err != nil && len(tc.url) > 8 && strings.Contains(err.Error(), tc.url) {
			t.Errorf("%q: the message echoes the URL: %v", tc.url, err)
		}
	}
	// The operator may allow more.
	if err := checkURL("market://details?id=com.example", []string{"http", "https", "market"}); err != nil {
		t.Errorf("an allowed scheme refused: %v", err)
	}
}

// FuzzCheckURL: whatever is accepted is an absolute URL of an allowed
// scheme, within maxURLBytes, with no space, control or invisible
// character; anything else is an *argError or a *policyError.
func FuzzCheckURL(f *testing.F) {
	for _, tc := range urlCases {
		f.Add(tc.url)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		err := checkURL(raw, defaultURLSchemes)
		if err != nil {
			var (
				ae *argError
				pe *policyError
			)
			if !errors.As(err, &ae) && !errors.As(err, &pe) {
				t.Fatalf("%q: error %T %v", raw, err, err)
			}
			return
		}
		if len(raw) > maxURLBytes || strings.ContainsFunc(raw, func(r rune) bool {
			return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == unicode.ReplacementChar
		}) {
			t.Fatalf("accepted %q", raw)
		}
		u, err := url.Parse(raw)
		if err != nil || !slices.Contains(defaultURLSchemes, strings.ToLower(u.Scheme)) || u.Host == "" {
			t.Fatalf("accepted %q (%v)", raw, err)
		}
	})
}
