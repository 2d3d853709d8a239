package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/card"
	"github.com/adb-connector/adb-connector/device/operator"
	"github.com/adb-connector/adb-connector/internal/httplimit"
	"github.com/adb-connector/adb-connector/skills"
	"github.com/adb-connector/adb-connector/store"
)

func init() {
	register("serve", "serve xAgent: control plane, /ws data plane, device tools", runServe)
}

// serveConfig is the parsed configuration of `serve` (flags, else env, else default).
type serveConfig struct {
	Listen     string
	DataDir    string
	APIKey     string // from ADB_CONNECTOR_API_KEY or the key file; never a flag
	KeyFile    string // --api-key-file, "" when the key is from env or unset
	LeaseGrace time.Duration
	LogLevel   slog.Level
	DrainTime  time.Duration
	// HTTP caps connections and sets the timeouts; Logger is set by serve.
	HTTP httplimit.Config
	// Device is the device layer's configuration (adb servers, virtual
	// phones, files).
	Device deviceOptions
	// Console is the operator console's (off when its Listen is empty).
	Console consoleOptions
}

// serveWiring is what the device layer adds to the server.
type serveWiring struct {
	Card     *connector.CardConfig
	Registry *connector.Registry
	Profile  connector.Profile // nil = channels stay "created"
	DB       *store.DB
	Log      *slog.Logger
	DataDir  string
	// Mount runs once the Server exists and before it serves: mount handlers
	// (srv.Handle), register collectors (srv.Registry()), start what pushes
	// to srv.
	Mount []func(srv *connector.Server) error
	// Stop runs after the server stopped, before the DB closes (reverse order).
	Stop []func()
	// Settings are serve's settings the console's policy page shows.
	Settings []operator.Setting
	// Operator is the operator API the admin socket serves and the console
	// calls, set by Mount.
	Operator *operator.API
}

// envOr is the value of the environment variable key, or def when unset
// or empty (for the operator commands' flags; serve's settings take their
// variables through applyEnv).
func envOr(key, def string) string {
	if v, ok := os.LookupEnv(key); ok && v != "" {
		return v
	}
	return def
}

// parseServeFlags is parseServeArgs with no help to print (tests).
func parseServeFlags(args []string, stderr io.Writer) (serveConfig, error) {
	return parseServeArgs(args, io.Discard, stderr)
}

// parseServeArgs parses serve's command line, then its environment and
// config file (registerServeFlags); --help goes to stdout.
func parseServeArgs(args []string, stdout, stderr io.Writer) (serveConfig, error) {
	fs := newFlags("serve", stdout, "serve [flags]",
		"Serves xAgent: the Card, Skill, health and metrics over HTTP, the /ws data plane, the device tools,",
		"the admin socket for the operator commands and, with --console-listen, the operator console.",
		"Every flag is also an environment variable and a config file key, shown in brackets.")
	config := registerServeFlags(fs)
	pos, err := parseArgs(fs, args, stderr)
	if err != nil {
		return serveConfig{}, err
	}
	if err := wantArgs(fs, stderr, pos); err != nil {
		return serveConfig{}, err
	}
	return config()
}

// apiKeyError is a key file or env that cannot be used. serve stops on it;
// doctor reports it as a failed check instead.
type apiKeyError struct{ err error }

func (e *apiKeyError) Error() string { return e.err.Error() }
func (e *apiKeyError) Unwrap() error { return e.err }

// serveFlagVals are serve's flags once registered, read once parsed.
type serveFlagVals struct {
	listen, dataDir, keyFile, level *string
	grace, drain                    *time.Duration
	hf                              *httpFlags
	dev                             *deviceOptions
	cf                              configFlags
	console                         consoleFlags
}

// registerServeFlagsOnly adds serve's flags to fs: every serve setting,
// each also an environment variable and a config key (settings.go).
func registerServeFlagsOnly(fs *flag.FlagSet) *serveFlagVals {
	return &serveFlagVals{
		listen:  fs.String("listen", "127.0.0.1:8080", "HTTP listen `ADDRESS` (host:port)"),
		dataDir: fs.String("data-dir", defaultDataDir, "data directory `DIR`, created 0700"),
		keyFile: fs.String("api-key-file", "", "`FILE` holding the system API key (or put the key itself in ADB_CONNECTOR_API_KEY)"),
		grace:   fs.Duration("lease-grace", time.Hour, "how long a connector_id and its channels survive with no xAgent connected (a `DURATION`, e.g. 1h)"),
		level:   fs.String("log-level", "info", "`LEVEL`: debug, info, warn or error"),
		drain:   fs.Duration("drain-timeout", 15*time.Second, "on SIGTERM, how long in-flight requests may finish (a `DURATION`)"),
		hf:      registerHTTPFlags(fs),
		dev:     registerDeviceFlags(fs),
		cf:      registerConfigFlags(fs),
		console: registerConsoleFlags(fs),
	}
}

// registerServeFlags adds serve's flags to fs (so doctor checks the very
// configuration serve would run with); once fs is parsed, config applies
// the environment and the config file to the flags not given, and returns
// the configuration. A bad API key setting is an *apiKeyError, returned
// with the rest of the configuration.
func registerServeFlags(fs *flag.FlagSet) (config func() (serveConfig, error)) {
	var v *serveFlagVals
	names := registerSettings(fs, func(fs *flag.FlagSet) { v = registerServeFlagsOnly(fs) })
	return func() (serveConfig, error) {
		given := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
		if err := applyEnv(fs, names, given); err != nil {
			return serveConfig{}, err
		}
		// The config file fills what neither a flag nor its variable set,
		// so it is read before the values are.
		dev := v.dev
		var err error
		if dev.Policy, err = applyConfigFile(fs, names, given, *v.cf.path); err != nil {
			return serveConfig{}, err
		}
		dev.ConfigPath, dev.ConfigPoll = *v.cf.path, *v.cf.poll
		cfg := serveConfig{Listen: *v.listen, DataDir: *v.dataDir, KeyFile: *v.keyFile, LeaseGrace: *v.grace, DrainTime: *v.drain, Device: *dev}
		if err := cfg.LogLevel.UnmarshalText([]byte(*v.level)); err != nil {
			return serveConfig{}, fmt.Errorf("--log-level %q: want debug, info, warn or error", *v.level)
		}
		if cfg.LeaseGrace <= 0 {
			return serveConfig{}, errors.New("--lease-grace must be positive")
		}
		if cfg.HTTP, err = v.hf.config(httplimit.FileLimit()); err != nil {
			return serveConfig{}, err
		}
		if cfg.APIKey, err = loadAPIKey(*v.keyFile, os.Getenv("ADB_CONNECTOR_API_KEY")); err != nil {
			return cfg, &apiKeyError{err}
		}
		if cfg.Console, err = v.console.config(cfg.APIKey); err != nil {
			return serveConfig{}, err
		}
		return cfg, nil
	}
}

// loadAPIKey returns the key from file (when set) or env. A named file that
// is missing, unreadable or empty is an error: never a silent open server.
func loadAPIKey(file, env string) (string, error) {
	return loadSecret("API key", "--api-key-file (ADB_CONNECTOR_API_KEY_FILE)", "ADB_CONNECTOR_API_KEY", file, env)
}

// loadSecret returns a secret (what) from file, named by fileFlag, or from
// the environment variable envName (its value env); both set is an error.
func loadSecret(what, fileFlag, envName, file, env string) (string, error) {
	if file != "" && env != "" {
		return "", fmt.Errorf("set either %s or %s, not both", fileFlag, envName)
	}
	if file == "" {
		return strings.TrimSpace(env), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("%s file: %w", what, err) // the error names the path, never the content
	}
	key := strings.TrimSpace(string(b))
	if key == "" {
		return "", fmt.Errorf("%s file %s is empty", what, file)
	}
	if strings.ContainsAny(key, "\r\n\t ") {
		return "", fmt.Errorf("%s file %s must hold one %s on one line", what, file, strings.TrimPrefix(what, "API "))
	}
	return key, nil
}

func runServe(args []string, stdout, stderr io.Writer) error {
	cfg, err := parseServeArgs(args, stdout, stderr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	return serve(ctx, cfg, log, nil)
}

// serve runs the server until ctx ends, then drains and stops. ready, when
// non-nil, receives the bound address.
func serve(ctx context.Context, cfg serveConfig, log *slog.Logger, ready chan<- string) error {
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	// First of all: nothing in the data dir is read or written while
	// another serve holds it.
	unlock, err := lockDataDir(cfg.DataDir)
	if err != nil {
		return err
	}
	defer unlock()
	db, err := store.Open(ctx, cfg.DataDir)
	if err != nil {
		return err
	}
	defer db.Close()
	// Listen before wiring: a port already in use fails here, before adb
	// servers and virtual devices are started for nothing.
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	defer ln.Close()
	var consoleLn net.Listener
	if cfg.Console.Listen != "" {
		if consoleLn, err = net.Listen("tcp", cfg.Console.Listen); err != nil {
			return fmt.Errorf("console listen: %w", err)
		}
		defer consoleLn.Close()
	}

	cardCfg := card.CardConfig()
	w := &serveWiring{Card: &cardCfg, Registry: connector.NewRegistry(), DB: db, Log: log, DataDir: cfg.DataDir,
		Settings: consoleSettings(cfg)}
	defer func() {
		for i := len(w.Stop) - 1; i >= 0; i-- {
			w.Stop[i]()
		}
	}()
	if err := wireDevices(ctx, cfg.Device, w); err != nil {
		return err
	}
	srv, err := newConnectorServer(ctx, cfg, w)
	if err != nil {
		return err
	}
	serving := false
	defer func() {
		if !serving { // a start-up error after New: stop its lease timers before the DB closes
			sctx, cancel := context.WithTimeout(context.Background(), cfg.DrainTime)
			defer cancel()
			srv.Shutdown(sctx)
		}
	}()
	for _, m := range w.Mount {
		if err := m(srv); err != nil {
			return err
		}
	}
	if consoleLn != nil {
		stopConsole, err := startConsole(cfg, w, consoleLn)
		if err != nil {
			return err
		}
		// Deferred last, so it runs first: before the device layer and the
		// database it reads stop.
		defer stopConsole()
	}

	// Without caps and timeouts anyone who can reach the port, key or not,
	// could hold connections until the process runs out of descriptors and
	// /health, adb tracking and the file janitor fail with them.
	hcfg := cfg.HTTP
	hcfg.Logger = log.With("component", "http")
	lim := httplimit.NewListener(ln, hcfg)
	for _, c := range lim.Collectors() {
		if err := srv.Registry().Register(c); err != nil {
			return fmt.Errorf("metrics: %w", err)
		}
	}
	hs := lim.Server(srv)
	errc := make(chan error, 1)
	serving = true
	go func() { errc <- hs.Serve(lim) }()
	hc := lim.Config()
	log.Info("listening", "addr", ln.Addr().String(), "data_dir", cfg.DataDir, "card", card.CardID,
		"api_key_required", cfg.APIKey != "", "lease_grace", cfg.LeaseGrace.String(),
		"max_conns", hc.MaxConns, "max_conns_per_ip", hc.MaxConnsPerIP)
	if ready != nil {
		ready <- ln.Addr().String()
	}
	select {
	case <-ctx.Done():
	case err := <-errc:
		serving = false // the deferred Shutdown stops the connector
		return fmt.Errorf("serve: %w", err)
	}
	log.Info("shutting down", "drain_timeout", cfg.DrainTime.String())
	sctx, cancel := context.WithTimeout(context.Background(), cfg.DrainTime)
	defer cancel()
	herr := make(chan error, 1)
	go func() { herr <- hs.Shutdown(sctx) }()
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("drain incomplete; in-flight requests canceled", "err", err)
	}
	<-herr
	<-errc
	log.Info("stopped")
	return nil
}

// newConnectorServer builds the connector.Server from the serve config and
// the wiring (card, registry, profile). A bad Card is an error here.
func newConnectorServer(ctx context.Context, cfg serveConfig, w *serveWiring) (*connector.Server, error) {
	skill, _ := skills.Primary()
	return connector.New(ctx, connector.Config{
		Card:       *w.Card,
		Registry:   w.Registry,
		Profile:    w.Profile,
		DB:         w.DB,
		APIKey:     cfg.APIKey,
		Skill:      skill,
		LeaseGrace: cfg.LeaseGrace,
		Logger:     w.Log,
	})
}
