package main

// End-to-end tests of the device tools through the real serve wiring: serve runs
// in-process (real flag parsing, hooks, admin socket, /ws, /files) against
// adbtest's private Debian adb server with virtual phones, driven by an
// xAgent-like client that schema-validates every packet, and by the
// operator commands over the admin socket.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"net/http/httputil"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/auth"
	"github.com/adb-connector/adb-connector/device/tools"
	"github.com/adb-connector/adb-connector/emulator"
	"github.com/adb-connector/adb-connector/files"
	"github.com/adb-connector/adb-connector/internal/testkit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// noKeepAlive leaves no idle connection (and goroutine) behind.
var noKeepAlive = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// TestServeDeviceE2E shares one adb server with one virtual phone per
// subtest; each subtest runs its own serve and data dir, in parallel.
func TestServeDeviceE2E(t *testing.T) {
	env := adbtest.Start(t, adbtest.Options{Devices: 5})
	cases := []struct {
		name string
		run  func(t *testing.T, env *adbtest.Env, d *emulator.Device)
	}{
		{"pairing, status, screenshot, tap, logout", testPairingToLogout},
		{"device_request: refresh, approve, cancel", testRequestFlow},
		{"unplug and unauthorized pushes", testUnplug},
		{"reconnect and restart keep the binding", testReconnectRestart},
		{"bad arguments never touch the device", testBadInput},
	}
	t.Run("adb server down and back", func(t *testing.T) {
		t.Parallel()
		testServerDown(t)
	})
	for i, tc := range cases {
		d := env.Devices[i]
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, env, d)
		})
	}
}

// scanSecrets fails when the API key or any of secrets appears in a frame
// the agent received, in extra bytes received over HTTP, or in the logs.
func scanSecrets(t *testing.T, a *agent, logs string, extra [][]byte, secrets ...string) {
	t.Helper()
	secrets = append(secrets, e2eKey, e2eKey[len(e2eKey)-12:])
	frames := append(a.Raw(), extra...)
	if len(frames) == 0 {
		t.Fatal("secret scan: no frames kept")
	}
	for _, s := range secrets {
		if s == "" {
			continue
		}
		for _, f := range frames {
			if bytes.Contains(f, []byte(s)) {
				t.Errorf("secret %.3s… in bytes sent to the client: %.300s", s, f)
			}
		}
		if strings.Contains(logs, s) {
			t.Errorf("secret %.3s… in the logs", s)
		}
	}
}

// noAddress fails when a descriptor target shows the serial, IP or port.
func noAddress(t *testing.T, d *connector.Descriptor, serial string) {
	t.Helper()
	host, port, _ := strings.Cut(serial, ":")
	b, _ := json.Marshal(d.Target)
	for _, s := range []string{serial, host, port} {
		if bytes.Contains(b, []byte(s)) {
			t.Errorf("descriptor target %s shows %q", b, s)
		}
	}
	if d.Target.DisplayName == "" {
		t.Error("descriptor target without display_name")
	}
}

func testPairingToLogout(t *testing.T, env *adbtest.Env, d *emulator.Device) {
	p := startServe(t, t.TempDir(), env.ServerAddr, nil)
	a := newAgent(t, p, "")
	ch := a.open(t)
	code, desc := a.pair(t, p, ch, d.Serial())
	var code3 string // a code issued for the bound device, if pair allows it
	noAddress(t, desc, d.Serial())
	if r := p.deviceRow(t, d.Serial()); !r.Bound || r.State != "device" {
		t.Errorf("devices --json after pairing: %+v", r)
	}

	var status map[string]any
	result(t, a.invoke(t, ch, "android_device_status", map[string]any{}), &status)
	model, _ := status["model"].(string)
	if model == "" || !strings.HasPrefix(desc.Target.DisplayName, model+" (") {
		t.Errorf("display_name %q, want %q + redacted serial (status %v)", desc.Target.DisplayName, model, status)
	}

	var shot tools.ScreenshotResult
	result(t, a.invoke(t, ch, "android_screenshot", map[string]any{}), &shot)
	if shot.Width != 720 || shot.Height != 1280 || shot.Scale != 1 || shot.MIMEType != "image/png" ||
		!strings.HasPrefix(shot.DownloadURL, "/files/refs/") {
		t.Errorf("android_screenshot result: %+v", shot)
	}
	var httpBytes [][]byte
	get := func(path, channel string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, p.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if channel != "" {
			req.Header.Set(files.ChannelHeader, channel)
		}
		resp, err := noKeepAlive.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		head, _ := httputil.DumpResponse(resp, false)
		httpBytes = append(httpBytes, head, body)
		return resp, body
	}
	resp, body := get(shot.DownloadURL, ch)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET download_url: %s", resp.Status)
	}
	h := resp.Header
	if h.Get("Content-Type") != "image/png" || h.Get("Cache-Control") != "no-store" ||
		!strings.Contains(h.Get("Content-Disposition"), shot.Filename) || int64(len(body)) != shot.ByteSize {
		t.Errorf("download headers %v, %d bytes (want %d)", h, len(body), shot.ByteSize)
	}
	img, err := png.Decode(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("download is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != shot.Width || b.Dy() != shot.Height {
		t.Errorf("PNG is %v, result says %dx%d", b, shot.Width, shot.Height)
	}
	if resp, _ := get(shot.DownloadURL, "cch_someone_else"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("download for another channel: %s, want 403", resp.Status)
	}
	for _, path := range []string{"/connector-card.json", "/skill.md", "/health"} {
		get(path, "")
	}

	icon := launcherIcon(t, env, d, "Settings")
	d.Android().ClearCommands()
	var tap tools.TapResult
	first := a.invokeID(t, ch, "android_tap", "call_tap_settings", map[string]int{"x": icon.X, "y": icon.Y})
	result(t, first, &tap)
	again := a.invokeID(t, ch, "android_tap", "call_tap_settings", map[string]int{"x": icon.X, "y": icon.Y})
	if again.Error != nil || !bytes.Equal(again.Payload, first.Payload) {
		t.Errorf("repeated tool_call_id: %s %+v, want the first ack %s", again.Payload, again.Error, first.Payload)
	}
	if tap.Tapped != (tools.TapPoint{X: icon.X, Y: icon.Y}) || tap.LongPress {
		t.Errorf("android_tap result %+v", tap)
	}
	if pkg, _ := d.Android().Foreground(); pkg != "com.android.settings" {
		t.Errorf("after tapping Settings the foreground is %q", pkg)
	}
	if diff := cmp.Diff([]string{fmt.Sprintf("touch tap %d %d", icon.X, icon.Y)}, deviceCommands(d)); diff != "" {
		t.Errorf("device input commands (-want +got):\n%s", diff)
	}

	// The device is in use: another channel cannot bind it, by either flow.
	other := a.open(t)
	if c2, err := runCLI(runPair, d.Serial(), "--data-dir", p.DataDir); err == nil {
		c2 = strings.TrimRight(c2, "\n")
		c2 = c2[strings.LastIndexByte(c2, '\n')+1:]
		_, ack := a.request(t, connector.TypeAuthStart, other, map[string]any{
			"flow_id": auth.FlowPairing, "input": map[string]string{"serial": d.Serial(), "pairing_code": c2}})
		if ack.Status == "authenticated" {
			t.Errorf("a second channel paired with a bound device: %+v", ack)
		}
		code3 = c2
	}
	_, req := a.request(t, connector.TypeAuthStart, other, map[string]any{"flow_id": auth.FlowRequest})
	if _, err := runCLI(runApprove, req.QRCodeText, "--serial", d.Serial(), "--data-dir", p.DataDir); err == nil {
		t.Error("approve gave a bound device to a second channel")
	}

	pk, ack := a.request(t, connector.TypeAuthLogout, ch, nil)
	if pk.Type != connector.TypeAuthLogoutAck || ack.Descriptor == nil || ack.Descriptor.Connection.Status != "created" {
		t.Errorf("auth.logout: %s %s", pk.Type, pk.Payload)
	}
	if r := p.deviceRow(t, d.Serial()); r.Bound {
		t.Errorf("devices --json after logout: %+v", r)
	}
	if resp, _ := get(shot.DownloadURL, ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("download after logout: %s, want 404", resp.Status)
	}
	ch2 := a.open(t)
	code2, _ := a.pair(t, p, ch2, d.Serial())
	if r := p.deviceRow(t, d.Serial()); !r.Bound {
		t.Errorf("devices --json after the second channel paired: %+v", r)
	}
	scanSecrets(t, a, p.Logs(), httpBytes, code, code2, code3)
}

func testRequestFlow(t *testing.T, env *adbtest.Env, d *emulator.Device) {
	p := startServe(t, t.TempDir(), env.ServerAddr, nil)
	a := newAgent(t, p, "")
	ch := a.open(t)
	_, start := a.request(t, connector.TypeAuthStart, ch, map[string]any{"flow_id": auth.FlowRequest})
	if start.Status != "pending" || start.QRCodeText == "" || start.SessionID == "" {
		t.Fatalf("auth.start device_request: %+v", start)
	}
	status := func(refresh bool) ackPayload {
		t.Helper()
		pk, st := a.request(t, connector.TypeAuthStatus, ch, map[string]any{
			"flow_id": auth.FlowRequest, "auth_session_id": start.SessionID, "refresh": refresh})
		if pk.Type != connector.TypeAuthStatusAck {
			t.Fatalf("auth.status: %s %+v", pk.Type, pk.Error)
		}
		return st
	}
	if st := status(false); st.Status != "pending" || st.QRCodeText != start.QRCodeText {
		t.Errorf("auth.status: %+v", st)
	}
	ref := status(true)
	if ref.Status != "pending" || ref.QRCodeText == "" || ref.QRCodeText == start.QRCodeText {
		t.Fatalf("auth.status refresh: %+v", ref)
	}
	p.waitListed(t, d.Serial())
	if _, err := runCLI(runApprove, start.QRCodeText, "--serial", d.Serial(), "--data-dir", p.DataDir); err == nil {
		t.Error("the code replaced by refresh was still approvable")
	}
	if out := p.cli(t, runApprove, ref.QRCodeText, "--serial", d.Serial()); !strings.Contains(out, d.Serial()) {
		t.Errorf("approve output %q", out)
	}
	a.waitStatus(t, ch, "connected", pushWithin)
	st := status(false)
	if st.Status != "authenticated" || st.Descriptor == nil || st.Descriptor.Connection.Status != "connected" {
		t.Errorf("auth.status after approve: %+v", st)
	}
	noAddress(t, st.Descriptor, d.Serial())
	if r := p.deviceRow(t, d.Serial()); !r.Bound {
		t.Errorf("devices --json after approve: %+v", r)
	}

	cancel := func(ch, session string) ackPayload {
		t.Helper()
		pk, c := a.request(t, connector.TypeAuthCancel, ch, map[string]any{"auth_session_id": session})
		if pk.Type != connector.TypeAuthCancelAck {
			t.Fatalf("auth.cancel: %s %+v", pk.Type, pk.Error)
		}
		return c
	}
	if c := cancel(ch, start.SessionID); c.Status != "ignored" {
		t.Errorf("auth.cancel of an authenticated session: %+v", c)
	}
	ch2 := a.open(t)
	_, s2 := a.request(t, connector.TypeAuthStart, ch2, map[string]any{"flow_id": auth.FlowRequest})
	if s2.Status != "pending" {
		t.Fatalf("second auth.start: %+v", s2)
	}
	if c := cancel(ch2, s2.SessionID); c.Status != "canceled" {
		t.Errorf("auth.cancel: %+v", c)
	}
	if c := cancel(ch2, s2.SessionID); c.Status != "not_found" {
		t.Errorf("second auth.cancel: %+v", c)
	}
	if _, err := runCLI(runApprove, s2.QRCodeText, "--data-dir", p.DataDir); err == nil {
		t.Error("a canceled request code was approvable")
	}
	// Request codes go to the agent by design (qr_code_text); never to the logs.
	scanSecrets(t, a, p.Logs(), nil)
	for _, c := range []string{start.QRCodeText, ref.QRCodeText, s2.QRCodeText} {
		if strings.Contains(p.Logs(), c) {
			t.Errorf("request code %.3s… in the logs", c)
		}
	}
}

func testUnplug(t *testing.T, env *adbtest.Env, d *emulator.Device) {
	p := startServe(t, t.TempDir(), env.ServerAddr, nil)
	a := newAgent(t, p, "")
	ch := a.open(t)
	code, _ := a.pair(t, p, ch, d.Serial())

	d.DropLink()
	took, _ := a.waitStatus(t, ch, "offline", pushWithin)
	t.Logf("offline push %s after DropLink", took)
	a.waitStatus(t, ch, "connected", setupWait)

	if err := d.Vanish(100 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	took, _ = a.waitStatus(t, ch, "offline", pushWithin)
	t.Logf("offline push %s after Vanish", took)
	a.waitStatus(t, ch, "connected", setupWait)

	d.SetUnauthorized(true)
	took, desc := a.waitStatus(t, ch, "degraded", pushWithin)
	t.Logf("degraded push %s after SetUnauthorized", took)
	for _, tool := range desc.Tools {
		if tool.Status != "denied_by_target" {
			t.Errorf("degraded descriptor: tool %s is %q, want denied_by_target", tool.ToolID, tool.Status)
		}
	}
	d.Android().ClearCommands()
	pk := a.invoke(t, ch, "android_tap", map[string]int{"x": 10, "y": 10})
	if pk.Error == nil || pk.Error.Code != tools.CodeDeviceUnauthorized {
		t.Errorf("tap on an unauthorized device: %+v", pk.Error)
	}
	d.SetUnauthorized(false)
	a.waitStatus(t, ch, "connected", setupWait)
	if cmds := deviceCommands(d); len(cmds) != 0 {
		t.Errorf("unauthorized device ran %q", cmds)
	}
	scanSecrets(t, a, p.Logs(), nil, code)
}

// testServerDown kills the adb server under a bound channel (its own adb
// server: the shared one stays up) and starts it again.
func testServerDown(t *testing.T) {
	env := adbtest.Start(t, adbtest.Options{Devices: 1})
	d := env.Devices[0]
	p := startServe(t, t.TempDir(), env.ServerAddr, nil)
	a := newAgent(t, p, "")
	ch := a.open(t)
	code, _ := a.pair(t, p, ch, d.Serial())

	env.KillServer()
	took, _ := a.waitStatus(t, ch, "offline", pushWithin)
	t.Logf("offline push %s after the adb server died", took)
	// serve starts its local adb server again (env's cleanup stops that
	// daemon); the new server knows no TCP device until it is connected.
	env.WaitState(d, "")
	env.Connect(d)
	a.waitStatus(t, ch, "connected", setupWait)
	result(t, a.invoke(t, ch, "android_device_status", map[string]any{}), &map[string]any{})
	scanSecrets(t, a, p.Logs(), nil, code)
}

func testReconnectRestart(t *testing.T, env *adbtest.Env, d *emulator.Device) {
	dir, logs := t.TempDir(), &testkit.LogBuffer{}
	p := startServe(t, dir, env.ServerAddr, logs)
	a := newAgent(t, p, "")
	ch := a.open(t)
	code, _ := a.pair(t, p, ch, d.Serial())
	frames := a.Raw()
	a.Close()

	restore := func(a *agent) string {
		t.Helper()
		got, ack, err := a.OpenChannel(t.Context(), ch)
		if err != nil || got != ch {
			t.Fatalf("channel.open restore: %q %v", got, err)
		}
		return descriptorStatus(t, ack.Payload)
	}
	a2 := newAgent(t, p, a.connectorID)
	if a2.connectorID != a.connectorID {
		t.Fatalf("reconnect: connector_id %q, want %q", a2.connectorID, a.connectorID)
	}
	if st := restore(a2); st != "connected" {
		t.Errorf("after reconnect the channel is %q, want connected", st)
	}
	result(t, a2.invoke(t, ch, "android_device_status", map[string]any{}), &map[string]any{})
	frames = append(frames, a2.Raw()...)

	// Restart while the phone is listed by adb but does not answer: the
	// restored binding is not "connected" until it does.
	p.Stop(t)
	<-a2.Done()
	d.SetLatency(time.Hour)
	t.Cleanup(func() { d.SetLatency(0) })
	p2 := startServe(t, dir, env.ServerAddr, logs)
	a3 := newAgent(t, p2, a.connectorID)
	if a3.connectorID != a.connectorID {
		t.Fatalf("restart: connector_id %q, want %q", a3.connectorID, a.connectorID)
	}
	if st := restore(a3); st == "connected" {
		t.Errorf("after restart the binding is connected before its device answered")
	}
	if pk := a3.invoke(t, ch, "android_device_status", map[string]any{}); pk.Error == nil || pk.Error.Code != tools.CodeDeviceOffline {
		t.Errorf("tool call before the device answered: %s %+v, want device_offline", pk.Payload, pk.Error)
	}
	d.SetLatency(0)
	a3.waitStatus(t, ch, "connected", setupWait)
	if r := p2.deviceRow(t, d.Serial()); !r.Bound {
		t.Errorf("devices --json after restart: %+v", r)
	}
	result(t, a3.invoke(t, ch, "android_device_status", map[string]any{}), &map[string]any{})
	scanSecrets(t, a3, logs.String(), frames, code)
}

func testBadInput(t *testing.T, env *adbtest.Env, d *emulator.Device) {
	p := startServe(t, t.TempDir(), env.ServerAddr, nil)
	a := newAgent(t, p, "")
	ch := a.open(t)
	unbound := a.open(t)
	code, _ := a.pair(t, p, ch, d.Serial())
	d.Android().ClearCommands()

	cases := []struct {
		tool, args string
	}{
		{"android_device_status", `{"extra":1}`},
		{"android_device_status", `[]`},
		{"android_device_status", `{"connector_channel_id":5}`},
		{"android_screenshot", `{"max_side":"big"}`},
		{"android_screenshot", `{"max_side":63}`},
		{"android_screenshot", `{"max_side":4097}`},
		{"android_screenshot", `{"max_side":100.5}`},
		{"android_screenshot", `{"max_side":null}`},
		{"android_screenshot", `{"format":"gif"}`},
		{"android_screenshot", `{"format":1}`},
		{"android_screenshot", `{"format":"jpeg","quality":0}`},
		{"android_screenshot", `{"format":"jpeg","quality":101}`},
		{"android_screenshot", `{"format":"jpeg","quality":"80"}`},
		{"android_screenshot", `{"quality":50}`}, // quality applies to jpeg only
		{"android_screenshot", `{"extra":true}`},
		{"android_screenshot", `"png"`},
		{"android_screenshot", `{"connector_channel_id":["x"]}`},
		{"android_tap", `{"x":10,"y":10,"connector_channel_id":false}`},
		{"android_tap", `{}`},
		{"android_tap", `{"x":10}`},
		{"android_tap", `{"y":10}`},
		{"android_tap", `{"x":"10","y":10}`},
		{"android_tap", `{"x":10,"y":"10"}`},
		{"android_tap", `{"x":-1,"y":10}`},
		{"android_tap", `{"x":10,"y":-1}`},
		{"android_tap", `{"x":10.5,"y":10}`},
		{"android_tap", `{"x":null,"y":10}`},
		{"android_tap", `{"x":720,"y":10}`},  // outside the 720x1280 screen
		{"android_tap", `{"x":10,"y":1280}`}, // outside the screen
		{"android_tap", `{"x":10,"y":10,"duration_ms":-1}`},
		{"android_tap", `{"x":10,"y":10,"duration_ms":10001}`},
		{"android_tap", `{"x":10,"y":10,"duration_ms":"500"}`},
		{"android_tap", `{"x":10,"y":10,"z":1}`},
		{"android_tap", `{"x":10,"y":10,"serial":"127.0.0.1:5555"}`},
		{"android_tap", `{"x":1e400,"y":10}`}, // integer, but no int holds it
		{"android_tap", `{"x":10,"y":9.3e18}`},
		{"android_tap", `{"x":1e10,"y":10}`},
	}
	for _, tc := range cases {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			pk := a.invoke(t, ch, tc.tool, json.RawMessage(tc.args))
			if pk.Error == nil || pk.Error.Code != connector.CodeInvalidArguments {
				t.Errorf("ack %s error %+v, want invalid_arguments", pk.Payload, pk.Error)
			}
		})
	}
	if cmds := deviceCommands(d); len(cmds) != 0 {
		t.Errorf("bad arguments reached the device: %q", cmds)
	}
	for tool, args := range map[string]string{
		"android_device_status": `{}`, "android_screenshot": `{}`, "android_tap": `{"x":10,"y":10}`,
	} {
		pk := a.invoke(t, unbound, tool, json.RawMessage(args))
		if pk.Error == nil || pk.Error.Code != connector.CodeConnectionNotAuthenticated {
			t.Errorf("%s on an unbound channel: %+v", tool, pk.Error)
		}
	}
	if cmds := deviceCommands(d); len(cmds) != 0 {
		t.Errorf("calls on an unbound channel reached the device: %q", cmds)
	}
	scanSecrets(t, a, p.Logs(), nil, code)
}
