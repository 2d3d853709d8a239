package reset

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/device/audit"
	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/store"
)

func TestPolicyEmpty(t *testing.T) {
	t.Parallel()
	if !(Policy{}).Empty() || DefaultPolicy().Empty() || (Policy{ClearPackages: []string{"a.b"}}).Empty() {
		t.Error("Empty disagrees with the policy")
	}
}

// TestOwed: a device whose policy resets nothing owes nothing; one that
// answers is reset at once, one away when it answers.
func TestOwed(t *testing.T) {
	t.Parallel()
	online := map[string]bool{"ep/ON": true}
	r := New(Config{
		Policy: func(k string) Policy {
			if k == "ep/NONE" {
				return Policy{}
			}
			return DefaultPolicy()
		},
		Online: func(k string) bool { return online[k] },
	})
	defer r.Close()
	for key, want := range map[string]binding.ResetStatus{"ep/NONE": binding.ResetNone, "ep/ON": binding.ResetRunning, "ep/AWAY": binding.ResetPending} {
		if got := r.Owed(key); got != want {
			t.Errorf("Owed(%s) = %q, want %q", key, got, want)
		}
	}
}

// TestReleaseResets: through a real binding table, adb server and virtual
// phone: a release owes a reset, which runs the policy's steps (the app
// the binding launched is stopped, the baseline's apps are not), writes
// its audit row and frees the device.
func TestReleaseResets(t *testing.T) {
	t.Parallel()
	env := adbtest.Start(t, adbtest.Options{Devices: 1})
	db, err := store.Open(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	client, err := adb.New(t.Context(), adb.Config{Endpoints: []string{env.ServerAddr}, NoTracking: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	key := adb.DeviceKey(env.ServerAddr, env.Devices[0].Serial())
	phone := env.Devices[0].Android()

	var (
		mu      sync.Mutex
		bound   = map[string]bool{}
		changed = make(chan struct{}, 16)
		r       *Resets
	)
	table := binding.New(db, binding.Options{
		ResetOnRelease: func(k string) binding.ResetStatus { return r.Owed(k) },
		OnRelease:      func(rel binding.Release) { r.Released(rel) },
	})
	r = New(Config{ADB: client, Bindings: table, Audit: audit.NewWriter(db.Write, 0, nil),
		Online: func(string) bool { return true },
		Bound: func(k string) bool {
			mu.Lock()
			defer mu.Unlock()
			return bound[k]
		},
		Changed: func() {
			select {
			case changed <- struct{}{}:
			default:
			}
		}})
	r.Start()
	t.Cleanup(r.Close)
	wait := func(what string, cond func() bool) {
		t.Helper()
		timer := time.NewTimer(time.Minute)
		defer timer.Stop()
		for !cond() {
			select {
			case <-changed:
			case <-timer.C:
				t.Fatalf("no %s", what)
			}
		}
	}

	if err := table.Bind(t.Context(), "cch_a", key); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	bound[key] = true
	mu.Unlock()
	r.Bound(key)
	wait("baseline", func() bool { return r.HasBaseline(key) })
	d, err := client.Device(key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Launch(t.Context(), "com.android.chrome", ""); err != nil {
		t.Fatal(err)
	}
	// The binding turned the phone: the reset puts the settings back.
	found, err := d.RotationSettings(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := d.SetRotationSettings(t.Context(), adb.RotationSettings{User: 1}); err != nil || phone.Rotation() != 1 {
		t.Fatalf("turn: %v, rotation %d", err, phone.Rotation())
	}
	from := len(phone.Commands())
	mu.Lock()
	bound[key] = false
	mu.Unlock()
	if err := table.Release(t.Context(), "cch_a"); err != nil {
		t.Fatal(err)
	}
	r.Wait(t.Context(), env.Devices[0].Serial())
	wait("reset end", func() bool { return !r.Running(key) })
	if owed, err := table.Resets(t.Context()); err != nil || len(owed) != 0 {
		t.Fatalf("after a good reset the device owes %+v %v", owed, err)
	}
	if now, err := d.RotationSettings(t.Context()); err != nil || now != found || phone.Rotation() != 0 {
		t.Errorf("after the reset rotation settings %+v (found %+v), rotation %d, %v", now, found, phone.Rotation(), err)
	}
	var ran []string
	for _, c := range phone.Commands()[from:] {
		ran = append(ran, c.Line)
	}
	for _, want := range []string{"input keyevent KEYCODE_HOME", "am force-stop com.android.chrome", "rm -f /data/local/tmp/adbc-*"} {
		if !slices.Contains(ran, want) {
			t.Errorf("reset did not run %q; ran %q", want, ran)
		}
	}
	for _, l := range ran {
		if strings.Contains(l, "force-stop") && !strings.Contains(l, "chrome") {
			t.Errorf("reset stopped an app the binding did not launch: %q", l)
		}
	}
	recs, err := audit.Read(t.Context(), db.Read, audit.Query{ToolID: audit.ResetToolID})
	if err != nil || len(recs) != 1 || recs[0].Outcome != audit.OutcomeOK || recs[0].ChannelID != "cch_a" ||
		!strings.Contains(string(recs[0].Args), `"force_stopped":1`) {
		t.Errorf("reset audit rows %+v %v", recs, err)
	}
}
