package connector_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/connector/xagenttest"
	"github.com/adb-connector/adb-connector/internal/buildinfo"
	"github.com/adb-connector/adb-connector/internal/testkit"
	"github.com/adb-connector/adb-connector/store"
)

const (
	cardID = "device.adb"
	apiKey = "sk-test-6f1c0e4e2b9d4f0aa1c3SECRET"
)

func cardConfig() connector.CardConfig {
	return connector.CardConfig{
		CardID:    cardID,
		Connector: connector.CardConnector{Name: "ADB Device Connector", Version: "0.1.0"},
		Supports: connector.CardSupports{
			UserChannelMode: "multiple",
			TargetTypes:     []string{"device"},
			Targets:         []connector.CardTarget{{TargetType: "device", Provider: "adb", Label: "Android Device"}},
			Profiles:        []string{connector.ProfileDeviceV1},
		},
		Security: connector.CardSecurity{TrustLevel: "local", DataClasses: []string{"screen_image"}},
		Build:    buildinfo.Info{Version: "1.2.3", GitTag: "v1.2.3", GitRev: "abc1234", BuildTime: "2612020000"},
	}
}

// testTools returns the tools of the test registry. release unblocks "block".
func testTools(release <-chan struct{}, started chan<- string) []connector.Tool {
	obj := map[string]any{"type": "object"}
	return []connector.Tool{
		{ID: "echo", Profile: connector.ProfileDeviceV1, InputSchema: obj, Handler: func(ctx context.Context, call connector.ToolCall) (any, error) {
			return map[string]any{"arguments": call.Arguments, "channel": call.Channel.ID, "tool_call_id": call.ToolCallID}, nil
		}},
		{ID: "block", Profile: connector.ProfileDeviceV1, InputSchema: obj, Handler: func(ctx context.Context, call connector.ToolCall) (any, error) {
			if started != nil {
				started <- call.Channel.ID
			}
			select {
			case <-release:
				return map[string]any{"released": true}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}},
		{ID: "fail", Profile: connector.ProfileDeviceV1, InputSchema: obj, Handler: func(ctx context.Context, call connector.ToolCall) (any, error) {
			return nil, errors.New("exec failed: Authorization: Bearer " + apiKey)
		}},
		{ID: "offline", Profile: connector.ProfileDeviceV1, InputSchema: obj, Handler: func(ctx context.Context, call connector.ToolCall) (any, error) {
			return nil, connector.NewError("device_offline", "the device is offline")
		}},
		{ID: "progress", Profile: connector.ProfileDeviceV1, InputSchema: obj, Handler: func(ctx context.Context, call connector.ToolCall) (any, error) {
			call.Progress("half way", 0.5)
			return map[string]any{"done": true}, nil
		}},
	}
}

type env struct {
	srv     *connector.Server
	url     string
	dir     string
	db      *store.DB
	logs    *testkit.LogBuffer
	release chan struct{}
	started chan string
	prof    *fakeProfile

	releaseAll func()
}

type envOpts struct {
	key     string
	grace   time.Duration
	profile bool
	dir     string
	cfg     func(*connector.Config)
	noTools bool
}

func newEnv(t testing.TB, o envOpts) *env {
	t.Helper()
	e := &env{dir: o.dir, logs: &testkit.LogBuffer{}, release: make(chan struct{}), started: make(chan string, 16)}
	if e.dir == "" {
		e.dir = t.TempDir()
	}
	db, err := store.Open(context.Background(), e.dir)
	if err != nil {
		t.Fatal(err)
	}
	e.db = db
	reg := connector.NewRegistry()
	if !o.noTools {
		for _, tool := range testTools(e.release, e.started) {
			if err := reg.Register(tool); err != nil {
				t.Fatal(err)
			}
		}
	}
	cfg := connector.Config{
		Card:       cardConfig(),
		Registry:   reg,
		DB:         db,
		APIKey:     o.key,
		LeaseGrace: o.grace,
		Logger:     e.logs.JSONLogger(),
	}
	if o.profile {
		e.prof = newFakeProfile()
		cfg.Profile = e.prof
	}
	if o.cfg != nil {
		o.cfg(&cfg)
	}
	srv, err := connector.New(context.Background(), cfg)
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	e.srv = srv
	if e.prof != nil {
		e.prof.srv = srv
	}
	ts := httptest.NewServer(srv)
	e.url = ts.URL
	var once sync.Once
	e.releaseAll = func() { once.Do(func() { close(e.release) }) }
	t.Cleanup(func() {
		e.releaseAll()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		ts.Close()
		db.Close()
		if o.key != "" && bytes.Contains([]byte(e.logs.String()), []byte(o.key)) {
			t.Errorf("API key found in logs")
		}
	})
	return e
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// helloed dials, says hello and returns the client and connector_id.
func (e *env) helloed(t *testing.T, key, connectorID string) (*xagenttest.Client, string) {
	t.Helper()
	c := xagenttest.New(t, e.url, xagenttest.Options{APIKey: key, KeepRaw: true})
	id, err := c.Hello(ctxT(t), cardID, connectorID)
	if err != nil {
		t.Fatal(err)
	}
	return c, id
}

// openChannel dials, says hello with no key and opens one new channel; it
// returns the client, its connector_id and the channel id.
func (e *env) openChannel(t *testing.T) (c *xagenttest.Client, connectorID, ch string) {
	t.Helper()
	c, connectorID = e.helloed(t, "", "")
	ch, _, err := c.OpenChannel(ctxT(t), "")
	if err != nil {
		t.Fatal(err)
	}
	return c, connectorID, ch
}

// stop closes the client, shuts the server down and closes the database,
// as a process exit would, so the next newEnv on e.dir is a restart.
func (e *env) stop(c *xagenttest.Client) {
	c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	e.srv.Shutdown(ctx)
	e.db.Close()
}

func payloadOf(t *testing.T, p *connector.Packet) map[string]any {
	t.Helper()
	var m map[string]any
	if len(p.Payload) > 0 {
		if err := json.Unmarshal(p.Payload, &m); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func wantError(t *testing.T, p *connector.Packet, typ, code string) {
	t.Helper()
	if p.Type != typ || p.Error == nil || p.Error.Code != code {
		t.Fatalf("got %s error=%v, want %s with code %s", p.Type, p.Error, typ, code)
	}
}

// fakeProfile is a Profile for tests: descriptor status per channel, auth
// sessions, and a record of released channels.
type fakeProfile struct {
	srv      *connector.Server
	mu       sync.Mutex
	status   map[string]string
	released chan []connector.Channel
}

func newFakeProfile() *fakeProfile {
	return &fakeProfile{status: map[string]string{}, released: make(chan []connector.Channel, 8)}
}

func (f *fakeProfile) setStatus(ch, st string) {
	f.mu.Lock()
	f.status[ch] = st
	f.mu.Unlock()
}

func (f *fakeProfile) Descriptor(ctx context.Context, ch connector.Channel) (connector.DescriptorState, error) {
	f.mu.Lock()
	st := f.status[ch.ID]
	f.mu.Unlock()
	if st == "" {
		st = connector.StatusCreated
	}
	ds := connector.DescriptorState{Status: st, Target: connector.DescriptorTarget{Provider: "adb", Label: "Android Device", DisplayName: "Android Device not bound"}}
	if st == connector.StatusConnected {
		ds.Target.DisplayName = "Pixel 7 (R58***21)"
		ds.Tools = []connector.DescriptorTool{{ToolID: "echo", Status: connector.ToolAvailable, TargetPermissionState: connector.PermissionGranted}}
	}
	return ds, nil
}

func (f *fakeProfile) AuthStart(ctx context.Context, ch connector.Channel, payload json.RawMessage) (connector.AuthReply, error) {
	var in struct {
		FlowID string            `json:"flow_id"`
		Input  map[string]string `json:"input"`
	}
	json.Unmarshal(payload, &in)
	if in.Input["pairing_code"] == "123456" {
		f.setStatus(ch.ID, connector.StatusConnected)
		return connector.AuthReply{Payload: map[string]any{"flow_id": in.FlowID, "auth_session_id": "auth_1", "status": "authenticated"}, WithDescriptor: true}, nil
	}
	return connector.AuthReply{Payload: map[string]any{"flow_id": in.FlowID, "auth_session_id": "auth_1", "status": "pending", "message": "ask the operator"}}, nil
}

func (f *fakeProfile) AuthStatus(ctx context.Context, ch connector.Channel, payload json.RawMessage) (connector.AuthReply, error) {
	return connector.AuthReply{}, connector.NewError(connector.CodeAuthSessionNotFound, "authentication session not found")
}

func (f *fakeProfile) AuthCancel(ctx context.Context, ch connector.Channel, payload json.RawMessage) (connector.AuthReply, error) {
	return connector.AuthReply{Payload: map[string]any{"auth_session_id": "auth_1", "status": "canceled", "auth_status": "unauthenticated"}}, nil
}

func (f *fakeProfile) AuthLogout(ctx context.Context, ch connector.Channel, payload json.RawMessage) (connector.AuthReply, error) {
	f.setStatus(ch.ID, connector.StatusCreated)
	return connector.AuthReply{Payload: map[string]any{"status": "ok"}}, nil
}

func (f *fakeProfile) ChannelsReleased(ctx context.Context, chs []connector.Channel) {
	f.released <- chs
}
