package main

import (
	"flag"
	"fmt"

	"github.com/adb-connector/adb-connector/internal/httplimit"
)

// httpFlags are serve's connection caps, read into an httplimit.Config by
// config. The timeouts have no flags: httplimit's defaults fit every
// endpoint (see the README's Configuration section).
type httpFlags struct {
	maxConns, perIP *int
}

func registerHTTPFlags(fs *flag.FlagSet) *httpFlags {
	return &httpFlags{
		maxConns: fs.Int("max-conns", 0, "open HTTP connections in total, /ws included; idle ones are closed first at the cap (a `NUMBER`; 0 = half of RLIMIT_NOFILE, at most 4096)"),
		perIP:    fs.Int("max-conns-per-ip", 0, "open HTTP connections from one remote address (a `NUMBER`; 0 = half of --max-conns, at most 64)"),
	}
}

// config checks the flags against the process's soft RLIMIT_NOFILE nofile
// and returns the caps with defaults applied. An explicit --max-conns must
// leave httplimit.ReserveFDs descriptors for the database, adb and files:
// at the cap the server then still has descriptors to accept, evict and
// answer /health with.
func (f *httpFlags) config(nofile uint64) (httplimit.Config, error) {
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
