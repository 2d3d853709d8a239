package binding

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/internal/testkit"
	"github.com/adb-connector/adb-connector/store"
)

func TestBindExclusive(t *testing.T) {
	t.Parallel()
	type step struct {
		op      string // bind, release, revoke
		channel string
		device  string
		wantErr error
	}
	tests := []struct {
		name  string
		steps []step
		want  map[string]State // channel -> state after the steps
	}{
		{"bind once", []step{{"bind", "c1", "e/A", nil}}, map[string]State{"c1": Bound}},
		{"rebind same is idempotent", []step{{"bind", "c1", "e/A", nil}, {"bind", "c1", "e/A", nil}}, map[string]State{"c1": Bound}},
		{"device in use", []step{{"bind", "c1", "e/A", nil}, {"bind", "c2", "e/A", ErrDeviceInUse}}, map[string]State{"c1": Bound, "c2": None}},
		{"channel holds another", []step{{"bind", "c1", "e/A", nil}, {"bind", "c1", "e/B", ErrChannelBound}}, map[string]State{"c1": Bound}},
		{"same serial other endpoint is another device", []step{{"bind", "c1", "e1/A", nil}, {"bind", "c2", "e2/A", nil}}, map[string]State{"c1": Bound, "c2": Bound}},
		{"release frees device", []step{{"bind", "c1", "e/A", nil}, {"release", "c1", "", nil}, {"bind", "c2", "e/A", nil}}, map[string]State{"c1": None, "c2": Bound}},
		{"release unbound is fine", []step{{"release", "c1", "", nil}}, map[string]State{"c1": None}},
		{"revoke keeps marker, frees device", []step{{"bind", "c1", "e/A", nil}, {"revoke", "", "e/A", nil}, {"bind", "c2", "e/A", nil}}, map[string]State{"c1": Revoked, "c2": Bound}},
		{"revoked channel binds again", []step{{"bind", "c1", "e/A", nil}, {"revoke", "", "e/A", nil}, {"bind", "c1", "e/B", nil}}, map[string]State{"c1": Bound}},
		{"revoke unbound", []step{{"revoke", "", "e/A", ErrNotBound}}, map[string]State{"c1": None}},
		{"empty args", []step{{"bind", "", "e/A", ErrEmptyKey}, {"bind", "c1", "", ErrEmptyKey}}, map[string]State{"c1": None}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			ctx := context.Background()
			for i, s := range tt.steps {
				var err error
				switch s.op {
				case "bind":
					err = e.bindings.Bind(ctx, s.channel, s.device)
				case "release":
					err = e.bindings.Release(ctx, s.channel)
				case "revoke":
					_, err = e.bindings.Revoke(ctx, s.device)
				}
				if !errors.Is(err, s.wantErr) || (err != nil) != (s.wantErr != nil) {
					t.Fatalf("step %d %s(%s,%s) = %v, want %v", i, s.op, s.channel, s.device, err, s.wantErr)
				}
			}
			got := map[string]State{}
			for ch := range tt.want {
				bd, err := e.bindings.ByChannel(ctx, ch)
				switch {
				case errors.Is(err, ErrNotBound):
					got[ch] = None
				case err != nil:
					t.Fatal(err)
				default:
					got[ch] = bd.State
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("states (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBindRaceOneWinner(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	ctx := context.Background()
	const rounds, racers = 40, 8
	for r := range rounds {
		device := fmt.Sprintf("127.0.0.1:5037/dev%d", r)
		var wg sync.WaitGroup
		errs := make([]error, racers)
		for g := range racers {
			wg.Go(func() {
				errs[g] = e.bindings.Bind(ctx, fmt.Sprintf("c%d-%d", r, g), device)
			})
		}
		wg.Wait()
		testkit.OneWinner(t, fmt.Sprintf("round %d: channels racing for one device", r), errs, ErrDeviceInUse)
		// And one channel racing for many devices holds exactly one.
		ch := fmt.Sprintf("greedy%d", r)
		for g := range racers {
			errs[g] = nil
			wg.Go(func() { errs[g] = e.bindings.Bind(ctx, ch, fmt.Sprintf("e/free%d-%d", r, g)) })
		}
		wg.Wait()
		testkit.OneWinner(t, fmt.Sprintf("round %d: one channel racing for devices", r), errs, ErrChannelBound)
	}
}

func TestBindingsPersistAndNotify(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	ctx := context.Background()
	for i, ch := range []string{"c1", "c2", "c3"} {
		if err := e.bindings.Bind(ctx, ch, fmt.Sprintf("e/D%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := e.bindings.Revoke(ctx, "e/D1"); err != nil || got != "c2" {
		t.Fatalf("Revoke = %q, %v; want c2", got, err)
	}
	n, err := e.bindings.ReleaseChannels(ctx, []string{"c3", "nope"})
	if err != nil || n != 1 {
		t.Fatalf("ReleaseChannels = %d, %v; want 1", n, err)
	}
	if diff := cmp.Diff([]string{"c1", "c2", "c3", "c2", "c3"}, e.takeChanged()); diff != "" {
		t.Errorf("OnChange calls (-want +got):\n%s", diff)
	}
	if err := e.bindings.Bind(ctx, "c1", "e/D0"); err != nil { // no change, no notification
		t.Fatal(err)
	}
	if got := e.takeChanged(); len(got) != 0 {
		t.Errorf("idempotent bind notified %v", got)
	}

	// Reopen the database: bindings survive a restart.
	e.db.Close()
	db, err := store.Open(ctx, e.dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	b := New(db, Options{Now: e.clock.Now})
	list, err := b.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, bd := range list {
		got = append(got, bd.ChannelID+"="+bd.DeviceKey+":"+string(bd.State))
		if !bd.CreatedAt.Equal(e.clock.Now()) {
			t.Errorf("%s created at %v, want %v", bd.ChannelID, bd.CreatedAt, e.clock.Now())
		}
	}
	if diff := cmp.Diff([]string{"c1=e/D0:bound", "c2=e/D1:revoked"}, got); diff != "" {
		t.Errorf("after reopen (-want +got):\n%s", diff)
	}
	if bd, err := b.ByDevice(ctx, "e/D0"); err != nil || bd.ChannelID != "c1" {
		t.Errorf("ByDevice(e/D0) = %+v, %v", bd, err)
	}
	if _, err := b.ByDevice(ctx, "e/D1"); !errors.Is(err, ErrNotBound) {
		t.Errorf("ByDevice(revoked) err = %v, want ErrNotBound", err)
	}
}

func TestSplitDeviceKey(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ key, ep, serial string }{
		{"127.0.0.1:5037/emulator-5554", "127.0.0.1:5037", "emulator-5554"},
		{"127.0.0.1:5037/192.168.1.20:5555", "127.0.0.1:5037", "192.168.1.20:5555"},
		{"R58M", "", "R58M"},
	} {
		t.Run(tt.key, func(t *testing.T) {
			ep, s := SplitKey(tt.key)
			if ep != tt.ep || s != tt.serial {
				t.Errorf("SplitKey = %q, %q", ep, s)
			}
			if tt.ep != "" && adb.DeviceKey(ep, s) != tt.key {
				t.Errorf("DeviceKey round trip = %q", adb.DeviceKey(ep, s))
			}
		})
	}
}
