package device

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/auth"
	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/device/descriptor"
	"github.com/adb-connector/adb-connector/device/operator"
	"github.com/adb-connector/adb-connector/device/policy"
	"github.com/adb-connector/adb-connector/device/redact"
	"github.com/adb-connector/adb-connector/device/tools"
	"github.com/adb-connector/adb-connector/files"
	"github.com/adb-connector/adb-connector/internal/testkit"
	"github.com/adb-connector/adb-connector/store"
)

// pushDeadline is the Descriptor lifecycle's promise: a device event is
// pushed within 2 s (the Descriptor push contract).
const pushDeadline = 2 * time.Second

// setupWait bounds waits that depend on the adb server reconnecting.
const setupWait = 30 * time.Second

// testTools are the tool ids the Descriptors list in these tests.
var testTools = []string{"android_device_status", "android_screenshot", "android_tap"}

// pushRec is one recorded connection.descriptor.push.
type pushRec struct {
	channelID string
	state     connector.DescriptorState
}

// recPusher records pushes the way connector.Server makes them: by asking
// the Profile for the Descriptor at push time.
type recPusher struct {
	svc *Service

	mu      sync.Mutex
	pushes  []pushRec
	changed chan struct{}
}

func newRecPusher() *recPusher { return &recPusher{changed: make(chan struct{})} }

func (p *recPusher) PushDescriptor(ctx context.Context, channelID string) error {
	st, err := p.svc.Descriptor(ctx, connector.Channel{ID: channelID})
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pushes = append(p.pushes, pushRec{channelID, st})
	close(p.changed)
	p.changed = make(chan struct{})
	return nil
}

// mark returns the number of pushes so far, for waitPush's from.
func (p *recPusher) mark() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.pushes)
}

// statuses lists the statuses pushed for ch since from.
func (p *recPusher) statuses(ch string, from int) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, r := range p.pushes[from:] {
		if r.channelID == ch {
			out = append(out, r.state.Status)
		}
	}
	return out
}

// waitPush waits until a push for ch with status has been recorded after
// push number from, at most d, and returns it.
func (p *recPusher) waitPush(t *testing.T, ch, status string, from int, d time.Duration) connector.DescriptorState {
	t.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		p.mu.Lock()
		for _, r := range p.pushes[from:] {
			if r.channelID == ch && r.state.Status == status {
				p.mu.Unlock()
				return r.state
			}
		}
		wait := p.changed
		p.mu.Unlock()
		select {
		case <-wait:
		case <-timer.C:
			t.Fatalf("no %q push for %s within %s; pushed: %v", status, ch, d, p.statuses(ch, from))
		}
	}
}

// svcEnv is a Service over a real SQLite database in a temp dir, a real
// adb client and, when asked, a private adb server with virtual devices.
type svcEnv struct {
	dir    string
	db     *store.DB
	adbEnv *adbtest.Env // nil without devices
	client *adb.Client
	files  *files.Store
	clock  *testkit.Clock
	push   *recPusher
	svc    *Service
	op     *operator.API // the operator API over svc
	cfg    ServiceConfig
}

// newSvcEnv starts devices virtual devices (0: none; the adb client then
// points at a closed port and does not track).
func newSvcEnv(t testing.TB, devices int, tune func(*ServiceConfig)) *svcEnv {
	t.Helper()
	e := prepareSvcEnv(t, devices, tune)
	e.start(t)
	return e
}

// prepareSvcEnv is newSvcEnv without the Service, for a test that builds
// and starts its own.
func prepareSvcEnv(t testing.TB, devices int, tune func(*ServiceConfig)) *svcEnv {
	t.Helper()
	e := &svcEnv{dir: t.TempDir(), clock: testkit.NewClock(), push: newRecPusher()}
	db, err := store.Open(t.Context(), e.dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e.db = db
	fs, err := files.Open(t.Context(), db, files.Config{JanitorInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() })
	e.files = fs
	acfg := adb.Config{Endpoints: []string{"127.0.0.1:1"}, NoTracking: true}
	if devices > 0 {
		e.adbEnv = adbtest.Start(t, adbtest.Options{Devices: devices})
		acfg = adb.Config{Endpoints: []string{e.adbEnv.ServerAddr}}
	}
	client, err := adb.New(t.Context(), acfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	e.client = client
	e.cfg = ServiceConfig{
		DB: db, ADB: client, Files: fs, Now: e.clock.Now, ToolIDs: testTools,
	}
	if tune != nil {
		tune(&e.cfg)
	}
	return e
}

// start (re)starts the Service on the same database and adb client,
// pushing to e.push.
func (e *svcEnv) start(t testing.TB) {
	t.Helper()
	e.build(t)
	e.push.svc = e.svc
	e.svc.Start(e.push)
}

// build makes the Service without starting it.
func (e *svcEnv) build(t testing.TB) {
	t.Helper()
	svc, err := NewService(t.Context(), e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	e.svc = svc
	e.op = svc.Operator(operator.Serve{})
}

// key is the device key of virtual device i.
func (e *svcEnv) key(i int) string {
	return adb.DeviceKey(e.client.Endpoints()[0], e.adbEnv.Devices[i].Serial())
}

// waitPresence waits until the Service counts key as want.
func (e *svcEnv) waitPresence(t *testing.T, key string, want descriptor.Presence) {
	t.Helper()
	timer := time.NewTimer(setupWait)
	defer timer.Stop()
	for {
		upd := e.svc.Updated()
		e.svc.mu.RLock()
		got := descriptor.PresenceUnknown
		if p := e.svc.presence[key]; p != nil {
			got = p.presence
		}
		e.svc.mu.RUnlock()
		if got == want {
			return
		}
		select {
		case <-upd:
		case <-timer.C:
			t.Fatalf("device presence %s, want %s", got, want)
		}
	}
}

// open is channel.open: the peer reads the Descriptor once, so later
// changes are pushed.
func (e *svcEnv) open(t *testing.T, ch string) connector.DescriptorState {
	t.Helper()
	st, err := e.svc.Descriptor(t.Context(), connector.Channel{ID: ch})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// pair issues a pairing code for device key through the operator handler
// and redeems it on ch; it fails the test unless ch is authenticated.
func (e *svcEnv) pair(t *testing.T, ch, key string) {
	t.Helper()
	_, serial := binding.SplitKey(key)
	code, err := e.op.Pair(t.Context(), key, 0, false)
	if err != nil {
		t.Fatalf("pair %s: %v", redact.KeyHint(key), err)
	}
	r, err := e.svc.AuthStart(t.Context(), connector.Channel{ID: ch}, startPairing(serial, code))
	if err != nil {
		t.Fatal(err)
	}
	if a := r.Payload.(authAck); a.Status != "authenticated" || !r.WithDescriptor {
		t.Fatalf("pairing: %+v", r)
	}
}

func startPairing(serial, code string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"flow_id": auth.FlowPairing, "input": map[string]string{"serial": serial, "pairing_code": code}})
	return b
}

func TestDescriptorCreatedWithoutBinding(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, 0, nil)
	got := e.open(t, "cch_a")
	want := connector.DescriptorState{
		Status: "created", TargetType: "device",
		Target: connector.DescriptorTarget{Provider: "adb", Label: "Android Device", DisplayName: "No device bound"},
		Tools: []connector.DescriptorTool{
			{ToolID: "android_device_status", Status: "unavailable", TargetPermissionState: "unknown"},
			{ToolID: "android_screenshot", Status: "unavailable", TargetPermissionState: "unknown"},
			{ToolID: "android_tap", Status: "unavailable", TargetPermissionState: "unknown"},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Descriptor (-want +got):\n%s", diff)
	}
	if _, _, err := e.svc.DeviceFor(t.Context(), "cch_a"); !errors.Is(err, tools.ErrNotBound) {
		t.Errorf("DeviceFor(unbound) = %v, want tools.ErrNotBound", err)
	}
	if err := e.svc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Close(); err != nil { // idempotent
		t.Fatal(err)
	}
}

// TestRestoredBindingOfflineUntilSeen: after a restart with no adb answer,
// a restored binding is offline, tools unavailable, DeviceFor offline.
func TestRestoredBindingOfflineUntilSeen(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, 0, nil)
	key := adb.DeviceKey("127.0.0.1:1", "R58M123ABC")
	if err := e.svc.bindings.Bind(t.Context(), "cch_a", key); err != nil {
		t.Fatal(err)
	}
	e.svc.Close()
	e.start(t)
	st := e.open(t, "cch_a")
	if st.Status != "offline" || st.Tools[0].Status != "unavailable" {
		t.Errorf("restored binding: %+v", st)
	}
	if want := "Android device (…3ABC)"; st.Target.DisplayName != want || st.Target.AccountHint != "…3ABC" {
		t.Errorf("target = %+v, want display name %q", st.Target, want)
	}
	_, meta, err := e.svc.DeviceFor(t.Context(), "cch_a")
	if !errors.Is(err, adb.ErrDeviceOffline) || meta.Hint != "…3ABC" {
		t.Errorf("DeviceFor = %+v, %v; want ErrDeviceOffline", meta, err)
	}
	if strings.Contains(err.Error(), "R58M123ABC") {
		t.Errorf("error holds the full serial: %v", err)
	}
}

// TestRevokeAndLogout: operator unbind pushes revoked (tools requires
// reauth, DeviceFor not bound); logout pushes created.
func TestRevokeAndLogout(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, 0, nil)
	key := adb.DeviceKey("127.0.0.1:1", "R58M123ABC")
	if err := e.svc.bindings.Bind(t.Context(), "cch_a", key); err != nil {
		t.Fatal(err)
	}
	e.open(t, "cch_a") // offline: not seen
	m := e.push.mark()
	if _, err := e.op.Unbind(t.Context(), "R58M123ABC"); err != nil {
		t.Fatal(err)
	}
	st := e.push.waitPush(t, "cch_a", "revoked", m, setupWait)
	if st.Tools[0].TargetPermissionState != "requires_reauth" {
		t.Errorf("revoked tools: %+v", st.Tools)
	}
	if _, _, err := e.svc.DeviceFor(t.Context(), "cch_a"); !errors.Is(err, tools.ErrNotBound) {
		t.Errorf("DeviceFor(revoked) = %v, want tools.ErrNotBound", err)
	}
	m = e.push.mark()
	r, err := e.svc.AuthLogout(t.Context(), connector.Channel{ID: "cch_a"}, nil)
	if err != nil || !r.WithDescriptor {
		t.Fatalf("logout: %+v %v", r, err)
	}
	e.push.waitPush(t, "cch_a", "created", m, setupWait)
	if got := e.open(t, "cch_a").Status; got != "created" {
		t.Errorf("after logout: %s", got)
	}
}

// TestChannelsReleased: lease expiry frees the device, the sessions and
// the channel's files, and pushes nothing for the gone channel. (With no
// reset policy: a device that never answered would owe its reset.)
func TestChannelsReleased(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, 0, func(c *ServiceConfig) { c.Lease = noReset })
	key := adb.DeviceKey("127.0.0.1:1", "R58M123ABC")
	if err := e.svc.bindings.Bind(t.Context(), "cch_a", key); err != nil {
		t.Fatal(err)
	}
	e.open(t, "cch_a")
	ref, err := e.files.PutBytes(t.Context(), "cch_a", files.Meta{MIMEType: "image/png", Filename: "s.png"}, []byte("png"))
	if err != nil {
		t.Fatal(err)
	}
	m := e.push.mark()
	e.svc.ChannelsReleased(t.Context(), []connector.Channel{{ID: "cch_a"}})
	if _, err := e.svc.bindings.ByDevice(t.Context(), key); !errors.Is(err, binding.ErrNotBound) {
		t.Errorf("device still bound: %v", err)
	}
	if _, f, err := e.files.Get(t.Context(), ref.FileRef, "cch_a"); err == nil {
		f.Close()
		t.Error("file of a released channel still served")
	}
	if err := e.svc.bindings.Bind(t.Context(), "cch_b", key); err != nil {
		t.Errorf("device not free after release: %v", err)
	}
	e.svc.Close() // drains the push worker
	if got := e.push.statuses("cch_a", m); len(got) != 0 {
		t.Errorf("pushes for a released channel: %v", got)
	}
}

// BenchmarkDescriptor: the Profile's Descriptor for a bound channel, as
// channel.open, descriptor.get and every push call it.
func BenchmarkDescriptor(b *testing.B) {
	e := newSvcEnv(b, 0, nil)
	if err := e.svc.bindings.Bind(b.Context(), "cch_a", adb.DeviceKey("127.0.0.1:1", "R58M123ABC")); err != nil {
		b.Fatal(err)
	}
	ch := connector.Channel{ID: "cch_a"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.svc.Descriptor(b.Context(), ch); err != nil {
			b.Fatal(err)
		}
	}
}

// issueCode issues a pairing code for key as the operator would.
func issueCode(t testing.TB, p *auth.Pairing, key string) string {
	t.Helper()
	code, err := p.IssuePairingCode(context.Background(), key, 0)
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// TestToolStatusPerTool: each tool's Descriptor entry is computed on its
// own: a tool the operator does not offer on the bound device is
// not_supported while the others keep the channel's state; an unbound
// channel, which names no device, shows every tool in its own state.
func TestToolStatusPerTool(t *testing.T) {
	t.Parallel()
	key := adb.DeviceKey("127.0.0.1:1", "R58M123ABC")
	pol, err := policy.Parse([]byte("tags:\n  - match: {serial: R58M123ABC}\n    tags: [lab]\n"+
		"policies:\n  rules:\n    - tags: [lab]\n      tools: {deny: [android_tap]}\n"), policy.Options{ToolIDs: testTools})
	if err != nil {
		t.Fatal(err)
	}
	e := newSvcEnv(t, 0, func(c *ServiceConfig) { c.Policy = policy.NewHolder(pol) })
	if got := e.open(t, "cch_free"); got.Tools[2].Status != "unavailable" {
		t.Errorf("unbound channel: %+v", got.Tools)
	}
	if err := e.svc.bindings.Bind(t.Context(), "cch_a", key); err != nil {
		t.Fatal(err)
	}
	got := e.open(t, "cch_a") // bound, not seen yet: offline
	want := []connector.DescriptorTool{
		{ToolID: "android_device_status", Status: "unavailable", TargetPermissionState: "unknown"},
		{ToolID: "android_screenshot", Status: "unavailable", TargetPermissionState: "unknown"},
		{ToolID: "android_tap", Status: "not_supported", TargetPermissionState: "unknown"},
	}
	if diff := cmp.Diff(want, got.Tools); diff != "" || got.Status != "offline" {
		t.Errorf("Descriptor %s tools (-want +got):\n%s", got.Status, diff)
	}
}
