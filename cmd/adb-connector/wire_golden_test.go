package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/auth"
	"github.com/adb-connector/adb-connector/internal/testkit"
)

var updateWire = flag.Bool("update-wire", false, "rewrite testdata/wire/*.golden")

// volatileKeys are payload fields whose values differ from run to run
// (ids, times, refs, the virtual phone's port in its serial hint); the
// golden files hold the key with a placeholder, so every other byte of the
// Card, the Skill, the acks and the Descriptors is compared.
var volatileKeys = map[string]bool{
	"packet_id": true, "time": true, "request_id": true, "reply_to": true,
	"connector_id": true, "connector_channel_id": true, "channel_id": true,
	"auth_session_id": true, "qr_code_text": true, "file_ref": true, "download_url": true,
	"expires_at": true, "account_hint": true, "display_name": true, "serial_hint": true,
	"filename": true, "build": true, "message": true,
	// The image bytes are the virtual phone's rendering, not the wire contract.
	"byte_size": true,
}

// normalize rewrites a JSON document with volatile values replaced and keys
// sorted, indented, so a golden diff shows only what changed.
func normalize(t *testing.T, b []byte) []byte {
	t.Helper()
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("normalize %s: %v", b, err)
	}
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if volatileKeys[k] {
					x[k] = "<" + k + ">"
					continue
				}
				x[k] = walk(e)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		}
		return v
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(walk(v)); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// messageOf keeps an ack error's message out of the placeholder: the
// messages are part of the contract, except where they carry a retry time.
func messageOf(p *connector.Packet) string {
	if p.Error == nil {
		return ""
	}
	return p.Error.Code + ": " + p.Error.Message
}

// TestWireGolden records what an agent sees of a session against a
// virtual phone (Card, Skill, acks, Descriptors and their errors) and
// compares it with testdata/wire: the bytes on the wire are the contract,
// so a refactoring must leave them unchanged. Regenerate with -update-wire
// only for an intended change of the wire, and review the diff.
func TestWireGolden(t *testing.T) {
	env := adbtest.Start(t, adbtest.Options{Devices: 1})
	d := env.Devices[0]
	p := startServe(t, t.TempDir(), env.ServerAddr, nil)

	get := func(path string) []byte {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, p.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+e2eKey)
		resp, err := noKeepAlive.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
		}
		return b
	}
	testkit.Golden(t, filepath.Join("testdata", "wire", "card.golden.json"), normalize(t, get("/connector-card.json")), *updateWire)
	testkit.Golden(t, filepath.Join("testdata", "wire", "skill.golden.md"), get("/skill.md"), *updateWire)

	var session bytes.Buffer
	record := func(step string, pk *connector.Packet) {
		session.WriteString("## " + step + "\n")
		session.WriteString("type: " + pk.Type + "\n")
		if m := messageOf(pk); m != "" {
			session.WriteString("error: " + m + "\n")
		}
		if len(pk.Payload) > 0 {
			session.Write(normalize(t, pk.Payload))
		}
	}
	a := newAgent(t, p, "")
	ch, ack, err := a.OpenChannel(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	record("channel.open", ack)
	pk, _ := a.request(t, connector.TypeDescriptorGet, ch, map[string]any{})
	record("descriptor.get unbound", pk)
	pk, _ = a.request(t, connector.TypeToolInvoke, ch, map[string]any{"tool_id": "android_device_status", "arguments": map[string]any{}})
	record("status unbound", pk)
	pk, _ = a.request(t, connector.TypeAuthStart, ch, map[string]any{
		"flow_id": auth.FlowPairing, "input": map[string]string{"serial": d.Serial(), "pairing_code": "AAAA-AAAA"}})
	record("pairing with a wrong code", pk)
	a.pair(t, p, ch, d.Serial())
	pk, _ = a.request(t, connector.TypeDescriptorGet, ch, map[string]any{})
	record("descriptor.get bound", pk)

	calls := []struct {
		step, tool, id string
		args           map[string]any
	}{
		{"status", "android_device_status", "w1", map[string]any{}},
		{"screenshot png", "android_screenshot", "w2", map[string]any{}},
		{"screenshot jpeg small", "android_screenshot", "w3", map[string]any{"format": "jpeg", "max_side": 320, "quality": 50}},
		{"tap", "android_tap", "w4", map[string]any{"x": 100, "y": 200}},
		{"tap replayed", "android_tap", "w4", map[string]any{"x": 100, "y": 200}},
		{"tap reused id, other args", "android_tap", "w4", map[string]any{"x": 101, "y": 200}},
		{"long press", "android_tap", "w5", map[string]any{"x": 10, "y": 20, "duration_ms": 600}},
		{"tap off screen", "android_tap", "w6", map[string]any{"x": 100000, "y": 20}},
		{"tap missing y", "android_tap", "w7", map[string]any{"x": 1}},
		{"tap unknown argument", "android_tap", "w8", map[string]any{"x": 1, "y": 1, "force": true}},
		{"tap wrong type", "android_tap", "w9", map[string]any{"x": "1", "y": 1}},
		{"screenshot bad format", "android_screenshot", "w10", map[string]any{"format": "gif"}},
		{"unknown tool", "android_nope", "w11", map[string]any{}},
	}
	for _, c := range calls {
		pk, _ := a.request(t, connector.TypeToolInvoke, ch, map[string]any{
			"tool_id": c.tool, "arguments": c.args, "context": map[string]string{"tool_call_id": c.id}})
		record(c.step, pk)
	}

	ch2 := a.open(t)
	pk, _ = a.request(t, connector.TypeAuthStart, ch2, map[string]any{"flow_id": auth.FlowRequest})
	record("device_request start", pk)
	var st struct {
		SessionID string `json:"auth_session_id"`
	}
	_ = json.Unmarshal(pk.Payload, &st)
	pk, _ = a.request(t, connector.TypeAuthStatus, ch2, map[string]any{"auth_session_id": st.SessionID})
	record("device_request status", pk)
	pk, _ = a.request(t, connector.TypeAuthCancel, ch2, map[string]any{"auth_session_id": st.SessionID})
	record("device_request cancel", pk)
	pk, _ = a.request(t, connector.TypeAuthStatus, ch2, map[string]any{"auth_session_id": "auth_nope"})
	record("status of an unknown session", pk)
	pk, _ = a.request(t, connector.TypeAuthLogout, ch, map[string]any{})
	record("logout", pk)
	pk, _ = a.request(t, connector.TypeToolInvoke, ch, map[string]any{"tool_id": "android_tap", "arguments": map[string]any{"x": 1, "y": 1}})
	record("tap after logout", pk)

	testkit.Golden(t, filepath.Join("testdata", "wire", "session.golden.txt"), session.Bytes(), *updateWire)
}
