package operator

import (
	"context"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/device/auth"
	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/internal/testkit"
	"github.com/adb-connector/adb-connector/store"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testEnv is a real SQLite database in a temp dir with the three flows on it.
type testEnv struct {
	dir      string
	db       *store.DB
	clock    *testkit.Clock
	bindings *binding.Table
	pairing  *auth.Pairing
	requests *auth.Requests
	secret   []byte

	mu      sync.Mutex
	changed []string
	devices []auth.DeviceInfo
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	secret, err := auth.LoadOrCreateSecret(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := &testEnv{dir: dir, db: db, clock: testkit.NewClock(), secret: secret}
	e.bindings = binding.New(db, binding.Options{Now: e.clock.Now, OnChange: func(ch ...string) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.changed = append(e.changed, ch...)
	}})
	e.pairing = auth.NewPairing(e.bindings, secret, auth.PairingOptions{Now: e.clock.Now})
	e.requests = auth.NewRequests(e.bindings, secret, auth.RequestOptions{Now: e.clock.Now, Devices: e.listDevices})
	return e
}

func (e *testEnv) listDevices() []auth.DeviceInfo {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]auth.DeviceInfo(nil), e.devices...)
}

func (e *testEnv) setDevices(ds ...auth.DeviceInfo) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.devices = ds
}

func dev(endpoint, serial, state string) auth.DeviceInfo {
	return auth.DeviceInfo{Key: adb.DeviceKey(endpoint, serial), Endpoint: endpoint, Serial: serial, Model: "Pixel 7", State: state}
}

// api is the operator API over the env (no live adb, leases or resets).
func (e *testEnv) api() *API {
	return New(Config{Bindings: e.bindings, Pairing: e.pairing, Requests: e.requests, Devices: e.listDevices, DB: e.db, Now: e.clock.Now})
}
