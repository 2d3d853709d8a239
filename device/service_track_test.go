package device

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/descriptor"
	"github.com/adb-connector/adb-connector/device/redact"
)

// TestDeviceLifecycle follows one bound virtual device through the adb
// device events, each pushed within 2 s.
func TestDeviceLifecycle(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, 1, nil)
	key, d := e.key(0), e.adbEnv.Devices[0]
	e.waitPresence(t, key, descriptor.PresenceOnline)
	e.open(t, "cch_a")
	m := e.push.mark()
	e.pair(t, "cch_a", key)
	st := e.push.waitPush(t, "cch_a", "connected", m, pushDeadline)
	if want := "Pixel 6 (" + redact.SerialHint(d.Serial()) + ")"; st.Target.DisplayName != want {
		t.Errorf("display_name = %q, want %q", st.Target.DisplayName, want)
	}
	for _, tl := range st.Tools {
		if tl.Status != "available" || tl.TargetPermissionState != "granted" {
			t.Errorf("connected tool %+v", tl)
		}
	}
	dev, meta, err := e.svc.DeviceFor(t.Context(), "cch_a")
	if err != nil || dev.Key() != key || meta.Model != "Pixel 6" {
		t.Fatalf("DeviceFor = %v %+v %v", dev, meta, err)
	}
	if _, err := dev.Shell(t.Context(), "true"); err != nil {
		t.Fatalf("shell on the resolved device: %v", err)
	}

	t.Run("link drop", func(t *testing.T) {
		m, start := e.push.mark(), time.Now()
		d.DropLink()
		e.push.waitPush(t, "cch_a", "offline", m, pushDeadline)
		t.Logf("offline pushed %s after the link dropped", time.Since(start).Round(time.Millisecond))
		e.push.waitPush(t, "cch_a", "connected", m, setupWait)
		t.Logf("connected pushed %s after the link dropped", time.Since(start).Round(time.Millisecond))
	})
	t.Run("unauthorized", func(t *testing.T) {
		m, start := e.push.mark(), time.Now()
		d.SetUnauthorized(true)
		st := e.push.waitPush(t, "cch_a", "degraded", m, pushDeadline)
		t.Logf("degraded pushed %s after the device turned unauthorized", time.Since(start).Round(time.Millisecond))
		for _, tl := range st.Tools {
			if tl.Status != "denied_by_target" || tl.TargetPermissionState != "denied" {
				t.Errorf("degraded tool %+v", tl)
			}
		}
		if _, _, err := e.svc.DeviceFor(t.Context(), "cch_a"); !errors.Is(err, adb.ErrUnauthorized) {
			t.Errorf("DeviceFor(unauthorized) = %v", err)
		}
		m = e.push.mark()
		d.SetUnauthorized(false)
		e.push.waitPush(t, "cch_a", "connected", m, setupWait)
	})
	t.Run("adb server down", func(t *testing.T) {
		m, start := e.push.mark(), time.Now()
		e.adbEnv.KillServer()
		e.push.waitPush(t, "cch_a", "offline", m, pushDeadline)
		t.Logf("offline pushed %s after the adb server was killed", time.Since(start).Round(time.Millisecond))
		if _, _, err := e.svc.DeviceFor(t.Context(), "cch_a"); !errors.Is(err, adb.ErrDeviceOffline) {
			t.Errorf("DeviceFor(server down) = %v", err)
		}
		m = e.push.mark()
		e.adbEnv.StartServer()
		e.adbEnv.Connect(d)
		e.push.waitPush(t, "cch_a", "connected", m, setupWait)
	})
	t.Run("device closed", func(t *testing.T) {
		m, start := e.push.mark(), time.Now()
		d.Close()
		e.push.waitPush(t, "cch_a", "offline", m, pushDeadline)
		t.Logf("offline pushed %s after the device closed", time.Since(start).Round(time.Millisecond))
	})
	checkNoAddress(t, e.push, d.Serial())
}

// TestRestartConnectedOnlyOnceDeviceAnswers: a Service restarted while
// the adb server is down shows the restored binding offline, and
// connected once the device answers again.
func TestRestartConnectedOnlyOnceDeviceAnswers(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, 1, nil)
	key, d := e.key(0), e.adbEnv.Devices[0]
	e.waitPresence(t, key, descriptor.PresenceOnline)
	e.pair(t, "cch_a", key)
	e.svc.Close()
	e.adbEnv.KillServer()
	e.start(t)
	if st := e.open(t, "cch_a"); st.Status != "offline" {
		t.Fatalf("restored binding with adb down: %s", st.Status)
	}
	m := e.push.mark()
	e.adbEnv.StartServer()
	e.adbEnv.Connect(d)
	e.push.waitPush(t, "cch_a", "connected", m, setupWait)
	if _, _, err := e.svc.DeviceFor(t.Context(), "cch_a"); err != nil {
		t.Errorf("DeviceFor after the device answered: %v", err)
	}
}

// TestProbeRetriesUntilDeviceAnswers: a device adb lists as "device" but
// that does not answer stays offline, and turns connected when it answers,
// with no new adb event.
func TestProbeRetriesUntilDeviceAnswers(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, 1, func(c *ServiceConfig) { c.ProbeTimeout = 100 * time.Millisecond })
	key, d := e.key(0), e.adbEnv.Devices[0]
	e.waitPresence(t, key, descriptor.PresenceOnline)
	e.open(t, "cch_a")
	e.pair(t, "cch_a", key)
	m := e.push.mark()
	d.SetLatency(time.Hour) // every shell command hangs until canceled
	d.DropLink()
	e.push.waitPush(t, "cch_a", "offline", m, pushDeadline)
	// adb lists it again as "device", yet the probes time out.
	timer := time.NewTimer(setupWait)
	defer timer.Stop()
	for {
		upd := e.svc.Updated()
		e.svc.mu.RLock()
		p := e.svc.presence[key]
		stuck := p.state == "device" && p.presence == descriptor.PresenceOffline && p.probing && p.fails >= probeAttempts
		e.svc.mu.RUnlock()
		if stuck {
			break
		}
		select {
		case <-upd:
		case <-timer.C:
			t.Fatal("device never seen as listed but not answering")
		}
	}
	if got := e.open(t, "cch_a").Status; got != "offline" {
		t.Fatalf("not answering: %s", got)
	}
	m = e.push.mark()
	d.SetLatency(0)
	e.push.waitPush(t, "cch_a", "connected", m, setupWait)
}

// TestDevicesList: adb-connector devices --json rows, bound flags.
func TestDevicesList(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, 2, nil)
	e.waitPresence(t, e.key(0), descriptor.PresenceOnline)
	e.waitPresence(t, e.key(1), descriptor.PresenceOnline)
	e.pair(t, "cch_a", e.key(1))
	rows, err := e.op.Devices(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ep := e.client.Endpoints()[0]
	want := []admin.DeviceRow{
		{Serial: e.adbEnv.Devices[0].Serial(), Endpoint: ep, State: "device", Model: "Pixel_6", Bound: false},
		{Serial: e.adbEnv.Devices[1].Serial(), Endpoint: ep, State: "device", Model: "Pixel_6", Bound: true,
			Holder: &admin.Holder{Channel: "cch_a", ChannelID: "cch_a", BoundSince: e.clock.Now()}},
	}
	if e.key(0) > e.key(1) {
		want[0], want[1] = want[1], want[0]
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("Devices (-want +got):\n%s", diff)
	}
}

// checkNoAddress fails when any pushed Descriptor holds the device's full
// serial, its IP address or its port.
func checkNoAddress(t *testing.T, p *recPusher, serial string) {
	t.Helper()
	host, port, _ := strings.Cut(serial, ":")
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.pushes {
		b, _ := json.Marshal(r.state)
		for _, bad := range []string{serial, host, port} {
			if bad != "" && strings.Contains(string(b), bad) {
				t.Errorf("descriptor holds %q: %s", bad, b)
			}
		}
	}
	if _, err := strconv.Atoi(port); err != nil {
		t.Fatalf("virtual device serial %q is not host:port", serial)
	}
}
