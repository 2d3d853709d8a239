package connector_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/connector/xagenttest"
)

func hello(card, connID, version string, profiles any) map[string]any {
	m := map[string]any{"connector_card_id": card, "connector_id": connID}
	if version != "" {
		m["protocol_version"] = version
	}
	if profiles != nil {
		m["supported_profiles"] = profiles
	}
	return m
}

func TestHelloErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{key: apiKey})
	dev := []string{connector.ProfileDeviceV1}
	cases := []struct {
		name    string
		typ     string
		payload any
		code    string
	}{
		{"user packet before hello", connector.TypeChannelOpen, map[string]any{}, connector.CodeHelloRequired},
		{"descriptor before hello", connector.TypeDescriptorGet, map[string]any{}, connector.CodeHelloRequired},
		{"card id mismatch", connector.TypeHello, hello("im.wechat", "", "3.0", dev), connector.CodeCardIDMismatch},
		{"protocol version missing", connector.TypeHello, hello(cardID, "", "", dev), connector.CodeUnsupportedProtocolVersion},
		{"protocol version 2.0", connector.TypeHello, hello(cardID, "", "2.0", dev), connector.CodeUnsupportedProtocolVersion},
		{"protocol version garbage", connector.TypeHello, hello(cardID, "", "three", dev), connector.CodeUnsupportedProtocolVersion},
		{"protocol version 2.9", connector.TypeHello, hello(cardID, "", "2.9", dev), connector.CodeUnsupportedProtocolVersion},
		{"protocol version empty string", connector.TypeHello, map[string]any{"connector_card_id": cardID, "protocol_version": "", "supported_profiles": dev}, connector.CodeUnsupportedProtocolVersion},
		{"protocol version three parts", connector.TypeHello, hello(cardID, "", "3.0.1", dev), connector.CodeUnsupportedProtocolVersion},
		{"protocol version signed", connector.TypeHello, hello(cardID, "", "+3.0", dev), connector.CodeUnsupportedProtocolVersion},
		{"protocol version number", connector.TypeHello, map[string]any{"connector_card_id": cardID, "protocol_version": 3.0, "supported_profiles": dev}, connector.CodeInvalidPacket},
		{"supported_profiles missing", connector.TypeHello, hello(cardID, "", "3.0", nil), connector.CodeInvalidPacket},
		{"no common profile", connector.TypeHello, hello(cardID, "", "3.0", []string{connector.ProfileIMV2}), connector.CodeUnsupportedProfile},
		{"hello payload missing", connector.TypeHello, nil, connector.CodeInvalidPacket},
		{"unknown type", "chat.message", map[string]any{}, connector.CodeUnsupportedPacket},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := xagenttest.New(t, e.url, xagenttest.Options{APIKey: apiKey})
			r, err := c.Request(ctxT(t), tc.typ, "", tc.payload)
			if err != nil {
				t.Fatal(err)
			}
			wantError(t, r, connector.TypeError, tc.code)
			// The socket stays usable.
			if _, err := c.Hello(ctxT(t), cardID, ""); err != nil {
				t.Fatalf("hello after error: %v", err)
			}
		})
	}
}

// TestHelloNewerVersions: protocol 3.0 §8.1/§12 reject only a missing
// version or one below 3.0; a newer xAgent gets our ack saying "3.0".
func TestHelloNewerVersions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	for _, v := range []string{"3.0", "3", "3.1", "3.10", "4.0", "4.3", "10.0"} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			c := xagenttest.New(t, e.url, xagenttest.Options{})
			r, err := c.Request(ctxT(t), connector.TypeHello, "", hello(cardID, "", v, []string{connector.ProfileDeviceV1}))
			if err != nil {
				t.Fatal(err)
			}
			if r.Type != connector.TypeHelloAck {
				t.Fatalf("hello %s: got %s %v", v, r.Type, r.Error)
			}
			if p := payloadOf(t, r); p["protocol_version"] != connector.ProtocolVersion {
				t.Errorf("hello %s: ack protocol_version = %v, want %s", v, p["protocol_version"], connector.ProtocolVersion)
			}
			if _, _, err := c.OpenChannel(ctxT(t), ""); err != nil {
				t.Errorf("hello %s: channel.open after ack: %v", v, err)
			}
		})
	}
}

func TestInvalidEnvelopeKeepsSocket(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	frames := []string{
		`not json`,
		`{"schema":"xagent.connector.packet/v1","type":"ping"}`,
		`{"schema":"wrong","packet_id":"p","type":"ping"}`,
		`{"schema":"xagent.connector.packet/v1","packet_id":"p","type":"ping","payload":"x"}`,
	}
	c := xagenttest.New(t, e.url, xagenttest.Options{})
	for _, f := range frames {
		if err := c.SendRaw(ctxT(t), websocket.MessageText, []byte(f)); err != nil {
			t.Fatal(err)
		}
		p, err := c.WaitPush(ctxT(t), connector.TypeError)
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, p, connector.TypeError, connector.CodeInvalidPacket)
	}
	r, err := c.Request(ctxT(t), connector.TypePing, "", nil)
	if err != nil || r.Type != connector.TypePong {
		t.Fatalf("ping after invalid packets: %v %v", r, err)
	}
	// An invalid packet with a readable request_id gets it echoed.
	r, err = c.RequestPacket(ctxT(t), &connector.Packet{Schema: "xagent.connector.packet/v0", RequestID: "req_bad", Type: "ping"})
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, r, connector.TypeError, connector.CodeInvalidPacket)
}

func TestPingPong(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	c := xagenttest.New(t, e.url, xagenttest.Options{})
	// ping works before hello too: it is not user-level.
	r, err := c.Request(ctxT(t), connector.TypePing, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Type != connector.TypePong || r.RequestID == "" || r.PacketID == "" || r.Time == 0 {
		t.Errorf("pong = %+v", r)
	}
}

func TestHelloAck(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	c := xagenttest.New(t, e.url, xagenttest.Options{})
	r, err := c.Request(ctxT(t), connector.TypeHello, "", hello(cardID, "", "3.0", []string{"xagent.im.v2", connector.ProfileDeviceV1}))
	if err != nil {
		t.Fatal(err)
	}
	if r.Type != connector.TypeHelloAck {
		t.Fatalf("got %s %v", r.Type, r.Error)
	}
	p := payloadOf(t, r)
	id, _ := p["connector_id"].(string)
	if p["connector_card_id"] != cardID || p["protocol_version"] != "3.0" || !strings.HasPrefix(id, "conn_device_adb_") {
		t.Errorf("hello.ack payload = %v", p)
	}
	// A second hello on the same socket with another connector_id is refused.
	r, err = c.Request(ctxT(t), connector.TypeHello, "", hello(cardID, "conn_other", "3.0", []string{connector.ProfileDeviceV1}))
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, r, connector.TypeError, connector.CodeConnectorIDMismatch)
}

func TestFrameLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	t.Run("binary frame", func(t *testing.T) {
		t.Parallel()
		c := xagenttest.New(t, e.url, xagenttest.Options{})
		c.SendRaw(ctxT(t), websocket.MessageBinary, []byte(`{}`))
		if got := c.CloseStatus(); got != websocket.StatusUnsupportedData {
			t.Errorf("close status = %v, want 1003", got)
		}
	})
	t.Run("oversized frame", func(t *testing.T) {
		t.Parallel()
		c := xagenttest.New(t, e.url, xagenttest.Options{})
		big := append([]byte(`{"schema":"xagent.connector.packet/v1","packet_id":"p","type":"ping","pad":"`), bytes.Repeat([]byte("a"), connector.MaxPacketBytes)...)
		big = append(big, `"}`...)
		c.SendRaw(ctxT(t), websocket.MessageText, big)
		if got := c.CloseStatus(); got != websocket.StatusMessageTooBig {
			t.Errorf("close status = %v, want 1009", got)
		}
	})
	t.Run("largest frame accepted", func(t *testing.T) {
		t.Parallel()
		c := xagenttest.New(t, e.url, xagenttest.Options{})
		pre := `{"schema":"xagent.connector.packet/v1","packet_id":"p","request_id":"r1","type":"ping","pad":"`
		b := append([]byte(pre), bytes.Repeat([]byte("a"), connector.MaxPacketBytes-len(pre)-2)...)
		b = append(b, `"}`...)
		if !json.Valid(b) || len(b) != connector.MaxPacketBytes {
			t.Fatal("bad test frame")
		}
		c.SendRaw(ctxT(t), websocket.MessageText, b)
		if _, err := c.WaitPush(ctxT(t), connector.TypePong); err != nil {
			t.Fatal(err)
		}
	})
}

func TestHelloTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{cfg: func(c *connector.Config) { c.HelloTimeout = 50 * time.Millisecond }})
	c := xagenttest.New(t, e.url, xagenttest.Options{})
	if got := c.CloseStatus(); got != websocket.StatusPolicyViolation {
		t.Errorf("close status = %v, want 1008", got)
	}
}

// TestOversizedIDsAreRefused: ids that would be stored or echoed are
// bounded (MaxIDBytes); longer is invalid_packet, nothing runs or is
// stored, the socket and other calls keep working.
func TestOversizedIDsAreRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	ctx := ctxT(t)
	c, _, ch := e.openChannel(t)
	long := strings.Repeat("x", connector.MaxIDBytes+1)
	ok := strings.Repeat("y", connector.MaxIDBytes)
	invokeWith := func(toolCallID, sessionID string) map[string]any {
		return map[string]any{"tool_id": "echo", "arguments": map[string]any{},
			"context": map[string]string{"tool_call_id": toolCallID, "session_id": sessionID}}
	}
	for name, pk := range map[string]*connector.Packet{
		"request_id": {Type: connector.TypePing, RequestID: long},
		"packet_id":  {Type: connector.TypePing, RequestID: "r1", PacketID: long},
		"channel":    {Type: connector.TypeDescriptorGet, RequestID: "r2", ChannelID: long},
	} {
		if err := c.Send(ctx, pk); err != nil {
			t.Fatal(err)
		}
		r, err := c.WaitPush(ctx, connector.TypeError)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		wantError(t, r, connector.TypeError, connector.CodeInvalidPacket)
		if len(r.RequestID) > connector.MaxIDBytes {
			t.Errorf("%s: an oversized request_id was echoed", name)
		}
	}
	for name, args := range map[string]map[string]any{
		"tool_call_id": invokeWith(long, ""),
		"session_id":   invokeWith("c1", long),
		"tool_id":      {"tool_id": long, "arguments": map[string]any{}},
	} {
		r, err := c.Request(ctx, connector.TypeToolInvoke, ch, args)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		wantError(t, r, connector.TypeError, connector.CodeInvalidPacket)
	}
	r, err := c.Request(ctx, connector.TypeHello, "", hello(cardID, long, "3.0", []string{connector.ProfileDeviceV1}))
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, r, connector.TypeError, connector.CodeInvalidPacket)
	// At the bound is accepted, and the socket still works.
	if r, err := c.Request(ctx, connector.TypeToolInvoke, ch, invokeWith(ok, ok)); err != nil || r.Error != nil {
		t.Fatalf("ids of %d bytes: %+v %v", connector.MaxIDBytes, r, err)
	}
}
