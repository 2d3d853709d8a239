package operator

import (
	"errors"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/binding"
)

// TestForceTakesAHeldPhone: a phone another channel holds gets no pairing
// code and no approval (device_in_use, naming the holder); with force the
// code is issued (the holder keeps the phone) and the approval revokes
// the holder's binding first.
func TestForceTakesAHeldPhone(t *testing.T) {
	e := newTestEnv(t)
	ctx := t.Context()
	e.setDevices(dev("127.0.0.1:5037", "S1", "device"))
	api := e.api()
	code, err := api.Pair(ctx, "S1", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.pairing.RedeemPairing(ctx, "cch_aaaaaa0123", "S1", code); err != nil {
		t.Fatal(err)
	}
	_, err = api.Pair(ctx, "S1", 0, false)
	var ae *admin.Error
	if !errors.As(err, &ae) || ae.Code != admin.CodeDeviceInUse || !errors.Is(err, binding.ErrDeviceInUse) ||
		ae.Message != "pair: S1 is held by channel cch_aaaaaa (disconnected); a code works once it is free (`adb-connector unbind S1`); pass --force to issue one anyway" {
		t.Fatalf("pair of a held phone = %v", err)
	}
	if code, err := api.Pair(ctx, "S1", 0, true); err != nil || code == "" {
		t.Fatalf("pair --force of a held phone = %q, %v", code, err)
	}
	if bd, err := e.bindings.ByChannel(ctx, "cch_aaaaaa0123"); err != nil || bd.State != binding.Bound {
		t.Fatalf("pair --force changed the binding: %+v, %v", bd, err)
	}
	s, err := e.requests.StartRequest(ctx, "chB")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := api.Approve(ctx, s.Code, "S1", false); !errors.As(err, &ae) || ae.Code != admin.CodeDeviceInUse {
		t.Fatalf("approve onto a held phone = %v", err)
	}
	if key, err := api.Approve(ctx, s.Code, "S1", true); err != nil || key != "127.0.0.1:5037/S1" {
		t.Fatalf("approve --force = %q, %v", key, err)
	}
	if bd, err := e.bindings.ByChannel(ctx, "cch_aaaaaa0123"); err != nil || bd.State != binding.Revoked {
		t.Errorf("the old holder after --force: %+v, %v; want revoked", bd, err)
	}
	if bd, err := e.bindings.ByChannel(ctx, "chB"); err != nil || bd.State != binding.Bound {
		t.Errorf("the new holder after --force: %+v, %v; want bound", bd, err)
	}
}

func TestStatusAndCounts(t *testing.T) {
	t.Parallel()
	up := &admin.Holder{Connected: true}
	gone := &admin.Holder{}
	rows := []admin.DeviceRow{
		{State: "device"},                            // free
		{State: "device", Bound: true, Holder: up},   // in use
		{State: "device", Reset: admin.ResetRunning}, // in use: being reset
		{State: "device", Bound: true, Holder: gone}, // attention: nobody uses it, nobody else can
		{State: "offline", Bound: true, Holder: up},  // attention
		{State: "unauthorized"},                      // attention
		{State: "device", Reset: admin.ResetNeeded},  // attention
	}
	if got, want := CountsOf(rows), (Counts{Free: 1, InUse: 2, Attention: 4}); got != want {
		t.Errorf("CountsOf = %+v, want %+v", got, want)
	}
	now := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		h    admin.Holder
		want string
	}{
		{admin.Holder{Connected: true, LinkSince: now.Add(-5 * time.Minute)}, "connected 5m00s"},
		{admin.Holder{LinkSince: now.Add(-130 * time.Minute)}, "disconnected 2h10m ago"},
		{admin.Holder{}, "disconnected"},
	} {
		if got := LinkWords(&c.h, now); got != c.want {
			t.Errorf("LinkWords(%+v) = %q, want %q", c.h, got, c.want)
		}
	}
}
