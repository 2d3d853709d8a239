package device

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/device/descriptor"
	"github.com/adb-connector/adb-connector/internal/ratelimit"
)

// TestApproveRace: two channels' request codes approved at once for the
// same device; exactly one channel gets it, every round.
func TestApproveRace(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, 1, nil)
	key, serial := e.key(0), e.adbEnv.Devices[0].Serial()
	e.waitPresence(t, key, descriptor.PresenceOnline)
	for round := range 20 {
		chans := []string{fmt.Sprintf("cch_x%d", round), fmt.Sprintf("cch_y%d", round)}
		codes := make([]string, len(chans))
		for i, c := range chans {
			r, err := e.svc.AuthStart(t.Context(), chn(c), startRequest)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := authReplyAck(t, r)
			codes[i] = a.QRCodeText
		}
		errs := make([]error, len(chans))
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range chans {
			wg.Go(func() {
				<-start
				_, errs[i] = e.op.Approve(t.Context(), codes[i], serial, false)
			})
		}
		close(start)
		wg.Wait()
		won := -1
		for i, err := range errs {
			switch {
			case err == nil && won < 0:
				won = i
			case err == nil:
				t.Fatalf("round %d: both approvals bound the device", round)
			case !errors.Is(err, binding.ErrDeviceInUse):
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if won < 0 {
			t.Fatalf("round %d: no approval won: %v", round, errs)
		}
		if b, err := e.svc.bindings.ByDevice(t.Context(), key); err != nil || b.ChannelID != chans[won] {
			t.Fatalf("round %d: binding %+v %v", round, b, err)
		}
		for _, c := range chans {
			if _, err := e.svc.AuthLogout(t.Context(), chn(c), nil); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestBindRace: two channels redeem the same pairing code at once; exactly
// one is authenticated, every round.
func TestBindRace(t *testing.T) {
	t.Parallel()
	// No reset: the device never answers, so a reset owed would keep it
	// from the next round.
	e := newSvcEnv(t, 0, func(c *ServiceConfig) {
		c.PairingRateLimit = ratelimit.Rate{Burst: 10000, Per: time.Minute}
		c.Lease = noReset
	})
	const rounds = 40
	for round := range rounds {
		code := issueCode(t, e.svc.pairing, testKey)
		chans := []string{fmt.Sprintf("cch_x%d", round), fmt.Sprintf("cch_y%d", round)}
		status := make([]string, len(chans))
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, c := range chans {
			wg.Go(func() {
				<-start
				r, err := e.svc.AuthStart(t.Context(), chn(c), startPairing(testSerial, code))
				if err != nil {
					status[i] = err.Error()
					return
				}
				status[i] = r.Payload.(authAck).Status
			})
		}
		close(start)
		wg.Wait()
		won := -1
		for i, s := range status {
			if s == "authenticated" {
				if won >= 0 {
					t.Fatalf("round %d: both channels authenticated", round)
				}
				won = i
			} else if s != "failed" {
				t.Fatalf("round %d: channel %d got %q", round, i, s)
			}
		}
		if won < 0 {
			t.Fatalf("round %d: no channel won: %v", round, status)
		}
		if b, err := e.svc.bindings.ByDevice(t.Context(), testKey); err != nil || b.ChannelID != chans[won] {
			t.Fatalf("round %d: binding %+v %v, want %s", round, b, err, chans[won])
		}
		if _, err := e.svc.AuthLogout(t.Context(), chn(chans[won]), nil); err != nil {
			t.Fatal(err)
		}
	}
}
