package main

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/adb-connector/adb-connector/internal/httplimit"
)

// httpFlags are serve's connection caps, read into an httplimit.Config by
// config. The timeouts have no flags: httplimit's defaults fit every
// endpoint (see the README's Configuration section).
type httpFlags struct {
	maxConns, perIP *int
	envErr          error
}

func registerHTTPFlags(fs *flag.FlagSet) *httpFlags {
	f := &httpFlags{}
	maxDef, err := envInt("ADB_CONNECTOR_MAX_CONNS")
	f.envErr = err
	perIPDef, err := envInt("ADB_CONNECTOR_MAX_CONNS_PER_IP")
	if f.envErr == nil {
		f.envErr = err
	}
	f.maxConns = fs.Int("max-conns", maxDef, "open HTTP connections in total, /ws included; idle ones are closed first at the cap (env ADB_CONNECTOR_MAX_CONNS; 0 = half of RLIMIT_NOFILE, at most 4096)")
	f.perIP = fs.Int("max-conns-per-ip", perIPDef, "open HTTP connections from one remote address (env ADB_CONNECTOR_MAX_CONNS_PER_IP; 0 = half of --max-conns, at most 64)")
	return f
}

func envInt(key string) (int, error) {
	v := envOr(key, "0")
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%s %q: want a number", key, v)
	}
	return n, nil
}

// config checks the flags against the process's soft RLIMIT_NOFILE nofile
// and returns the caps with defaults applied. An explicit --max-conns must
// leave httplimit.ReserveFDs descriptors for the database, adb and files:
// at the cap the server then still has descriptors to accept, evict and
// answer /health with.
func (f *httpFlags) config(nofile uint64) (httplimit.Config, error) {
	if f.envErr != nil {
		return httplimit.Config{}, f.envErr
	}
	if *f.maxConns < 0 {
		return httplimit.Config{}, fmt.Errorf("--max-conns %d: want 0 (derived from RLIMIT_NOFILE) or more", *f.maxConns)
	}
	if *f.perIP < 0 {
		return httplimit.Config{}, fmt.Errorf("--max-conns-per-ip %d: want 0 (derived from --max-conns) or more", *f.perIP)
	}
	if limit := int64(nofile) - httplimit.ReserveFDs; *f.maxConns > 0 && int64(*f.maxConns) > limit {
		return httplimit.Config{}, fmt.Errorf("--max-conns %d: RLIMIT_NOFILE is %d, so at most %d (%d descriptors stay for the database, adb and files); raise the limit (systemd LimitNOFILE=) or lower --max-conns",
			*f.maxConns, nofile, max(limit, 0), httplimit.ReserveFDs)
	}
	cfg := httplimit.Config{MaxConns: *f.maxConns}
	if *f.maxConns == 0 {
		cfg.MaxConns = httplimit.DefaultMaxConns(nofile)
	}
	if *f.perIP > cfg.MaxConns {
		return httplimit.Config{}, fmt.Errorf("--max-conns-per-ip %d exceeds --max-conns %d", *f.perIP, cfg.MaxConns)
	}
	cfg.MaxConnsPerIP = *f.perIP
	return cfg.WithDefaults(), nil
}
