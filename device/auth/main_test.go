package auth

import (
	"context"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/internal/testkit"
	"github.com/adb-connector/adb-connector/store"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testEnv is a real SQLite database in a temp dir with the binding table
// and both flows on it.
type testEnv struct {
	dir      string
	db       *store.DB
	clock    *testkit.Clock
	bindings *binding.Table
	pairing  *Pairing
	requests *Requests
	secret   []byte

	mu      sync.Mutex
	changed []string
	devices []DeviceInfo
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	secret, err := LoadOrCreateSecret(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := &testEnv{dir: dir, db: db, clock: testkit.NewClock(), secret: secret}
	e.bindings = binding.New(db, binding.Options{Now: e.clock.Now, OnChange: func(ch ...string) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.changed = append(e.changed, ch...)
	}})
	e.pairing = NewPairing(e.bindings, secret, PairingOptions{Now: e.clock.Now})
	e.requests = NewRequests(e.bindings, secret, RequestOptions{Now: e.clock.Now, Devices: e.listDevices})
	return e
}

func (e *testEnv) listDevices() []DeviceInfo {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]DeviceInfo(nil), e.devices...)
}

func (e *testEnv) setDevices(ds ...DeviceInfo) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.devices = ds
}

func dev(endpoint, serial, state string) DeviceInfo {
	return DeviceInfo{Key: adb.DeviceKey(endpoint, serial), Endpoint: endpoint, Serial: serial, Model: "Pixel 7", State: state}
}
