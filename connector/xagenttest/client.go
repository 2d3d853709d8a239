package xagenttest

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/connector/xagentclient"
)

// Options configure Dial. The zero value dials with the standard subprotocol,
// no API key, validation on.
type Options struct {
	// APIKey is sent as "Authorization: Bearer <key>" when non-empty.
	APIKey string
	// Subprotocols offered; nil means [connector.Subprotocol], empty non-nil none.
	Subprotocols []string
	// SkipValidation turns off schema validation (benchmarks only).
	SkipValidation bool
	// KeepRaw keeps every received frame (for secret scans); see Raw.
	KeepRaw bool
}

// Client is the xAgent-side client (package xagentclient). Safe for
// concurrent use.
type Client = xagentclient.Client

// ErrClosed is returned when the socket closed while waiting.
var ErrClosed = xagentclient.ErrClosed

// Dial connects to baseURL (http://host:port) + "/ws", validating every
// packet received unless opts.SkipValidation. The returned *http.Response
// explains a refused upgrade (status 401/403/400).
func Dial(ctx context.Context, baseURL string, opts Options) (*Client, *http.Response, error) {
	o := xagentclient.Options{APIKey: opts.APIKey, Subprotocols: opts.Subprotocols, KeepRaw: opts.KeepRaw}
	if !opts.SkipValidation {
		v, err := LoadValidator()
		if err != nil {
			return nil, nil, err
		}
		o.Validate = v.Packet
	}
	return xagentclient.Dial(ctx, baseURL, o)
}

// New dials for a test: it fails t on error, and at cleanup closes the
// client and reports every schema violation seen.
func New(t testing.TB, baseURL string, opts Options) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := Dial(ctx, baseURL, opts)
	if err != nil {
		t.Fatalf("dial %s: %v", baseURL, err)
	}
	t.Cleanup(func() {
		c.Close()
		for _, e := range c.Errors() {
			t.Errorf("received packet failed validation: %v", e)
		}
	})
	return c
}
