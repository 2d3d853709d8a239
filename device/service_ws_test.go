package device

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/connector/xagenttest"
	"github.com/adb-connector/adb-connector/device/auth"
	"github.com/adb-connector/adb-connector/device/card"
	"github.com/adb-connector/adb-connector/device/descriptor"
	"github.com/adb-connector/adb-connector/device/tools"
	"github.com/adb-connector/adb-connector/internal/testkit"
)

// wsEnv is svcEnv behind a real connector.Server on /ws, with the Service
// as its Profile and a status tool that goes through DeviceFor.
type wsEnv struct {
	*svcEnv
	srv    *connector.Server
	url    string
	logs   *testkit.LogBuffer
	client *xagenttest.Client
}

func newWSEnv(t *testing.T, devices int) *wsEnv {
	t.Helper()
	logs := &testkit.LogBuffer{}
	log := logs.JSONLogger()
	e := &wsEnv{logs: logs}
	e.svcEnv = prepareSvcEnv(t, devices, func(c *ServiceConfig) {
		c.Logger = log
		c.ToolIDs = []string{"android_device_status"}
	})
	e.build(t)
	reg := connector.NewRegistry()
	err := reg.Register(connector.Tool{
		ID: "android_device_status", Profile: connector.ProfileDeviceV1, Title: "Device status",
		InputSchema: map[string]any{"type": "object"},
		Handler: func(ctx context.Context, call connector.ToolCall) (any, error) {
			_, meta, err := e.svc.DeviceFor(ctx, call.Channel.ID)
			if err != nil {
				return nil, tools.WireError(err)
			}
			return map[string]string{"model": meta.Model, "device": meta.Hint}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := connector.New(t.Context(), connector.Config{
		Card: card.CardConfig(), Registry: reg, Profile: e.svc, DB: e.db, Logger: log,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.srv = srv
	e.svc.Start(srv)
	ts := httptest.NewServer(srv)
	e.url = ts.URL
	t.Cleanup(func() {
		e.svc.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		ts.Close()
	})
	e.client = xagenttest.New(t, e.url, xagenttest.Options{KeepRaw: true})
	if _, err := e.client.Hello(t.Context(), card.CardID, ""); err != nil {
		t.Fatal(err)
	}
	return e
}

type wireAck struct {
	Status     string                `json:"status"`
	SessionID  string                `json:"auth_session_id"`
	QRCodeText string                `json:"qr_code_text"`
	Descriptor *connector.Descriptor `json:"connection_descriptor"`
}

// request sends one request and decodes its ack payload.
func (e *wsEnv) request(t *testing.T, typ, ch string, payload any) (*connector.Packet, wireAck) {
	t.Helper()
	p, err := e.client.Request(t.Context(), typ, ch, payload)
	if err != nil {
		t.Fatalf("%s: %v", typ, err)
	}
	var a wireAck
	if len(p.Payload) > 0 {
		if err := json.Unmarshal(p.Payload, &a); err != nil {
			t.Fatal(err)
		}
	}
	return p, a
}

// waitStatus consumes descriptor pushes until one for ch has status, at
// most d.
func (e *wsEnv) waitStatus(t *testing.T, ch, status string, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), d)
	defer cancel()
	var seen []string
	for {
		p, err := e.client.WaitPush(ctx, connector.TypeDescriptorPush)
		if err != nil {
			t.Fatalf("no %q descriptor push within %s (saw %v): %v", status, d, seen, err)
		}
		var pl struct {
			D connector.Descriptor `json:"connection_descriptor"`
		}
		if err := json.Unmarshal(p.Payload, &pl); err != nil {
			t.Fatal(err)
		}
		seen = append(seen, pl.D.Connection.Status)
		if p.ChannelID == ch && pl.D.Connection.ChannelID == ch && pl.D.Connection.Status == status {
			return
		}
	}
}

// TestOverWebSocket runs both auth flows, the lifecycle pushes and a tool
// through a real connector.Server, every frame checked against the
// protocol schemas, then scans every byte sent and logged for secrets and
// device addresses.
func TestOverWebSocket(t *testing.T) {
	t.Parallel()
	e := newWSEnv(t, 2)
	e.waitPresence(t, e.key(0), descriptor.PresenceOnline)
	e.waitPresence(t, e.key(1), descriptor.PresenceOnline)
	d0 := e.adbEnv.Devices[0]

	cha, open, err := e.client.OpenChannel(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(open.Payload, []byte(`"status":"created"`)) {
		t.Errorf("channel.open.ack: %s", open.Payload)
	}
	code, err := e.op.Pair(t.Context(), d0.Serial(), 0, false)
	if err != nil {
		t.Fatal(err)
	}
	p, a := e.request(t, connector.TypeAuthStart, cha, map[string]any{
		"flow_id": auth.FlowPairing, "input": map[string]string{"serial": d0.Serial(), "pairing_code": code}})
	if p.Type != connector.TypeAuthStartAck || a.Status != "authenticated" || a.Descriptor == nil ||
		a.Descriptor.Connection.Status != "connected" || a.Descriptor.Tools[0].Status != "available" {
		t.Fatalf("auth.start pairing: %s %s", p.Type, p.Payload)
	}
	p, _ = e.request(t, connector.TypeToolInvoke, cha, map[string]any{
		"tool_id": "android_device_status", "arguments": map[string]any{"connector_channel_id": cha}})
	if p.Error != nil || !bytes.Contains(p.Payload, []byte(`"model":"Pixel 6"`)) {
		t.Errorf("tool.invoke: %s %v", p.Payload, p.Error)
	}

	d0.DropLink()
	e.waitStatus(t, cha, "offline", pushDeadline)
	e.waitStatus(t, cha, "connected", setupWait)

	// device_request on a second channel, approved by the operator.
	chb, _, err := e.client.OpenChannel(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	_, a = e.request(t, connector.TypeAuthStart, chb, map[string]any{"flow_id": auth.FlowRequest})
	if a.Status != "pending" || a.QRCodeText == "" {
		t.Fatalf("auth.start request: %+v", a)
	}
	if _, err := e.op.Approve(t.Context(), a.QRCodeText, "", false); err != nil {
		t.Fatal(err)
	}
	e.waitStatus(t, chb, "connected", pushDeadline)
	_, st := e.request(t, connector.TypeAuthStatus, chb, map[string]any{"flow_id": auth.FlowRequest, "auth_session_id": a.SessionID})
	if st.Status != "authenticated" || st.Descriptor == nil || st.Descriptor.Connection.Status != "connected" {
		t.Errorf("auth.status: %+v", st)
	}
	p, c := e.request(t, connector.TypeAuthCancel, chb, map[string]any{"auth_session_id": a.SessionID})
	if p.Type != connector.TypeAuthCancelAck || c.Status != "ignored" || c.Descriptor == nil {
		t.Errorf("auth.cancel after approval: %s %s", p.Type, p.Payload)
	}
	p, _ = e.request(t, connector.TypeAuthStart, chb, map[string]any{"flow_id": "nope"})
	if p.Error == nil || p.Error.Code != "invalid_arguments" {
		t.Errorf("auth.start unknown flow: %s %+v", p.Type, p.Error)
	}
	p, _ = e.request(t, connector.TypeAuthStatus, chb, map[string]any{"auth_session_id": "auth_unknown"})
	if p.Error == nil || p.Error.Code != "auth_session_not_found" {
		t.Errorf("auth.status unknown: %s %+v", p.Type, p.Error)
	}

	if _, err := e.op.Unbind(t.Context(), d0.Serial()); err != nil {
		t.Fatal(err)
	}
	e.waitStatus(t, cha, "revoked", pushDeadline)
	p, _ = e.request(t, connector.TypeToolInvoke, cha, map[string]any{
		"tool_id": "android_device_status", "arguments": map[string]any{"connector_channel_id": cha}})
	if p.Error == nil || p.Error.Code != "connection_not_authenticated" {
		t.Errorf("tool.invoke on a revoked channel: %s %+v", p.Payload, p.Error)
	}
	_, lo := e.request(t, connector.TypeAuthLogout, chb, nil)
	if lo.Status != "ok" || lo.Descriptor == nil || lo.Descriptor.Connection.Status != "created" {
		t.Errorf("auth.logout: %+v", lo)
	}

	host, port, _ := strings.Cut(d0.Serial(), ":")
	for _, f := range e.client.Raw() {
		if bytes.Contains(f, []byte(code)) {
			t.Errorf("frame holds the pairing code: %s", f)
		}
		for _, s := range []string{d0.Serial(), e.adbEnv.Devices[1].Serial(), host, ":" + port} {
			if bytes.Contains(f, []byte(s)) {
				t.Errorf("frame holds %q: %s", s, f)
			}
		}
	}
	// The request code may be in acks (README "Secrets"), never in logs.
	if logs := e.logs.String(); strings.Contains(logs, code) || strings.Contains(logs, a.QRCodeText) ||
		strings.Contains(logs, d0.Serial()) {
		t.Errorf("logs hold the pairing code, the request code or a full serial")
	}
}
