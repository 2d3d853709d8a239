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

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/device/console"
	"github.com/adb-connector/adb-connector/device/operator"
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
		listen:      fs.String("console-listen", "", "serve the operator console on this `ADDRESS`, e.g. 127.0.0.1:8081 (default off)"),
		allowRemote: fs.Bool("console-allow-remote", false, "let --console-listen be a non-loopback address (put TLS in front: the console speaks plain HTTP)"),
		tokenFile:   fs.String("console-token-file", "", "`FILE` holding the console's operator token (or put the token itself in "+consoleTokenEnv+")"),
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

// startConsole serves the console on ln until stop, which waits at most
// drain for the requests in flight.
func startConsole(cfg serveConfig, w *serveWiring, ln net.Listener) (stop func(), err error) {
	if w.Operator == nil {
		return nil, errors.New("console: the device layer is not wired")
	}
	log := w.Log.With("component", "console")
	h, err := console.New(console.Config{Ops: w.Operator, Token: cfg.Console.Token, Logger: log})
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
func consoleSettings(cfg serveConfig) []operator.Setting {
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
	return []operator.Setting{
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
