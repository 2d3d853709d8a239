package main

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device"
	"github.com/adb-connector/adb-connector/device/auth"
	"github.com/adb-connector/adb-connector/device/reset"
	"github.com/adb-connector/adb-connector/emulator"
	"github.com/adb-connector/adb-connector/emulator/android"
)

// leaseServe is a serve whose lease policy a test changes at run time: the
// idle timeout starts at an hour and a test shortens it, then tells the
// Service, so the lease ends when the test says and not by the wall clock.
type leaseServe struct {
	*serveProc
	phone *emulator.Device
	idle  atomic.Int64
	svc   *device.Service
}

func startLeaseServe(t *testing.T) *leaseServe {
	t.Helper()
	env := adbtest.Start(t, adbtest.Options{Devices: 1})
	ls := &leaseServe{phone: env.Devices[0]}
	ls.idle.Store(int64(time.Hour))
	ls.serveProc, _ = startServeTuned(t, t.TempDir(), env.ServerAddr, nil, func(c *serveConfig) {
		c.Device.lease = func(string) device.LeasePolicy {
			return device.LeasePolicy{IdleTimeout: time.Duration(ls.idle.Load()), Reset: reset.DefaultPolicy()}
		}
		c.Device.onService = func(s *device.Service) { ls.svc = s }
	})
	return ls
}

// endLease makes every lease idle for too long, waits for ch's expired
// push, then gives leases an hour again (for the next binding).
func (ls *leaseServe) endLease(t *testing.T, a *agent, ch string) {
	t.Helper()
	ls.idle.Store(int64(time.Millisecond))
	ls.svc.PolicyChanged()
	_, d := a.waitStatus(t, ch, "expired", setupWait)
	ls.idle.Store(int64(time.Hour))
	for _, tool := range d.Tools {
		if tool.Status != "unavailable" || tool.TargetPermissionState != "requires_reauth" {
			t.Errorf("expired descriptor tool %+v", tool)
		}
	}
}

// waitReset polls `devices` (there is no event to wait on from outside)
// until the phone's RESET column is want.
func (ls *leaseServe) waitReset(t *testing.T, want string) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(setupWait)
	for {
		if r := ls.deviceRow(t, ls.phone.Serial()); r.Reset == want {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("devices never showed reset %q for the phone", want)
		}
	}
}

// startPairing sends device_pairing's auth.start on ch.
func startPairing(t *testing.T, a *agent, ch, serial, code string) ackPayload {
	t.Helper()
	_, ack := a.request(t, connector.TypeAuthStart, ch, map[string]any{
		"flow_id": auth.FlowPairing, "input": map[string]string{"serial": serial, "pairing_code": code}})
	return ack
}

// TestLeaseIdleEndsAndResets: an idle lease ends through the real server:
// the expired push arrives, a later tool.invoke is not authenticated, the
// phone was reset (home, the app the agent launched stopped, the
// connector's files deleted, by its command log) and another channel
// pairs it.
func TestLeaseIdleEndsAndResets(t *testing.T) {
	t.Parallel()
	ls := startLeaseServe(t)
	serial := ls.phone.Serial()
	a := newAgent(t, ls.serveProc, "")
	ch := a.open(t)
	a.pair(t, ls.serveProc, ch, serial)
	if pk := a.invoke(t, ch, "android_app_launch", map[string]any{"package": "com.android.chrome"}); pk.Error != nil {
		t.Fatalf("launch: %+v", pk.Error)
	}
	next := ls.pairCode(t, serial) // for the next channel, issued while bound
	from := len(ls.phone.Android().Commands())

	ls.endLease(t, a, ch)
	pk := a.invoke(t, ch, "android_device_status", map[string]any{})
	if pk.Error == nil || pk.Error.Code != connector.CodeConnectionNotAuthenticated {
		t.Errorf("tool.invoke after the lease ended: %s %+v", pk.Payload, pk.Error)
	}
	ctx, cancel := context.WithTimeout(t.Context(), setupWait)
	defer cancel()
	if _, err := ls.phone.Android().WaitCommand(ctx, func(c android.Command) bool {
		return strings.HasPrefix(c.Line, "rm -f /data/local/tmp/adbc-")
	}); err != nil {
		t.Fatalf("the reset deleted no files: %v", err)
	}
	var ran []string
	for _, c := range ls.phone.Android().Commands()[from:] {
		ran = append(ran, c.Line)
	}
	for _, want := range []string{"input keyevent KEYCODE_HOME", "am force-stop com.android.chrome"} {
		if !slices.Contains(ran, want) {
			t.Errorf("the reset did not run %q: %q", want, ran)
		}
	}
	if pkg, _ := ls.phone.Android().Foreground(); pkg != "com.google.android.apps.nexuslauncher" {
		t.Errorf("in front after the reset: %s", pkg)
	}

	b := newAgent(t, ls.serveProc, "")
	ch2 := b.open(t)
	if ack := startPairing(t, b, ch2, serial, next); ack.Status != "authenticated" {
		t.Fatalf("the next channel could not pair the reset phone: %+v", ack)
	}
	if logs := ls.Logs(); !strings.Contains(logs, `"msg":"lease ended"`) || !strings.Contains(logs, `"msg":"device reset"`) {
		t.Errorf("the log has no lease end or reset line")
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, ls.URL+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+e2eKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`adb_connector_device_lease_ends_total{reason="idle_timeout"} 1`, `adb_connector_device_resets_total{outcome="ok"} 1`} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// TestLeaseFailedResetNeedsReset: a reset that fails (every phone command
// failing) marks the phone needs-reset; pairing it is refused, to the
// agent and to the operator, until the operator clears it.
func TestLeaseFailedResetNeedsReset(t *testing.T) {
	t.Parallel()
	ls := startLeaseServe(t)
	serial := ls.phone.Serial()
	a := newAgent(t, ls.serveProc, "")
	ch := a.open(t)
	a.pair(t, ls.serveProc, ch, serial)
	next := ls.pairCode(t, serial)

	ls.phone.Android().FailNext(1000)
	ls.endLease(t, a, ch)
	ls.waitReset(t, "needs-reset")
	ls.phone.Android().FailNext(0)
	if r := ls.deviceRow(t, serial); r.Bound || r.ResetError == "" {
		t.Errorf("devices row of the needs-reset phone: %+v", r)
	}
	out, err := runCLI(runDevices, "--data-dir", ls.DataDir)
	if err != nil || !strings.Contains(out, "needs-reset") {
		t.Errorf("devices table: %v\n%s", err, out)
	}

	b := newAgent(t, ls.serveProc, "")
	ch2 := b.open(t)
	if ack := startPairing(t, b, ch2, serial, next); ack.Status != "failed" || ack.Descriptor != nil {
		t.Errorf("pairing a needs-reset phone: %+v", ack)
	}
	if _, err := runCLI(runPair, serial, "--data-dir", ls.DataDir); err == nil || !strings.Contains(err.Error(), "needs a reset") {
		t.Errorf("pair of a needs-reset phone: %v", err)
	}

	out = ls.cli(t, runUnbind, serial, "--clear-reset")
	if !strings.Contains(out, "reset cleared") {
		t.Errorf("unbind --clear-reset: %s", out)
	}
	ls.waitReset(t, "")
	if ack := startPairing(t, b, ch2, serial, next); ack.Status != "authenticated" {
		t.Errorf("pairing after the operator cleared the reset: %+v", ack)
	}
}
