package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/emulator"
	"github.com/adb-connector/adb-connector/files"
	"github.com/adb-connector/adb-connector/store"
)

// testResolver binds channels to devices of an adbtest server, the way
// device.Service does with real bindings.
type testResolver struct {
	client *adb.Client
	mu     sync.Mutex
	m      map[string]string // channel id -> device key
}

func (r *testResolver) bind(channelID, key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m[channelID] = key
}

func (r *testResolver) DeviceFor(ctx context.Context, channelID string) (*adb.Device, Meta, error) {
	r.mu.Lock()
	key, ok := r.m[channelID]
	r.mu.Unlock()
	if !ok {
		return nil, Meta{}, ErrNotBound
	}
	d, err := r.client.Device(key)
	if err != nil {
		return nil, Meta{}, err
	}
	info, err := r.client.DeviceInfo(ctx, key)
	if err != nil {
		return nil, Meta{}, err
	}
	return d, Meta{Key: key, Model: "Pixel 6", Hint: hintOf(d.Serial()), Transport: info.Transport}, nil
}

// hintOf stands for the Profile's redacted serial hint: the pipeline only
// passes Meta.Hint on, so any stable text that is not the serial will do.
func hintOf(serial string) string { return fmt.Sprintf("hint#%x", len(serial)*7919) }

// toolsEnv is a real adb server with virtual devices, a real SQLite
// database and file store, and Tools over them. Channel "cch_dev<i>" is
// bound to Devices[i].
type toolsEnv struct {
	adb      *adbtest.Env
	db       *store.DB
	files    *files.Store
	resolver *testResolver
	tools    *Tools
	reg      *connector.Registry
}

func newToolsEnv(t testing.TB, devices int, tune func(*Config)) *toolsEnv {
	t.Helper()
	return newToolsEnvLimits(t, devices, adb.Limits{}, tune)
}

// newToolsEnvLimits is newToolsEnv with per-device adb limits.
func newToolsEnvLimits(t testing.TB, devices int, limits adb.Limits, tune func(*Config)) *toolsEnv {
	t.Helper()
	return newToolsEnvOpts(t, adbtest.Options{Devices: devices}, limits, tune)
}

// newToolsEnvOpts is newToolsEnvLimits with the virtual phones' options.
func newToolsEnvOpts(t testing.TB, opts adbtest.Options, limits adb.Limits, tune func(*Config)) *toolsEnv {
	t.Helper()
	return newToolsEnvHelper(t, opts, limits, false, tune)
}

// newToolsEnvHelper is newToolsEnvOpts, with the phone helper started
// where the phone runs it when helper is true.
func newToolsEnvHelper(t testing.TB, opts adbtest.Options, limits adb.Limits, helper bool, tune func(*Config)) *toolsEnv {
	t.Helper()
	env := adbtest.Start(t, opts)
	dir := t.TempDir()
	db, err := store.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	fs, err := files.Open(t.Context(), db, files.Config{JanitorInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() })
	// The tools' tests count and fault the stock commands (uiautomator,
	// input); the phone helper, which serves the same calls where it runs,
	// is tested in package adb and end to end.
	client, err := adb.New(t.Context(), adb.Config{Endpoints: []string{env.ServerAddr}, NoTracking: true, Limits: limits, NoHelper: !helper})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	res := &testResolver{client: client, m: map[string]string{}}
	for i, d := range env.Devices {
		res.bind(devChannel(i), adb.DeviceKey(env.ServerAddr, d.Serial()))
	}
	cfg := Config{Resolver: res, Files: fs, DB: db}
	if tune != nil {
		tune(&cfg)
	}
	tools, reg := registerTools(t, cfg)
	return &toolsEnv{adb: env, db: db, files: fs, resolver: res, tools: tools, reg: reg}
}

func devChannel(i int) string { return "cch_dev" + string(rune('0'+i)) }

// device returns the i-th virtual phone.
func (e *toolsEnv) device(i int) *emulator.Device { return e.adb.Devices[i] }

// ackOf is a tool.invoke.ack as the connector would send it.
type ackOf struct {
	Result json.RawMessage
	Err    *connector.Error
}

// call invokes a tool through the registry like connector does: args is
// the arguments object (connector_channel_id added), callID the
// context.tool_call_id ("" for none).
func (e *toolsEnv) call(t testing.TB, ctx context.Context, channelID, toolID, args, callID string, progress func(string, float64)) ackOf {
	t.Helper()
	return invokeTool(t, ctx, e.reg, channelID, toolID, args, callID, progress)
}

func invokeTool(t testing.TB, ctx context.Context, reg *connector.Registry, channelID, toolID, args, callID string, progress func(string, float64)) ackOf {
	t.Helper()
	tool, ok := reg.Lookup(toolID)
	if !ok {
		t.Fatalf("tool %s not registered", toolID)
	}
	if progress == nil {
		progress = func(string, float64) {}
	}
	raw := withChannelArg(args, channelID)
	res, err := tool.Handler(ctx, connector.ToolCall{
		Channel: connector.Channel{ID: channelID}, ToolID: toolID, Arguments: json.RawMessage(raw),
		ToolCallID: callID, Progress: progress,
	})
	if err != nil {
		return ackOf{Err: connector.MapError(err, connector.CodeToolInvokeFailed)}
	}
	b, merr := json.Marshal(res)
	if merr != nil {
		t.Fatalf("result does not marshal: %v", merr)
	}
	return ackOf{Result: b}
}

// withChannelArg adds "connector_channel_id" to a JSON object literal.
func withChannelArg(args, channelID string) string {
	args = strings.TrimSpace(args)
	if args == "" {
		args = "{}"
	}
	if !strings.HasPrefix(args, "{") {
		return args
	}
	inner := strings.TrimSpace(args[1:])
	sep := ","
	if strings.HasPrefix(inner, "}") {
		sep = ""
	}
	return `{"connector_channel_id":"` + channelID + `"` + sep + inner
}

// mustOK fails unless a is a success and decodes its result into v.
func mustOK(t testing.TB, a ackOf, v any) {
	t.Helper()
	if a.Err != nil {
		t.Fatalf("ack error %s: %s", a.Err.Code, a.Err.Message)
	}
	if v != nil {
		if err := json.Unmarshal(a.Result, v); err != nil {
			t.Fatalf("result %s: %v", a.Result, err)
		}
	}
}

// inputCommands returns the gestures a virtual phone received: the input
// commands it ran, and "touch KIND X Y" for each gesture its touchscreen
// decoded from events (adb's default path).
func inputCommands(d *emulator.Device) []string {
	var out []string
	for _, c := range d.Android().Commands() {
		if t := c.Touch; t != nil {
			out = append(out, fmt.Sprintf("touch %s %d %d", t.Kind, t.From.X, t.From.Y))
		}
		for _, argv := range c.Argv {
			if len(argv) > 0 && argv[0] == "input" {
				out = append(out, strings.Join(argv, " "))
			}
		}
	}
	return out
}

// waitOffline vanishes d and waits until the adb server lists it offline.
func (e *toolsEnv) waitOffline(t *testing.T, d *emulator.Device) {
	t.Helper()
	if err := d.Vanish(time.Hour); err != nil {
		t.Fatal(err)
	}
	e.adb.WaitState(d, "offline")
}

// registerTools builds the tool set from cfg and registers it in a new
// Registry.
func registerTools(tb testing.TB, cfg Config) (*Tools, *connector.Registry) {
	tb.Helper()
	tools, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	reg := connector.NewRegistry()
	if err := tools.Register(reg); err != nil {
		tb.Fatal(err)
	}
	return tools, reg
}
