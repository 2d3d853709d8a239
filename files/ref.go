package files

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

const (
	// RefPrefix starts every file_ref.
	RefPrefix = "file_"
	// refRandomBytes is the entropy of a ref: 160 bits, 32 base32 characters.
	refRandomBytes = 20
	// RefLen is the exact length of a well-formed file_ref.
	RefLen = len(RefPrefix) + refRandomBytes*8/5
	// DownloadPrefix is the relative URL path under which refs are served.
	DownloadPrefix = "/files/refs/"
	// RoutePattern is the net/http ServeMux pattern for [Store.Handler].
	// The connector server mounts it: mux.Handle(files.RoutePattern, st.Handler()).
	// It names no method: with "GET " in front, ServeMux would answer other
	// methods 405 itself, and the handler, which sets Allow: GET, HEAD and
	// Cache-Control and counts downloads_total{result="method_not_allowed"},
	// would never see them.
	RoutePattern = DownloadPrefix + "{file_ref}"

	// logPrefixLen is how much of a ref may appear in logs: the fixed prefix
	// and 4 random characters (20 bits), enough to correlate, useless to fetch.
	logPrefixLen = len(RefPrefix) + 4
)

// refEncoding is RFC 4648 base32 in lower case without padding: URL-safe and
// file-name-safe on every file system.
var refEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newRef returns a fresh file_ref from crypto/rand.
func newRef() string {
	var b [refRandomBytes]byte
	rand.Read(b[:]) // never returns an error (Go 1.24+); it crashes the program instead
	return RefPrefix + refEncoding.EncodeToString(b[:])
}

// ValidRef reports whether s is a well-formed file_ref: exactly RefLen bytes,
// the "file_" prefix, then only characters of the lowercase base32 alphabet.
// It looks at nothing but s, so callers can reject hostile input (path
// separators, dots, percent escapes, non-ASCII, huge strings) before any
// database or file-system access.
func ValidRef(s string) bool {
	if len(s) != RefLen || !strings.HasPrefix(s, RefPrefix) {
		return false
	}
	for i := len(RefPrefix); i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '2' || c > '7') {
			return false
		}
	}
	return true
}

// redactRef returns the part of a ref that may be logged.
func redactRef(ref string) string {
	if len(ref) <= logPrefixLen {
		return ref
	}
	return ref[:logPrefixLen] + "…"
}

// Meta describes a file given to [Store.Put]. The zero value is usable: the
// MIME type defaults to application/octet-stream and the filename to the ref
// plus an extension guessed from the MIME type.
type Meta struct {
	MIMEType string
	Filename string
	// Width and Height are the pixel size of an image or video, 0 otherwise.
	Width, Height int
}

// Ref is a stored file as tool results carry it (the file fields of the
// README's tool catalogue).
// DownloadURL is relative ("/files/refs/<file_ref>"); ExpiresAt is encoded as
// Unix milliseconds in JSON.
type Ref struct {
	FileRef     string    `json:"file_ref"`
	DownloadURL string    `json:"download_url"`
	MIMEType    string    `json:"mime_type"`
	Filename    string    `json:"filename"`
	ByteSize    int64     `json:"byte_size"`
	Width       int       `json:"width,omitempty"`
	Height      int       `json:"height,omitempty"`
	ExpiresAt   time.Time `json:"-"`
}

// MarshalJSON encodes r with expires_at in Unix milliseconds.
func (r Ref) MarshalJSON() ([]byte, error) {
	type plain Ref // drops the methods, so no recursion
	return json.Marshal(struct {
		plain
		ExpiresAtMS int64 `json:"expires_at"`
	}{plain(r), r.ExpiresAt.UnixMilli()})
}

// UnmarshalJSON decodes the form MarshalJSON writes.
func (r *Ref) UnmarshalJSON(b []byte) error {
	type plain Ref
	var v struct {
		plain
		ExpiresAtMS int64 `json:"expires_at"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("decode file ref: %w", err)
	}
	*r = Ref(v.plain)
	r.ExpiresAt = time.UnixMilli(v.ExpiresAtMS)
	return nil
}
