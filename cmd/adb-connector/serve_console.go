package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/device"
	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/console"
	"github.com/adb-connector/adb-connector/device/policy"
	"github.com/adb-connector/adb-connector/device/tools"
	"github.com/adb-connector/adb-connector/store"
)

// The operator console (package device/console) on a listener of its own,
// off unless --console-listen is given, loopback unless the operator says
// otherwise, behind an operator token that is not the xAgent key.

const consoleTokenEnv = "ADB_CONNECTOR_CONSOLE_TOKEN"

// minConsoleTokenLen bounds a guessable token out.
const minConsoleTokenLen = 16

// consoleOptions are serve's console settings.
type consoleOptions struct {
	Listen      string
	AllowRemote bool
	TokenFile   string
	Token       string // from the token file or ADB_CONNECTOR_CONSOLE_TOKEN; never a flag
	// onListen, when set (tests only), receives the console's bound
	// address before serve reports ready.
	onListen func(addr string)
}

type consoleFlags struct {
	listen, tokenFile *string
	allowRemote       *bool
}

func registerConsoleFlags(fs *flag.FlagSet) consoleFlags {
	return consoleFlags{
		listen:      fs.String("console-listen", envOr("ADB_CONNECTOR_CONSOLE_LISTEN", ""), "serve the operator console on this address, e.g. 127.0.0.1:8081 (env ADB_CONNECTOR_CONSOLE_LISTEN; default off)"),
		allowRemote: fs.Bool("console-allow-remote", false, "let --console-listen be a non-loopback address (put TLS in front: the console speaks plain HTTP)"),
		tokenFile:   fs.String("console-token-file", envOr("ADB_CONNECTOR_CONSOLE_TOKEN_FILE", ""), "file holding the console's operator token (env ADB_CONNECTOR_CONSOLE_TOKEN_FILE; or put the token itself in "+consoleTokenEnv+")"),
	}
}

// config checks the console settings; apiKey is the xAgent key, which the
// console token must not be.
func (f consoleFlags) config(apiKey string) (consoleOptions, error) {
	o := consoleOptions{Listen: *f.listen, AllowRemote: *f.allowRemote, TokenFile: *f.tokenFile}
	if o.Listen == "" {
		return o, nil
	}
	if err := checkConsoleAddr(o.Listen, o.AllowRemote); err != nil {
		return o, err
	}
	tok, err := loadSecret("console token", "--console-token-file (ADB_CONNECTOR_CONSOLE_TOKEN_FILE)", consoleTokenEnv, o.TokenFile, os.Getenv(consoleTokenEnv))
	if err != nil {
		return o, err
	}
	switch {
	case tok == "":
		return o, fmt.Errorf("--console-listen needs an operator token: --console-token-file FILE or %s", consoleTokenEnv)
	case len(tok) < minConsoleTokenLen:
		return o, fmt.Errorf("console token: at least %d characters, e.g. openssl rand -hex 32", minConsoleTokenLen)
	case apiKey != "" && tok == apiKey:
		return o, errors.New("console token: must not be the xAgent API key (the console acts as the operator)")
	}
	o.Token = tok
	return o, nil
}

// checkConsoleAddr accepts HOST:PORT on a loopback address (127.0.0.0/8,
// ::1, localhost), any other only with allowRemote. An empty host means
// every interface, so it is remote.
func checkConsoleAddr(addr string, allowRemote bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--console-listen %q: want HOST:PORT", addr)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return fmt.Errorf("--console-listen %q: bad port", addr)
	}
	if allowRemote {
		return nil
	}
	ip := net.ParseIP(host)
	if strings.EqualFold(host, "localhost") || ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("--console-listen %q is not a loopback address: the console hands out phones, so it listens on 127.0.0.1 unless you add --console-allow-remote (and put TLS in front)", addr)
}

// operatorParts are what the console acts on, set by wireDevices.
type operatorParts struct {
	svc      *device.Service
	admin    *device.AdminService
	db       *store.DB
	holder   *policy.Holder
	reloader *policy.Reloader
	opts     deviceOptions
}

// startConsole serves the console on ln until stop, which waits at most
// drain for the requests in flight.
func startConsole(cfg serveConfig, w *serveWiring, ln net.Listener) (stop func(), err error) {
	if w.Operator == nil {
		return nil, errors.New("console: the device layer is not wired")
	}
	log := w.Log.With("component", "console")
	ops := &consoleOps{operatorParts: w.Operator, settings: consoleSettings(cfg), now: time.Now, battery: map[string]batteryRead{}}
	h, err := console.New(console.Config{Ops: ops, Token: cfg.Console.Token, Logger: log})
	if err != nil {
		return nil, err
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("console stopped", "err", err)
		}
	}()
	log.Info("console listening", "addr", ln.Addr().String())
	if cfg.Console.onListen != nil {
		cfg.Console.onListen(ln.Addr().String())
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), cfg.DrainTime)
			defer cancel()
			if err := hs.Shutdown(ctx); err != nil {
				hs.Close()
			}
			<-done
		})
	}, nil
}

// consoleSettings are serve's settings the policy page shows: no secret,
// a key or token is "set" or "not set".
func consoleSettings(cfg serveConfig) []console.Setting {
	set := func(v string) string {
		if v == "" {
			return "not set"
		}
		return "set"
	}
	d := cfg.Device
	endpoints := d.Endpoints.list
	if len(endpoints) == 0 {
		endpoints = []string{adb.DefaultEndpoint}
	}
	return []console.Setting{
		{Name: "listen", Value: cfg.Listen},
		{Name: "console listen", Value: cfg.Console.Listen},
		{Name: "data dir", Value: cfg.DataDir},
		{Name: "API key", Value: set(cfg.APIKey)},
		{Name: "lease grace", Value: cfg.LeaseGrace.String()},
		{Name: "log level", Value: cfg.LogLevel.String()},
		{Name: "drain timeout", Value: cfg.DrainTime.String()},
		{Name: "adb servers", Value: strings.Join(endpoints, ", ")},
		{Name: "virtual devices", Value: fmt.Sprintf("%d (%s, %s)", d.Virtual.N, d.Virtual.Scenario, d.Virtual.Profile)},
		{Name: "file TTL", Value: d.FileTTL.String()},
		{Name: "file cap", Value: strconv.FormatInt(d.FileCap, 10) + " bytes"},
		{Name: "audit retention", Value: d.AuditRetention.String()},
		{Name: "max conns", Value: fmt.Sprintf("%d (%d per IP)", cfg.HTTP.MaxConns, cfg.HTTP.MaxConnsPerIP)},
		{Name: "config file", Value: dash(d.ConfigPath)},
		{Name: "config poll", Value: d.ConfigPoll.String()},
	}
}

// batteryTTL is how long a battery level is reused: the devices page
// refreshes every 2 s, a battery does not move that fast.
const batteryTTL = 30 * time.Second

type batteryRead struct {
	level int // -1: unreadable
	at    time.Time
}

// consoleOps is console.Ops over the device Service, its admin handler
// (the admin socket's very operations) and the audit trail.
type consoleOps struct {
	*operatorParts
	settings []console.Setting
	now      func() time.Time

	mu      sync.Mutex
	battery map[string]batteryRead
}

var _ console.Ops = (*consoleOps)(nil)

func (o *consoleOps) Devices(ctx context.Context) ([]console.Device, error) {
	rows, err := o.admin.Devices(ctx)
	if err != nil {
		return nil, err
	}
	holds := o.svc.Holds()
	out := make([]console.Device, len(rows))
	var g errgroup.Group
	g.SetLimit(8)
	for i, r := range rows {
		key := adb.DeviceKey(r.Endpoint, r.Serial)
		d := console.Device{DeviceRow: r, Key: key, Hint: device.SerialHintOfKey(key), Battery: -1}
		if h, ok := holds[key]; ok {
			d.Channel, d.Since, d.LeaseEnds, d.LeaseReason = h.ChannelID, h.Since, h.LeaseEnds, h.LeaseReason
		}
		if st, err := o.svc.HelperStatus(key); err == nil && adb.State(r.State) == adb.StateDevice {
			d.Helper = st.Summary()
		}
		out[i] = d
		if adb.State(r.State) == adb.StateDevice {
			g.Go(func() error { out[i].Battery = o.batteryOf(ctx, key); return nil })
		}
	}
	g.Wait()
	return out, nil
}

// batteryOf is the device's battery level, read at most every batteryTTL.
func (o *consoleOps) batteryOf(ctx context.Context, key string) int {
	now := o.now()
	o.mu.Lock()
	b, ok := o.battery[key]
	o.mu.Unlock()
	if ok && now.Sub(b.at) < batteryTTL {
		return b.level
	}
	level, err := o.svc.Battery(ctx, key)
	if err != nil {
		level = -1
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for k, v := range o.battery { // devices come and go
		if now.Sub(v.at) >= batteryTTL {
			delete(o.battery, k)
		}
	}
	o.battery[key] = batteryRead{level, now}
	return level
}

func (o *consoleOps) Pair(ctx context.Context, dev string, ttl time.Duration) (string, error) {
	return checked(dev, func() (string, error) { return o.admin.Pair(ctx, dev, ttl) })
}

func (o *consoleOps) Approve(ctx context.Context, code, dev string) (string, error) {
	if err := checkOperand(dev); err != nil {
		return "", err
	}
	if len(code) > admin.MaxCodeLen {
		return "", &admin.Error{Code: admin.CodeInvalidArgument, Message: "invalid argument: code too long"}
	}
	return o.admin.Approve(ctx, code, dev)
}

func (o *consoleOps) Unbind(ctx context.Context, dev string) (string, error) {
	return checked(dev, func() (string, error) { return o.admin.Unbind(ctx, dev) })
}

func (o *consoleOps) ResetNow(ctx context.Context, dev string) (string, error) {
	return checked(dev, func() (string, error) { return o.admin.ResetNow(ctx, dev) })
}

func (o *consoleOps) ClearReset(ctx context.Context, dev string) (string, error) {
	return checked(dev, func() (string, error) { return o.admin.ClearReset(ctx, dev) })
}

// checked runs op once checkOperand admits dev.
func checked(dev string, op func() (string, error)) (string, error) {
	if err := checkOperand(dev); err != nil {
		return "", err
	}
	return op()
}

// checkOperand holds a device named by a form to the admin socket's bounds
// (admin.DecodeRequest).
func checkOperand(dev string) error {
	if dev == "" || len(dev) > admin.MaxSerialLen {
		return &admin.Error{Code: admin.CodeInvalidArgument, Message: "invalid argument: no such device"}
	}
	return nil
}

func (o *consoleOps) Requests(ctx context.Context) ([]console.Request, error) {
	ss, err := o.svc.PendingRequests(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]console.Request, len(ss))
	for i, s := range ss {
		out[i] = console.Request{Code: s.Code, ChannelID: s.ChannelID, ExpiresAt: s.ExpiresAt}
	}
	return out, nil
}

func (o *consoleOps) Thumbnail(ctx context.Context, dev string) ([]byte, error) {
	if err := checkOperand(dev); err != nil {
		return nil, err
	}
	return o.svc.Thumbnail(ctx, dev)
}

func (o *consoleOps) Audit(ctx context.Context, f console.AuditFilter) ([]console.AuditRow, error) {
	q, err := auditQuery(o.now(), auditFilter{since: f.Since, until: f.Until, device: f.Device, channel: f.Channel,
		tool: f.Tool, outcome: f.Outcome, limit: f.Limit})
	if err != nil {
		// The CLI's words name its flags; the page's fields have the same names.
		return nil, &admin.Error{Code: admin.CodeInvalidArgument, Message: strings.ReplaceAll(err.Error(), "--", "")}
	}
	q.AfterID = f.AfterID
	recs, err := tools.QueryAudit(ctx, o.db.Read, q)
	if err != nil {
		return nil, err
	}
	out := make([]console.AuditRow, len(recs))
	for i, r := range recs {
		out[i] = console.AuditRow{ID: r.ID, At: r.At, ChannelID: r.ChannelID, Device: r.DeviceHint, ToolID: r.ToolID,
			ToolCallID: r.ToolCallID, Args: string(r.Args), Outcome: r.Outcome, Latency: r.Latency, Replayed: r.Replayed}
	}
	return out, nil
}

func (o *consoleOps) Policy(context.Context) console.Policy {
	p := console.Policy{Settings: o.settings, ConfigPath: o.opts.ConfigPath}
	if y, err := o.holder.Current().YAML(); err == nil {
		p.YAML = y
	} else {
		p.Error = err.Error()
	}
	if o.reloader != nil && o.opts.ConfigPath != "" {
		st := o.reloader.Status()
		p.AppliedAt = st.AppliedAt
		if st.Error != "" {
			p.Error, p.ErrorAt = st.Error, st.ErrorAt
		}
	}
	return p
}
