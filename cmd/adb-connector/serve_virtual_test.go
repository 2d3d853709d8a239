package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/adb/adbtest/adbserver"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/tools"
	"github.com/adb-connector/adb-connector/emulator"
	"github.com/adb-connector/adb-connector/emulator/android"
)

// TestServeShutdownDrainsVirtualCall: a tool call running on one of serve's
// own virtual phones when serve is told to stop is answered with its result
// (the phones outlive the drain), and once serve has returned its phones
// are detached from the adb server.
func TestServeShutdownDrainsVirtualCall(t *testing.T) {
	t.Parallel()
	env, p, d, a, ch := pairedVirtualPhone(t)

	// The first tap on a device reads its screen geometry (wm size), then
	// long-presses for 1.5 s: once wm size ran, the call is in flight.
	d.Android().ClearCommands()
	type reply struct {
		p   *connector.Packet
		err error
	}
	replies := make(chan reply, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), setupWait)
		defer cancel()
		pk, err := a.Request(ctx, connector.TypeToolInvoke, ch, map[string]any{
			"tool_id": "android_tap", "arguments": map[string]any{"x": 10, "y": 10, "duration_ms": 1500},
			"context": map[string]string{"tool_call_id": "call_shutdown_1"}})
		replies <- reply{pk, err}
	}()
	wctx, cancel := context.WithTimeout(t.Context(), setupWait)
	defer cancel()
	if _, err := d.Android().WaitCommand(wctx, func(c android.Command) bool { return strings.Contains(c.Line, "wm size") }); err != nil {
		t.Fatalf("the tap did not reach the phone: %v", err)
	}

	p.Stop(t) // as SIGTERM: serve's context ends, it drains and returns
	r := <-replies
	if r.err != nil {
		t.Fatalf("tap during shutdown: %v\n%s", r.err, p.Logs())
	}
	if r.p.Type != connector.TypeToolInvokeAck || r.p.Error != nil {
		t.Fatalf("tap during shutdown: %s %s %+v, want a result", r.p.Type, r.p.Payload, r.p.Error)
	}
	var res tools.TapResult
	var pl struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(r.p.Payload, &pl); err != nil || json.Unmarshal(pl.Result, &res) != nil || !res.LongPress {
		t.Errorf("tap during shutdown: result %s, want a long press", r.p.Payload)
	}
	if cmds := deviceCommands(d); len(cmds) == 0 || cmds[len(cmds)-1] != "touch long_press 10 10" {
		t.Errorf("phone's input commands %q, want the long press to have run", cmds)
	}

	ctx, cancel2 := context.WithTimeout(t.Context(), setupWait)
	defer cancel2()
	if st, err := adbserver.State(ctx, env.ServerAddr, d.Serial()); err != nil || st != "" {
		t.Errorf("after serve stopped the adb server lists %s as %q (%v), want it detached", d.Serial(), st, err)
	}
}

// TestServeVirtualAfterADBRestart: when the local adb server dies, serve
// starts it again and re-attaches its own virtual phones: the bound
// channel goes offline, then connected, the phone answers tools again and
// the new adb server lists it as device.
func TestServeVirtualAfterADBRestart(t *testing.T) {
	t.Parallel()
	env, p, d, a, ch := pairedVirtualPhone(t)

	env.KillServer() // env's cleanup stops the server serve starts
	a.waitStatus(t, ch, "offline", setupWait)
	a.waitStatus(t, ch, "connected", setupWait)
	result(t, a.invoke(t, ch, "android_device_status", map[string]any{}), &map[string]any{})
	if st := env.State(d); st != "device" {
		t.Errorf("the restarted adb server lists %s as %q, want device", d.Serial(), st)
	}
	// The re-attach record follows the connect, which tracking may report
	// first: poll every 20 ms, at most setupWait.
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(setupWait)
	for _, want := range []string{"is down; starting it", "started local adb server", "re-attached devices to adb server"} {
		for !strings.Contains(p.Logs(), want) {
			select {
			case <-tick.C:
			case <-deadline:
				t.Fatalf("serve's log lacks %q", want)
			}
		}
	}
}

// pairedVirtualPhone starts a private adb server with no phone of its own
// and a serve with one virtual phone, and pairs a new channel with it.
func pairedVirtualPhone(t *testing.T) (*adbtest.Env, *serveProc, *emulator.Device, *agent, string) {
	t.Helper()
	env := adbtest.Start(t, adbtest.Options{Devices: -1})
	p, devs := startServeVirtual(t, t.TempDir(), env.ServerAddr, nil, "--virtual-devices", "1")
	if len(devs) != 1 {
		t.Fatalf("serve started %d virtual devices, want 1", len(devs))
	}
	d := devs[0]
	a := newAgent(t, p, "")
	ch := a.open(t)
	a.pair(t, p, ch, d.Serial())
	return env, p, d, a, ch
}
