package connector_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/connector/xagenttest"
)

func get(t *testing.T, url, key string) (int, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctxT(t), "GET", url, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestControlPlane(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{key: apiKey})
	v, err := xagenttest.LoadValidator()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, path, key string
		status          int
	}{
		{"card public", "/connector-card.json", "", 200},
		{"skill public, none yet", "/skill.md", "", 204},
		{"health missing key", "/health", "", 401},
		{"health wrong key", "/health", "wrong", 403},
		{"health", "/health", apiKey, 200},
		{"metrics missing key", "/metrics", "", 401},
		{"metrics wrong key", "/metrics", apiKey + "x", 403},
		{"metrics", "/metrics", apiKey, 200},
		{"ws missing key", "/ws", "", 401},
		{"ws wrong key", "/ws", "nope", 403},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			status, body := get(t, e.url+tc.path, tc.key)
			if status != tc.status {
				t.Fatalf("GET %s = %d, want %d", tc.path, status, tc.status)
			}
			if strings.Contains(body, apiKey) {
				t.Error("body contains the API key")
			}
		})
	}

	_, body := get(t, e.url+"/connector-card.json", "")
	if err := v.Card([]byte(body)); err != nil {
		t.Error(err)
	}
	var card connector.Card
	json.Unmarshal([]byte(body), &card)
	if err := connector.ValidateCard(&card); err != nil {
		t.Error(err)
	}
	if !card.Security.APIKeyRequired {
		t.Error("security.api_key_required = false with a key configured")
	}
	if got := card.Tools[0].InputSchema["required"]; !cmp.Equal(got, []any{"connector_channel_id"}) {
		t.Errorf("tool input_schema.required = %v", got)
	}

	_, body = get(t, e.url+"/health", apiKey)
	var h connector.Health
	json.Unmarshal([]byte(body), &h)
	if h.Status != "ok" || h.CardID != cardID || h.CardVersion != "0.1.0" || h.ProtocolVersion != "3.0" || h.Build != card.Build {
		t.Errorf("health = %s", body)
	}
	if problems, err := testutil.GatherAndLint(e.srv.Registry()); err != nil || len(problems) > 0 {
		t.Errorf("metrics lint: %v %v", problems, err)
	}
	_, body = get(t, e.url+"/metrics", apiKey)
	for _, m := range []string{"adb_connector_ws_connections", "adb_connector_lease_expirations_total",
		"go_goroutines", "go_memstats_heap_alloc_bytes", "process_open_fds", "process_resident_memory_bytes"} {
		if !strings.Contains(body, m) {
			t.Errorf("/metrics lacks %s", m)
		}
	}
}

func TestSkillServed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{cfg: func(c *connector.Config) { c.Skill = []byte("---\nname: connector-device-adb\n---\n# Skill\n") }})
	status, body := get(t, e.url+"/skill.md", "")
	if status != 200 || !strings.Contains(body, "connector-device-adb") {
		t.Errorf("GET /skill.md = %d %q", status, body)
	}
}

func TestOpenServerWithoutKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	if status, _ := get(t, e.url+"/health", ""); status != 200 {
		t.Errorf("/health without key configured = %d", status)
	}
	if !strings.Contains(e.logs.String(), "NO API KEY CONFIGURED") {
		t.Error("no loud warning about the open server")
	}
	if e.srv.Card().Security.APIKeyRequired {
		t.Error("api_key_required = true without a key")
	}
}

func TestBadCardRefusesToStart(t *testing.T) {
	t.Parallel()
	db := newEnv(t, envOpts{}).db
	cfg := connector.Config{Card: cardConfig(), DB: db}
	cfg.Card.Supports.Profiles = []string{connector.ProfileIMV2} // im profile on a device card
	if _, err := connector.New(context.Background(), cfg); err == nil {
		t.Fatal("New accepted an invalid card")
	}
}

func TestWebSocketUpgradeRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{key: apiKey})
	cases := []struct {
		name   string
		opts   xagenttest.Options
		status int
	}{
		{"missing key", xagenttest.Options{}, 401},
		{"wrong key", xagenttest.Options{APIKey: "x" + apiKey}, 403},
		{"no subprotocol", xagenttest.Options{APIKey: apiKey, Subprotocols: []string{}}, 400},
		{"wrong subprotocol", xagenttest.Options{APIKey: apiKey, Subprotocols: []string{"xagent.connector.packet.v0"}}, 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, resp, err := xagenttest.Dial(ctxT(t), e.url, tc.opts)
			if err == nil {
				c.Close()
				t.Fatal("upgrade succeeded")
			}
			if resp == nil || resp.StatusCode != tc.status {
				t.Fatalf("dial error %v, response %v; want status %d", err, resp, tc.status)
			}
		})
	}
}
