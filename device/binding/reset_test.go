package binding

import (
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestResetDebt: every release of a bound device owes the reset
// ResetOnRelease says, in the release's transaction; a device that owes
// one is not bound (running: ErrResetting, else ErrNeedsReset, both "in
// use"); a marker's release owes nothing; claim, finish and clear move the
// debt as documented.
func TestResetDebt(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	ctx := t.Context()
	owe := ResetRunning
	var mu sync.Mutex
	var rels []Release
	e.bindings = New(e.db, Options{Now: e.clock.Now,
		ResetOnRelease: func(string) ResetStatus { return owe },
		OnRelease: func(r Release) {
			mu.Lock()
			defer mu.Unlock()
			rels = append(rels, r)
		}})
	b := e.bindings
	status := func(key string) ResetStatus {
		t.Helper()
		rs, err := b.Resets(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if r.DeviceKey == key {
				return r.Status
			}
		}
		return ResetNone
	}

	for _, step := range []struct {
		name    string
		release func() error
		reason  string
	}{
		{"logout", func() error { return b.Release(ctx, "c1") }, ReasonLogout},
		{"closed", func() error { _, err := b.ReleaseChannels(ctx, []string{"c1"}); return err }, ReasonChannelClosed},
		{"unbind", func() error { _, err := b.Revoke(ctx, "e/S1"); return err }, ReasonUnbind},
		{"lease", func() error { return b.Expire(ctx, "c1", "e/S1", "idle_timeout") }, "idle_timeout"},
	} {
		if err := b.Bind(ctx, "c1", "e/S1"); err != nil {
			t.Fatalf("%s: bind: %v", step.name, err)
		}
		if err := step.release(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if got := status("e/S1"); got != ResetRunning {
			t.Fatalf("%s: owes %q", step.name, got)
		}
		err := b.Bind(ctx, "c2", "e/S1")
		if !errors.Is(err, ErrResetting) || !errors.Is(err, ErrDeviceInUse) {
			t.Fatalf("%s: bind while resetting = %v", step.name, err)
		}
		if err := b.FinishReset(ctx, "e/S1", true, "", ""); err != nil {
			t.Fatal(err)
		}
		if got := status("e/S1"); got != ResetNone {
			t.Fatalf("%s: after a good reset owes %q", step.name, got)
		}
		mu.Lock()
		last := rels[len(rels)-1]
		mu.Unlock()
		if diff := cmp.Diff(Release{ChannelID: "c1", DeviceKey: "e/S1", Reason: step.reason, Reset: ResetRunning}, last); diff != "" {
			t.Errorf("%s: release (-want +got):\n%s", step.name, diff)
		}
		b.Release(ctx, "c1") // drop a marker: owes nothing more
		if got := status("e/S1"); got != ResetNone {
			t.Fatalf("%s: releasing a marker owes %q", step.name, got)
		}
	}

	// Failed: refused as needs-reset until a claimed retry succeeds.
	if err := b.Bind(ctx, "c1", "e/S1"); err != nil {
		t.Fatal(err)
	}
	b.Release(ctx, "c1")
	if err := b.FinishReset(ctx, "e/S1", false, ResetFailed, "home: exit 1"); err != nil {
		t.Fatal(err)
	}
	if err := b.Bind(ctx, "c2", "e/S1"); !errors.Is(err, ErrNeedsReset) {
		t.Fatalf("bind of a needs-reset device = %v", err)
	}
	if _, ok, _ := b.ClaimReset(ctx, "e/S1", ResetPending); ok {
		t.Error("claimed a failed reset as pending")
	}
	if r, ok, err := b.ClaimReset(ctx, "e/S1", ResetPending, ResetFailed); err != nil || !ok || r.Status != ResetRunning || r.Reason != ReasonLogout {
		t.Fatalf("claim = %+v %v %v", r, ok, err)
	}
	if err := b.FinishReset(ctx, "e/S1", false, ResetPending, ""); err != nil {
		t.Fatal(err)
	}
	if got := status("e/S1"); got != ResetPending {
		t.Fatalf("requeued: %q", got)
	}
	// Cleared by the operator: free, and a late finish does not revive it.
	if err := b.ClearReset(ctx, "e/S1"); err != nil {
		t.Fatal(err)
	}
	if err := b.FinishReset(ctx, "e/S1", false, ResetFailed, "late"); err != nil {
		t.Fatal(err)
	}
	if err := b.ClearReset(ctx, "e/S1"); !errors.Is(err, ErrNoReset) {
		t.Errorf("clear of nothing = %v", err)
	}
	if err := b.Bind(ctx, "c2", "e/S1"); err != nil {
		t.Fatalf("bind after clear: %v", err)
	}

	// Nothing to reset: nothing owed.
	owe = ResetNone
	b.Release(ctx, "c2")
	if got := status("e/S1"); got != ResetNone {
		t.Errorf("owes %q with no reset policy", got)
	}
	// A running reset left by a stop is pending at the next start.
	owe = ResetRunning
	b.Bind(ctx, "c2", "e/S1")
	b.Release(ctx, "c2")
	if err := b.RequeueRunning(ctx); err != nil {
		t.Fatal(err)
	}
	if got := status("e/S1"); got != ResetPending {
		t.Errorf("after requeue: %q", got)
	}
}
