package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/adb/parse"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/connector/xagenttest"
	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/auth"
	"github.com/adb-connector/adb-connector/device/card"
	"github.com/adb-connector/adb-connector/emulator"
	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/internal/testkit"
)

// e2eKey is the API key of the in-process servers; the secret scan looks
// for it (and for its tail, in case something truncates).
const e2eKey = "sk-e2e-9f8e7d6c5b4a3210-DO-NOT-LEAK"

// pushWithin is the Descriptor lifecycle contract: a push within 2 s of the
// device event. setupWait bounds slow setup steps (adb reconnects).
const (
	pushWithin = 2 * time.Second
	setupWait  = 30 * time.Second
)

// serveProc is one in-process `serve` (real flag parsing, real wiring).
type serveProc struct {
	URL     string // http://127.0.0.1:PORT
	DataDir string
	logs    *testkit.LogBuffer
	cancel  context.CancelFunc
	done    chan error
	once    sync.Once
}

// startServe runs serve on a free port with dataDir, --adb adbAddr, the
// API key from a key file, debug logs captured and extra flags. It stops
// at cleanup (or with Stop). logs may be shared across restarts.
func startServe(t *testing.T, dataDir, adbAddr string, logs *testkit.LogBuffer, extra ...string) *serveProc {
	t.Helper()
	p, _ := startServeVirtual(t, dataDir, adbAddr, logs, extra...)
	return p
}

// startServeVirtual is startServe that also returns the virtual devices
// serve started (extra holding --virtual-devices), so a test can drive
// their faults and command logs.
func startServeVirtual(t *testing.T, dataDir, adbAddr string, logs *testkit.LogBuffer, extra ...string) (*serveProc, []*emulator.Device) {
	t.Helper()
	return startServeTuned(t, dataDir, adbAddr, logs, nil, extra...)
}

// startServeTuned is startServeVirtual with tune applied to the parsed
// configuration, for what no flag sets (test hooks, Go-only settings).
func startServeTuned(t *testing.T, dataDir, adbAddr string, logs *testkit.LogBuffer, tune func(*serveConfig), extra ...string) (*serveProc, []*emulator.Device) {
	t.Helper()
	keyFile := filepath.Join(t.TempDir(), "api-key")
	if err := os.WriteFile(keyFile, []byte(e2eKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if logs == nil {
		logs = &testkit.LogBuffer{}
	}
	log := logs.JSONLogger()
	ctx, cancel := context.WithCancel(context.Background())
	p := &serveProc{DataDir: dataDir, logs: logs, cancel: cancel, done: make(chan error, 1)}
	ready := make(chan string, 1)

	cfg, err := parseServeFlags(append([]string{"--listen", "127.0.0.1:0", "--data-dir", dataDir, "--api-key-file", keyFile,
		"--adb", adbAddr, "--log-level", "debug", "--drain-timeout", "5s"}, extra...), io.Discard)
	if err != nil {
		cancel()
		t.Fatalf("parseServeFlags: %v", err)
	}
	// serve calls it before it reports ready.
	var devs []*emulator.Device
	cfg.Device.onVirtual = func(d []*emulator.Device) { devs = d }
	if tune != nil {
		tune(&cfg)
	}
	go func() { p.done <- serve(ctx, cfg, log, ready) }()
	var failure string
	select {
	case addr := <-ready:
		p.URL = "http://" + addr
	case err := <-p.done:
		failure = fmt.Sprintf("serve exited before listening: %v\n%s", err, logs.String())
	case <-time.After(setupWait):
		failure = fmt.Sprintf("serve did not listen within %s", setupWait)
	}
	if failure != "" {
		cancel()
		t.Fatal(failure)
	}
	t.Cleanup(func() { p.Stop(t) })
	return p, devs
}

// Stop cancels serve and waits for it to return. Idempotent.
func (p *serveProc) Stop(t *testing.T) {
	t.Helper()
	p.once.Do(func() {
		p.cancel()
		select {
		case err := <-p.done:
			if err != nil {
				t.Errorf("serve returned %v", err)
			}
		case <-time.After(setupWait):
			t.Errorf("serve did not stop within %s", setupWait)
		}
	})
}

// Logs returns everything serve logged so far.
func (p *serveProc) Logs() string { return p.logs.String() }

// cli runs an operator command (devices, pair, approve, unbind) against
// this server's admin socket, as the operator would.
func (p *serveProc) cli(t *testing.T, run runFunc, args ...string) string {
	t.Helper()
	out, err := runCLI(run, append(args, "--data-dir", p.DataDir)...)
	if err != nil {
		t.Fatalf("operator command %v: %v", args, err)
	}
	return out
}

// waitListed waits until `devices` lists serial: a server that just started
// learns the adb server's devices a moment later.
func (p *serveProc) waitListed(t *testing.T, serial string) {
	t.Helper()
	p.waitRow(t, serial, "listed", func(admin.DeviceRow) bool { return true })
}

// waitOnline waits until `devices` shows serial online (adb's "device").
func (p *serveProc) waitOnline(t *testing.T, serial string) {
	t.Helper()
	p.waitRow(t, serial, "online", func(r admin.DeviceRow) bool { return r.State == "device" })
}

// waitRow waits until `devices` has a row for serial that ok accepts. It
// polls the admin socket every 20 ms (there is no event to wait on from
// outside), at most setupWait.
func (p *serveProc) waitRow(t *testing.T, serial, what string, ok func(admin.DeviceRow) bool) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(setupWait)
	for {
		for _, r := range p.devices(t) {
			if r.Serial == serial && ok(r) {
				return
			}
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("devices does not show %s %s after %s", serial, what, setupWait)
		}
	}
}

// pairCode runs `adb-connector pair SERIAL` and returns the code (last line).
func (p *serveProc) pairCode(t *testing.T, serial string) string {
	t.Helper()
	p.waitListed(t, serial)
	// --force: some tests take a code for the next channel while one holds the phone.
	out := strings.TrimRight(p.cli(t, runPair, serial, "--force"), "\n")
	return out[strings.LastIndexByte(out, '\n')+1:]
}

// devices runs `adb-connector devices --json`.
func (p *serveProc) devices(t *testing.T) []admin.DeviceRow {
	t.Helper()
	var rows []admin.DeviceRow
	if err := json.Unmarshal([]byte(p.cli(t, runDevices, "--json")), &rows); err != nil {
		t.Fatalf("devices --json: %v", err)
	}
	return rows
}

// deviceRow returns serial's row of `devices --json`.
func (p *serveProc) deviceRow(t *testing.T, serial string) admin.DeviceRow {
	t.Helper()
	rows := p.devices(t)
	for _, r := range rows {
		if r.Serial == serial {
			return r
		}
	}
	t.Fatalf("devices --json has no %s: %+v", serial, rows)
	return admin.DeviceRow{}
}

// agent is an xAgent-like client connected to a serve, keeping every frame.
type agent struct {
	*xagenttest.Client
	connectorID string
}

func newAgent(t *testing.T, p *serveProc, connectorID string) *agent {
	t.Helper()
	c := xagenttest.New(t, p.URL, xagenttest.Options{APIKey: e2eKey, KeepRaw: true})
	id, err := c.Hello(t.Context(), card.CardID, connectorID)
	if err != nil {
		t.Fatalf("hello: %v", err)
	}
	return &agent{Client: c, connectorID: id}
}

// ackPayload is the union of the auth ack fields the tests read.
type ackPayload struct {
	Status     string                `json:"status"`
	AuthStatus string                `json:"auth_status"`
	SessionID  string                `json:"auth_session_id"`
	QRCodeText string                `json:"qr_code_text"`
	Descriptor *connector.Descriptor `json:"connection_descriptor"`
	Result     json.RawMessage       `json:"result"`
}

// request sends one request and decodes its payload.
func (a *agent) request(t *testing.T, typ, ch string, payload any) (*connector.Packet, ackPayload) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), setupWait)
	defer cancel()
	p, err := a.Request(ctx, typ, ch, payload)
	if err != nil {
		t.Fatalf("%s: %v", typ, err)
	}
	var pl ackPayload
	if len(p.Payload) > 0 {
		if err := json.Unmarshal(p.Payload, &pl); err != nil {
			t.Fatalf("%s payload: %v", typ, err)
		}
	}
	return p, pl
}

// open opens a new channel and checks its descriptor is "created".
func (a *agent) open(t *testing.T) string {
	t.Helper()
	ch, ack, err := a.OpenChannel(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	if st := descriptorStatus(t, ack.Payload); st != "created" {
		t.Fatalf("channel.open.ack descriptor %q, want created: %s", st, ack.Payload)
	}
	return ch
}

// pair binds ch to serial through device_pairing with a fresh operator
// code and returns the code and the ack's descriptor. A serve that started
// a moment ago may not have heard the device answer yet: the binding is
// then "offline" and a "connected" push must follow.
func (a *agent) pair(t *testing.T, p *serveProc, ch, serial string) (string, *connector.Descriptor) {
	t.Helper()
	code := p.pairCode(t, serial)
	pk, ack := a.request(t, connector.TypeAuthStart, ch, map[string]any{
		"flow_id": auth.FlowPairing, "input": map[string]string{"serial": serial, "pairing_code": code}})
	if pk.Type != connector.TypeAuthStartAck || ack.Status != "authenticated" || ack.Descriptor == nil {
		t.Fatalf("auth.start device_pairing: %s %s %+v", pk.Type, pk.Payload, pk.Error)
	}
	switch ack.Descriptor.Connection.Status {
	case "connected":
	case "offline":
		a.waitStatus(t, ch, "connected", setupWait)
	default:
		t.Fatalf("auth.start device_pairing: descriptor %s", pk.Payload)
	}
	return code, ack.Descriptor
}

var callSeq struct {
	mu sync.Mutex
	n  int
}

// invoke calls a tool on ch with a fresh tool_call_id.
func (a *agent) invoke(t *testing.T, ch, tool string, args any) *connector.Packet {
	t.Helper()
	callSeq.mu.Lock()
	callSeq.n++
	id := fmt.Sprintf("call_e2e_%d", callSeq.n)
	callSeq.mu.Unlock()
	return a.invokeID(t, ch, tool, id, args)
}

// invokeID calls a tool on ch with tool_call_id id.
func (a *agent) invokeID(t *testing.T, ch, tool, id string, args any) *connector.Packet {
	t.Helper()
	p, _ := a.request(t, connector.TypeToolInvoke, ch, map[string]any{
		"tool_id": tool, "arguments": args, "context": map[string]string{"tool_call_id": id}})
	if p.Type != connector.TypeToolInvokeAck {
		t.Fatalf("%s: got %s", tool, p.Type)
	}
	return p
}

// result decodes a successful tool ack's result into v.
func result(t *testing.T, p *connector.Packet, v any) {
	t.Helper()
	if p.Error != nil {
		t.Fatalf("tool ack error %+v", p.Error)
	}
	var pl struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(p.Payload, &pl); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(pl.Result, v); err != nil {
		t.Fatalf("result %s: %v", pl.Result, err)
	}
}

// waitStatus consumes descriptor pushes until one for ch has status,
// within d; it returns how long that took and the pushed descriptor.
func (a *agent) waitStatus(t *testing.T, ch, status string, d time.Duration) (time.Duration, *connector.Descriptor) {
	t.Helper()
	start := time.Now()
	ctx, cancel := context.WithTimeout(t.Context(), d)
	defer cancel()
	var seen []string
	for {
		p, err := a.WaitPush(ctx, connector.TypeDescriptorPush)
		if err != nil {
			t.Fatalf("no %q descriptor push within %s (saw %v): %v", status, d, seen, err)
		}
		var pl struct {
			D *connector.Descriptor `json:"connection_descriptor"`
		}
		if err := json.Unmarshal(p.Payload, &pl); err != nil || pl.D == nil {
			t.Fatalf("descriptor push %s: %v", p.Payload, err)
		}
		seen = append(seen, pl.D.Connection.Status)
		if p.ChannelID == ch && pl.D.Connection.ChannelID == ch && pl.D.Connection.Status == status {
			return time.Since(start), pl.D
		}
	}
}

// descriptorStatus returns payload.connection_descriptor.connection.status.
func descriptorStatus(t *testing.T, payload []byte) string {
	t.Helper()
	var pl struct {
		D *connector.Descriptor `json:"connection_descriptor"`
	}
	if err := json.Unmarshal(payload, &pl); err != nil {
		t.Fatal(err)
	}
	if pl.D == nil {
		return ""
	}
	return pl.D.Connection.Status
}

// launcherIcon returns the centre of the launcher icon labelled label, from
// the phone's own UI dump through package adb.
func launcherIcon(t *testing.T, env *adbtest.Env, d *emulator.Device, label string) parse.Point {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), setupWait)
	defer cancel()
	client, err := adb.New(ctx, adb.Config{Endpoints: []string{env.ServerAddr}})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	dev, err := client.Device(adb.DeviceKey(env.ServerAddr, d.Serial()))
	if err != nil {
		t.Fatal(err)
	}
	root, err := dev.UIDump(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range parse.Flatten(root) {
		if n.Text == label || n.ContentDesc == label {
			return n.Center
		}
	}
	t.Fatalf("no %q on the launcher", label)
	return parse.Point{}
}

// touchLine renders a gesture the phone's touchscreen decoded (adb writes
// taps, long presses and swipes as input events where the shell may: SDK
// 28 and earlier, or adb root; elsewhere the phone helper injects them,
// which the phone records the same way): "touch tap X Y", "touch
// long_press X Y", "touch swipe X1 Y1 X2 Y2".
func touchLine(t *android.Touch) string {
	if t.Kind == "swipe" {
		return fmt.Sprintf("touch swipe %d %d %d %d", t.From.X, t.From.Y, t.To.X, t.To.Y)
	}
	return fmt.Sprintf("touch %s %d %d", t.Kind, t.From.X, t.From.Y)
}

// deviceCommands returns the command lines d ran that touch input or the
// screen (input, screencap), and the gestures its touchscreen decoded
// (touchLine).
func deviceCommands(d *emulator.Device) []string {
	var out []string
	for _, c := range d.Android().Commands() {
		if c.Touch != nil {
			out = append(out, touchLine(c.Touch))
		}
		for _, argv := range c.Argv {
			if len(argv) > 0 && (argv[0] == "input" || argv[0] == "screencap") {
				out = append(out, strings.Join(argv, " "))
			}
		}
	}
	return out
}
