// Command soak holds the real server under load, floods and faults for a
// bounded time and reports whether it came back to where it started.
//
// It builds and starts `adb-connector serve --virtual-devices N` on
// loopback against a private adb server (adb/adbtest), opens many /ws
// sockets with several channels each, pairs channels to the phones through
// the admin socket, then for -duration drives:
//
//   - steady tool calls on the bound channels (status, screenshot + download,
//     tap, long press), a status probe on every channel, and bindings moved
//     from channel to channel (auth.logout, pair again);
//   - floods: bursts over a channel's 16 calls in flight and over its
//     120 calls a minute (rate_limited), ids over 256 bytes and broken JSON
//     (invalid_packet), frames over 1 MiB (close 1009), idle HTTP
//     connections opened and abandoned, sockets dropped mid-call and
//     restored (the dropped tool_call_id is replayed);
//   - faults: `adb -P PORT kill-server` on the adb server serve uses, which
//     serve must restart and re-attach its phones to: every bound channel
//     must see "connected" again and answer a call.
//
// It samples the serve process (VmRSS, /proc/PID/fd, go_goroutines and
// process_open_fds from /metrics) before the load, throughout, and after
// the load has stopped and the server has settled; prints a table and the
// outcome counts per scenario and error code; writes the report as JSON
// (default bench/results/soak-<time>.json); and flags a leak when the
// settled goroutines or FDs exceed the starting ones by more than a small
// margin (exit status 1 with -strict, as for unexpected outcomes and phones
// that did not come back).
//
//	go run ./bench/soak                 # 3 minutes
//	go run ./bench/soak -short          # about 40 s, a smoke run
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/bench/internal/benchtb"
	"github.com/adb-connector/adb-connector/bench/internal/procstat"
	"github.com/adb-connector/adb-connector/connector/xagenttest"
)

func main() {
	failed, err := run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	if failed {
		os.Exit(1)
	}
}

// Config is the run's shape; it is part of the report.
type Config struct {
	Duration       time.Duration `json:"duration"`
	Settle         time.Duration `json:"settle"`
	LeaseGrace     time.Duration `json:"lease_grace"`
	Sockets        int           `json:"sockets"`
	ChansPerSocket int           `json:"channels_per_socket"`
	Phones         int           `json:"phones"`
	Kills          int           `json:"adb_kills"`
	Rate           float64       `json:"steady_calls_per_second_per_phone"`
	ProbeEvery     time.Duration `json:"probe_every"`
	RebindEvery    time.Duration `json:"rebind_every"`
	FloodEvery     time.Duration `json:"flood_every"`
	DropEvery      time.Duration `json:"drop_every"`
	BurstInflight  int           `json:"burst_inflight_calls"`
	BurstUnbound   int           `json:"burst_unbound_calls"`
	IdleConns      int           `json:"idle_http_conns"`
	LeakGoroutines int64         `json:"leak_margin_goroutines"`
	LeakFDs        int64         `json:"leak_margin_fds"`
	Short          bool          `json:"short"`
}

func parseFlags() (cfg Config, out, bin string, strict, keep bool, err error) {
	fs := flag.CommandLine
	fs.DurationVar(&cfg.Duration, "duration", 3*time.Minute, "how long the load runs")
	fs.DurationVar(&cfg.Settle, "settle", 10*time.Second, "wait after the load stops before the last sample (longer than -lease-grace)")
	fs.DurationVar(&cfg.LeaseGrace, "lease-grace", 5*time.Second, "serve --lease-grace: short, so the closed sockets' channels and bindings are released before the last sample")
	fs.IntVar(&cfg.Sockets, "sockets", 20, "load /ws sockets (each with -channels channels)")
	fs.IntVar(&cfg.ChansPerSocket, "channels", 3, "channels per load socket")
	fs.IntVar(&cfg.Phones, "phones", 6, "serve --virtual-devices: one takes the bursts, one the socket drops, the rest the steady load (at least 3)")
	fs.IntVar(&cfg.Kills, "kills", 2, "adb server kills, evenly spread over the run")
	fs.Float64Var(&cfg.Rate, "rate", 1, "steady tool calls per second per steady phone (the limit is 2 a second per channel)")
	fs.DurationVar(&cfg.ProbeEvery, "probe-every", 4*time.Second, "interval of the status probe on each load channel")
	fs.DurationVar(&cfg.RebindEvery, "rebind-every", 40*time.Second, "interval at which each steady phone moves to another channel (pairing allows 5 a minute per phone)")
	fs.DurationVar(&cfg.FloodEvery, "flood-every", 20*time.Second, "interval of each flood (bursts, oversized packets, idle connections)")
	fs.DurationVar(&cfg.DropEvery, "drop-every", 5*time.Second, "interval of the socket drops mid-call")
	fs.IntVar(&cfg.BurstInflight, "burst-inflight", 40, "long presses sent at once on one bound channel (16 may be in flight)")
	fs.IntVar(&cfg.BurstUnbound, "burst-unbound", 100, "quick calls sent at once on an unbound channel (120 a minute allowed)")
	fs.IntVar(&cfg.IdleConns, "idle-conns", 60, "idle HTTP connections opened per flood")
	fs.Int64Var(&cfg.LeakGoroutines, "leak-goroutines", 10, "settled goroutines may exceed the starting ones by this much")
	fs.Int64Var(&cfg.LeakFDs, "leak-fds", 4, "settled FDs may exceed the starting ones by this much")
	fs.BoolVar(&cfg.Short, "short", false, "a quick check: 20 s, 5 sockets x 2 channels, 4 phones, one adb kill (flags given explicitly still win)")
	fs.StringVar(&out, "out", "", "write the JSON report here (default bench/results/soak-<time>.json; - for stdout)")
	fs.StringVar(&bin, "bin", "", "adb-connector binary (default: go build ./cmd/adb-connector into a temp dir)")
	fs.BoolVar(&strict, "strict", false, "exit 1 on a leak, an unexpected outcome or a phone that did not come back")
	fs.BoolVar(&keep, "keep", false, "keep the temp dir (serve's log and data) and print its path")
	flag.Parse()
	if cfg.Short {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		short := map[string]string{"duration": "20s", "settle": "8s", "sockets": "5", "channels": "2", "phones": "4", "kills": "1",
			"rebind-every": "8s", "flood-every": "6s", "drop-every": "3s", "idle-conns": "30"}
		for name, v := range short {
			if !set[name] {
				fs.Set(name, v)
			}
		}
	}
	switch {
	case cfg.Duration <= 0 || cfg.Settle <= 0 || cfg.LeaseGrace <= 0:
		err = errors.New("-duration, -settle and -lease-grace must be positive")
	case cfg.Settle <= cfg.LeaseGrace:
		err = errors.New("-settle must be longer than -lease-grace, or the last sample still holds the closed sockets' channels")
	case cfg.Phones < 3 || cfg.Sockets < 1 || cfg.ChansPerSocket < 1:
		err = errors.New("-phones must be at least 3, -sockets and -channels at least 1")
	case cfg.Sockets*cfg.ChansPerSocket < cfg.Phones-2:
		err = errors.New("-sockets x -channels must give each steady phone a channel")
	case cfg.Rate <= 0 || cfg.ProbeEvery <= 0 || cfg.RebindEvery <= 0 || cfg.FloodEvery <= 0 || cfg.DropEvery <= 0:
		err = errors.New("-rate and the intervals must be positive")
	case cfg.Kills < 0 || cfg.BurstInflight < 0 || cfg.BurstUnbound < 0 || cfg.IdleConns < 0:
		err = errors.New("counts must not be negative")
	}
	return cfg, out, bin, strict, keep, err
}

// Report is what -out receives.
type Report struct {
	Time    time.Time `json:"time"`
	Config  Config    `json:"config"`
	CPUs    int       `json:"cpus"`
	Go      string    `json:"go"`
	Loadavg string    `json:"loadavg,omitempty"`
	// Before: serve up, phones attached, no client. Peak: the maximum of
	// each figure while the load ran. After: the load stopped, every
	// client gone, -settle later.
	Before  procstat.Sample   `json:"before"`
	Peak    procstat.Sample   `json:"peak"`
	After   procstat.Sample   `json:"after"`
	Samples []procstat.Sample `json:"samples"`
	// Outcomes are the client's counts per scenario and outcome.
	Outcomes   []OutcomeRow `json:"outcomes"`
	Unexpected int          `json:"unexpected"`
	Faults     []Fault      `json:"faults"`
	// ServerToolOutcomes is adb_connector_tool_invocations_total by
	// outcome over the run; ServerErrorsSent adb_connector_ws_errors_sent_total
	// by code: the server's side of the same counts.
	ServerToolOutcomes map[string]float64 `json:"server_tool_outcomes"`
	ServerErrorsSent   map[string]float64 `json:"server_errors_sent"`
	ProgressPushes     int64              `json:"progress_pushes"`
	SchemaViolations   int                `json:"schema_violations"`
	// ADBPort is the private adb server's port; StrayADB the adb
	// processes still on it once serve had stopped (killed then).
	ADBPort  int   `json:"adb_port"`
	StrayADB []int `json:"stray_adb_pids"`
	Leak     Leak  `json:"leak"`
	// Flags lists everything -strict fails on.
	Flags []string `json:"flags"`
}

// Leak compares the settled figures with the starting ones. FDs leaves
// out the database files, whose reader pool may keep more open after a
// load than before it (DBFDs, judged against the pools' bound instead).
type Leak struct {
	Goroutines int64 `json:"goroutines_delta"`
	FDs        int64 `json:"fds_delta_besides_db"`
	DBFDs      int64 `json:"db_fds_delta"`
	RSSKB      int64 `json:"rss_kb_delta"`
	Flagged    bool  `json:"flagged"`
}

// soak is one run: the server, its adb server and phones, and the clients.
type soak struct {
	cfg     Config
	srv     *benchtb.Serve
	env     *adbtest.Env
	serials []string
	tally   *tally
	board   *board
	faults  *faults
	seq     atomic.Uint64
	wg      sync.WaitGroup // every load goroutine

	mu      sync.Mutex
	clients []*xagenttest.Client // to close at the end and check for schema violations
}

func run() (failed bool, err error) {
	cfg, out, bin, strict, keep, err := parseFlags()
	if err != nil {
		return false, err
	}
	root, err := benchtb.ModuleRoot()
	if err != nil {
		return false, err
	}
	if out == "" {
		out = filepath.Join(root, "bench", "results", "soak-"+time.Now().UTC().Format("20060102T150405Z")+".json")
	}

	tb := benchtb.New("soak")
	defer tb.Close()
	defer tb.Recover(&err)
	tmp, err := os.MkdirTemp("", "soak-")
	if err != nil {
		return false, err
	}
	if keep {
		fmt.Fprintln(os.Stderr, "soak: keeping", tmp)
	} else {
		tb.Cleanup(func() { os.RemoveAll(tmp) })
	}
	if bin == "" {
		fmt.Fprintln(os.Stderr, "soak: building adb-connector")
		if bin, err = benchtb.Build(tmp); err != nil {
			return false, err
		}
	}
	// A private adb server with no phone of its own; serve attaches its
	// virtual phones to it, and starts it again after each kill. Its
	// cleanup (registered first, so it runs after serve's) also stops the
	// daemon serve restarts.
	env := adbtest.Start(tb, adbtest.Options{Devices: -1})
	logf, err := os.Create(filepath.Join(tmp, "serve.log"))
	if err != nil {
		return false, err
	}
	tb.Cleanup(func() { logf.Close() })
	ctx := context.Background()
	srv, err := benchtb.StartServe(ctx, benchtb.ServeOptions{Bin: bin, DataDir: filepath.Join(tmp, "data"), Log: logf,
		Args: []string{"--adb", env.ServerAddr, "--virtual-devices", strconv.Itoa(cfg.Phones), "--lease-grace", cfg.LeaseGrace.String()}})
	if err != nil {
		return false, err
	}
	tb.Cleanup(srv.Stop)

	s := &soak{cfg: cfg, srv: srv, env: env, tally: newTally(), board: newBoard(), faults: &faults{}}
	if err := s.waitPhones(ctx); err != nil {
		return false, err
	}
	rep, err := s.soak(ctx)
	if err != nil {
		return false, fmt.Errorf("%w (serve log: %s)", err, logf.Name())
	}

	// Stop serve and the adb server now, to check that nothing is left.
	tb.Close()
	rep.ADBPort, rep.StrayADB = env.Port, benchtb.StrayADB(env.Port)
	if len(rep.StrayADB) > 0 {
		rep.Flags = append(rep.Flags, fmt.Sprintf("adb processes left on port %d: %v (killed)", env.Port, rep.StrayADB))
	}
	if l, err := os.ReadFile("/proc/loadavg"); err == nil {
		rep.Loadavg = strings.TrimSpace(string(l))
	}
	printReport(os.Stdout, rep)
	b, _ := json.MarshalIndent(rep, "", "  ")
	b = append(b, '\n')
	if out == "-" {
		_, err = os.Stdout.Write(b)
	} else {
		err = os.WriteFile(out, b, 0o644)
		fmt.Println("report:", out)
	}
	return strict && len(rep.Flags) > 0, err
}

// waitPhones waits (at most 60 s) until serve's adb server lists every
// virtual phone as "device", and keeps their serials (the adb server names
// a phone connected over TCP by its address).
func (s *soak) waitPhones(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for {
		rows, err := s.srv.Devices(ctx)
		var serials []string
		for _, r := range rows {
			if r.State == "device" {
				serials = append(serials, r.Serial)
			}
		}
		if err == nil && len(serials) == s.cfg.Phones {
			slices.Sort(serials)
			s.serials = serials
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("serve's %d virtual phones not all attached after 60 s (%d are; %v)", s.cfg.Phones, len(serials), err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
