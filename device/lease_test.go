package device

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/device/lease"
	"github.com/adb-connector/adb-connector/device/reset"
	"github.com/adb-connector/adb-connector/device/tools"
)

// noReset is a lease policy that bounds nothing and resets nothing.
func noReset(string) LeasePolicy { return LeasePolicy{} }

func TestDefaultLeasePolicy(t *testing.T) {
	t.Parallel()
	if p := DefaultLeasePolicy(); p.IdleTimeout != 0 || p.MaxDuration != 0 || !p.Reset.Home || !p.Reset.ForceStopLaunched || !p.Reset.DeleteFiles || p.Reset.ScreenOff {
		t.Errorf("DefaultLeasePolicy = %+v", p)
	}
}

// TestLeaseIdleExpires: on the injected clock, calls renew the idle lease;
// once idle for IdleTimeout the binding expires (pushed), tools are not
// authenticated, the device (which never answered) owes its reset and is
// not handed out until the operator clears it; auth.start binds again.
func TestLeaseIdleExpires(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, 0, func(c *ServiceConfig) {
		c.Lease = func(string) LeasePolicy {
			return LeasePolicy{IdleTimeout: 10 * time.Minute, MaxDuration: time.Hour, Reset: reset.DefaultPolicy()}
		}
	})
	key := adb.DeviceKey("127.0.0.1:1", testSerial)
	if err := e.svc.bindings.Bind(t.Context(), "cch_a", key); err != nil {
		t.Fatal(err)
	}
	e.open(t, "cch_a")
	m := e.push.mark()
	for range 3 { // a call every 6 minutes keeps it
		e.clock.Advance(6 * time.Minute)
		e.svc.DeviceFor(t.Context(), "cch_a") // offline, but a call all the same
		if next := e.svc.leases.Check(t.Context(), e.clock.Now()); !next.Equal(e.clock.Now().Add(10 * time.Minute)) {
			t.Fatalf("next lease end %v, want in 10m", next.Sub(e.clock.Now()))
		}
	}
	e.clock.Advance(10 * time.Minute)
	e.svc.leases.Check(t.Context(), e.clock.Now())
	st := e.push.waitPush(t, "cch_a", "expired", m, setupWait)
	if st.Tools[0].Status != "unavailable" || st.Tools[0].TargetPermissionState != "requires_reauth" {
		t.Errorf("expired tools: %+v", st.Tools)
	}
	if _, _, err := e.svc.DeviceFor(t.Context(), "cch_a"); !errors.Is(err, tools.ErrNotBound) {
		t.Errorf("DeviceFor(expired) = %v, want tools.ErrNotBound", err)
	}
	if b, err := e.svc.bindings.ByChannel(t.Context(), "cch_a"); err != nil || b.State != binding.Expired {
		t.Errorf("binding %+v %v, want expired", b, err)
	}
	owed, err := e.svc.bindings.Resets(t.Context())
	if err != nil || len(owed) != 1 || owed[0].Status != binding.ResetPending || owed[0].Reason != lease.ReasonIdle {
		t.Fatalf("owed resets %+v %v, want one pending for idle_timeout", owed, err)
	}
	if err := e.svc.bindings.Bind(t.Context(), "cch_b", key); !errors.Is(err, binding.ErrNeedsReset) || !errors.Is(err, binding.ErrDeviceInUse) {
		t.Errorf("bind of a device owing a reset = %v, want ErrNeedsReset", err)
	}
	rows, err := e.op.Devices(t.Context())
	if err != nil || len(rows) != 1 || rows[0].Reset != "reset-pending" || rows[0].Bound {
		t.Errorf("devices = %+v %v", rows, err)
	}
	if _, err := e.op.Pair(t.Context(), testSerial, 0, false); err == nil {
		t.Error("pairing code issued for a device owing a reset")
	}
	if _, err := e.op.ClearReset(t.Context(), testSerial); err != nil {
		t.Fatal(err)
	}
	if _, err := e.op.ClearReset(t.Context(), testSerial); !errors.Is(err, binding.ErrNoReset) {
		t.Errorf("second clear = %v, want ErrNoReset", err)
	}
	var ae *admin.Error
	if _, err := e.op.Reset(t.Context(), testSerial); !errors.As(err, &ae) || ae.Code != admin.CodeNoReset {
		t.Errorf("reset now of a device owing none = %v, want no_reset", err)
	}
	// The expired channel binds again (auth.start), and its lease restarts.
	if err := e.svc.bindings.Bind(t.Context(), "cch_a", key); err != nil {
		t.Fatalf("rebind after expiry: %v", err)
	}
	e.push.waitPush(t, "cch_a", "offline", m, setupWait)
	if next := e.svc.leases.Check(t.Context(), e.clock.Now()); !next.Equal(e.clock.Now().Add(10 * time.Minute)) {
		t.Errorf("rebound lease ends in %v, want 10m", next.Sub(e.clock.Now()))
	}
}

// TestLeaseMaxDuration: a busy binding still ends at MaxDuration; a policy
// changed meanwhile applies at the next check.
func TestLeaseMaxDuration(t *testing.T) {
	t.Parallel()
	var maxDur atomic.Int64
	maxDur.Store(int64(time.Hour))
	e := newSvcEnv(t, 0, func(c *ServiceConfig) {
		c.Lease = func(string) LeasePolicy {
			return LeasePolicy{IdleTimeout: 10 * time.Minute, MaxDuration: time.Duration(maxDur.Load())}
		}
	})
	key := adb.DeviceKey("127.0.0.1:1", testSerial)
	if err := e.svc.bindings.Bind(t.Context(), "cch_a", key); err != nil {
		t.Fatal(err)
	}
	e.open(t, "cch_a")
	m := e.push.mark()
	for range 5 {
		e.clock.Advance(5 * time.Minute)
		e.svc.leases.Touch("cch_a")
		e.svc.leases.Check(t.Context(), e.clock.Now())
	}
	if got := e.open(t, "cch_a").Status; got != "offline" {
		t.Fatalf("after 25 busy minutes: %s", got)
	}
	maxDur.Store(int64(20 * time.Minute)) // a reload shortens it
	e.svc.leases.Check(t.Context(), e.clock.Now())
	e.push.waitPush(t, "cch_a", "expired", m, setupWait)
	if owed, _ := e.svc.bindings.Resets(t.Context()); len(owed) != 0 {
		t.Errorf("a policy without reset owes %+v", owed)
	}
	if err := e.svc.bindings.Bind(t.Context(), "cch_b", key); err != nil {
		t.Errorf("device not free after the lease ended: %v", err)
	}
}

// TestLogoutOfExpiredChannel: logout after expiry goes back to created and
// owes no second reset.
func TestLogoutOfExpiredChannel(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, 0, nil)
	key := adb.DeviceKey("127.0.0.1:1", testSerial)
	if err := e.svc.bindings.Bind(t.Context(), "cch_a", key); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.bindings.Expire(t.Context(), "cch_a", key, lease.ReasonIdle); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.bindings.Expire(t.Context(), "cch_a", key, lease.ReasonIdle); !errors.Is(err, binding.ErrNotBound) {
		t.Errorf("second expire = %v", err)
	}
	if err := e.svc.bindings.ClearReset(t.Context(), key); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.AuthLogout(t.Context(), connector.Channel{ID: "cch_a"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := e.open(t, "cch_a").Status; got != "created" {
		t.Errorf("after logout: %s", got)
	}
	if owed, _ := e.svc.bindings.Resets(t.Context()); len(owed) != 0 {
		t.Errorf("logout of an expired channel owes %+v", owed)
	}
}
