package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/adb-connector/adb-connector/bench/internal/benchtb"
	"github.com/adb-connector/adb-connector/bench/internal/procstat"
	"github.com/adb-connector/adb-connector/sshtunnel/sshdtest"
)

// startSSHD starts the loopback sshd the SSH endpoints go through (stopped
// at the end) and returns serve's flags for it.
func (b *bench) startSSHD() ([]string, error) {
	dir := filepath.Join(b.tmp, "sshd")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	s, err := sshdtest.Start(sshdtest.Options{Dir: dir})
	if err != nil {
		return nil, err
	}
	b.sshd = s
	b.tb.Cleanup(s.Close)
	fmt.Printf("scale: sshd on %s for %d of the adb servers\n", s.Addr, b.cfg.SSHServers)
	return []string{"--ssh-key", s.KeyFile, "--ssh-known-hosts", s.KnownHosts}, nil
}

// phoneProcs are the emulator processes holding the phones.
type phoneProcs []*phones

// startPhoneProcs starts cfg.PhoneProcs emulator processes sharing
// cfg.Phones phones (stopped at the end, before the adb servers).
func startPhoneProcs(ctx context.Context, tb *benchtb.TB, bin string, cfg Config, logw io.Writer) (phoneProcs, error) {
	var out phoneProcs
	for i := range cfg.PhoneProcs {
		n := cfg.Phones / cfg.PhoneProcs
		if i < cfg.Phones%cfg.PhoneProcs {
			n++
		}
		if n == 0 {
			continue
		}
		p, err := startPhones(ctx, bin, n, cfg.Profile, cfg.Scenario, logw)
		if err != nil {
			return nil, err
		}
		// Cleanups run last first: serve stops, then the phones, then the
		// adb servers (started first, and killed even if serve restarted one).
		tb.Cleanup(p.stop)
		out = append(out, p)
	}
	return out, nil
}

func (ps phoneProcs) addrs() []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Addrs...)
	}
	return out
}

// rssKB is the phones' processes' RSS together.
func (ps phoneProcs) rssKB() int64 {
	var t int64
	for _, p := range ps {
		kb, _ := procstat.RSSKB(p.Pid())
		t += kb
	}
	return t
}

// pickActing returns n agents (all when n is 0), as many of each path as
// it can: the paths alternate.
func pickActing(agents []*agent, n int) []*agent {
	if n == 0 || n >= len(agents) {
		return agents
	}
	byPath := map[string][]*agent{}
	for _, a := range agents {
		byPath[a.path] = append(byPath[a.path], a)
	}
	var out []*agent
	for i := 0; len(out) < n; i++ {
		added := false
		for _, p := range []string{pathDirect, pathSSH} {
			if i < len(byPath[p]) && len(out) < n {
				out = append(out, byPath[p][i])
				added = true
			}
		}
		if !added {
			break
		}
	}
	return out
}

// PathPhase is a run with the phones of one path acting alone: serve's CPU
// per call on that path, and what the other processes spent.
type PathPhase struct {
	Path           string         `json:"path"`
	Agents         int            `json:"agents"`
	Seconds        float64        `json:"load_s"`
	Calls          int            `json:"calls"`
	CallsPerSecond float64        `json:"calls_per_s"`
	Ops            []OpStats      `json:"ops"`
	Errors         map[string]int `json:"errors_by_code"`
	// ServeMSCall is serve's CPU per tool call; SSHDMSCall sshd's;
	// ADBMSCall the adb servers'.
	ServeMSCall float64 `json:"serve_cpu_ms_per_call"`
	SSHDMSCall  float64 `json:"sshd_cpu_ms_per_call"`
	ADBMSCall   float64 `json:"adb_servers_cpu_ms_per_call"`
}

// pathPhases runs -path-phase with the direct agents of acting alone, then
// as many SSH ones alone.
func (b *bench) pathPhases(ctx context.Context, srv *benchtb.Serve, ph phoneProcs, acting []*agent) []PathPhase {
	byPath := map[string][]*agent{}
	for _, a := range acting {
		byPath[a.path] = append(byPath[a.path], a)
	}
	n := min(len(byPath[pathDirect]), len(byPath[pathSSH]))
	if n == 0 {
		return nil
	}
	var out []PathPhase
	for _, path := range []string{pathDirect, pathSSH} {
		fmt.Printf("scale: %d %s agents acting alone for %s\n", n, path, b.cfg.PathPhase)
		l := newLoad(srv, b.cfg.Think)
		c0 := b.cpu(srv.Pid(), ph)
		lctx, cancel := context.WithTimeout(ctx, b.cfg.PathPhase)
		start := time.Now()
		last := l.run(lctx, byPath[path][:n])
		cancel()
		c1 := b.cpu(srv.Pid(), ph)
		elapsed := last.Sub(start)
		pp := PathPhase{Path: path, Agents: n, Seconds: round3(elapsed.Seconds())}
		pp.Ops, pp.Errors = l.rec.stats(elapsed)
		for _, o := range pp.Ops {
			if o.Op != "download" {
				pp.Calls += o.Calls
			}
		}
		if pp.Calls > 0 {
			pp.CallsPerSecond = round3(float64(pp.Calls) / elapsed.Seconds())
			per := func(d float64) float64 { return round3(d * 1000 / float64(pp.Calls)) }
			pp.ServeMSCall, pp.SSHDMSCall, pp.ADBMSCall = per(c1.serve-c0.serve), per(c1.sshd-c0.sshd), per(c1.adb-c0.adb)
		}
		out = append(out, pp)
	}
	return out
}

// printPaths prints the per-path figures of the main load and the phases.
func printPaths(w io.Writer, rep *Report) {
	for _, path := range []string{pathDirect, pathSSH} {
		ops := rep.ByPath[path]
		if len(ops) == 0 {
			continue
		}
		fmt.Fprintf(w, "main load, %s phones:\n", path)
		for _, o := range ops {
			fmt.Fprintf(w, "  %-22s %8d %9.1f/s p50 %8.2f ms p99 %8.2f ms  %s\n", o.Op, o.Calls, o.PerSecond, o.P50MS, o.P99MS, codes(o.Errors))
		}
	}
	for _, p := range rep.PathPhases {
		fmt.Fprintf(w, "%s alone (%d agents, %.0f s): %d calls, %.1f calls/s; CPU per call: serve %.3f ms, sshd %.3f ms, adb servers %.3f ms; errors %s\n",
			p.Path, p.Agents, p.Seconds, p.Calls, p.CallsPerSecond, p.ServeMSCall, p.SSHDMSCall, p.ADBMSCall, codes(p.Errors))
		for _, o := range p.Ops {
			fmt.Fprintf(w, "  %-22s %8d %9.1f/s p50 %8.2f ms p99 %8.2f ms\n", o.Op, o.Calls, o.PerSecond, o.P50MS, o.P99MS)
		}
	}
}
