// Command scale is the scale benchmark (a benchmark, not a test): many
// virtual phones on several adb servers, one agent channel per phone, all
// acting at once for a bounded time; what the connector sustains and what
// each phone costs it.
//
// It builds adb-connector, starts -servers private Debian adb servers on
// loopback (adb/adbtest/adbserver) and the -phones virtual phones in a
// separate process (`adb-connector emulator`, so the connector's RSS holds
// none of their memory), then the real `serve` reading every adb server
// (--adb per server; device keys are endpoint/serial). It measures serve:
//
//   - with no phone attached (the zero baseline), then after `adb connect`
//     of the phones, spread evenly over the adb servers, with every phone
//     attached and no client (the baseline): RSS per phone is
//     (baseline - zero) / phones, the goal being at most 2 MB;
//   - under load: -sockets WebSockets (default one, as xAgent carries every
//     user on one socket) with one channel per phone, each paired to its
//     phone through the admin socket, each agent in a closed loop for
//     -duration (observe, screenshot, UI elements, tap, swipe, press_key,
//     device_status; screenshots downloaded): calls/s overall and per
//     tool, p50/p90/p99 per tool, errors by code, and the peak RSS
//     ((peak - baseline) / phones is the cost of a busy phone);
//   - after: the clients gone, -settle later (longer than -lease-grace, so
//     their channels and bindings are released, and than adb's
//     DefaultStreamIdle, so each phone's shell session and touch stream
//     have closed unused): goroutines and FDs must be back to the
//     baseline, but for a small margin and the SQLite reader pool
//     (procstat.MaxDBFDs).
//
// With -ssh-servers K, the last K adb servers are reached through SSH
// (--adb ssh://USER@127.0.0.1:PORT/127.0.0.1:ADBPORT) to one loopback sshd
// the benchmark starts (Debian's /usr/sbin/sshd, its own host key and an
// authorized key made for the run; sshtunnel/sshdtest), one SSH connection
// per adb server as per lab host. With -acting N only N channels act
// (balanced over the two paths), the others stay bound and idle. After the
// main load, two phases of -path-phase each make the same number of
// channels act on direct phones only, then on SSH phones only: serve's CPU
// per call on each path, and sshd's, are the SSH path's cost against the
// direct one in the same run.
//
// The per-channel budget of 120 calls a minute is lifted (a config file
// with rate_per_minute at its maximum) so the connector's capacity, not
// the policy, is measured; the phones use the `instant` timing profile by
// default (-profile), so the connector, not the phones' sleeps, is
// measured. The load stops at -duration; every process is stopped at the
// end (no adb server left: any is killed and reported). It prints a table
// and writes bench/results/scale-<UTC time>.json.
//
//	go run ./bench/scale                 # 64 phones, 2 adb servers, 5 minutes
//	go run ./bench/scale -short          # 16 phones, 30 s
//	go run ./bench/scale -phones 256 -phone-procs 4 -servers 8 -ssh-servers 4 -acting 128
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/bench/internal/benchtb"
	"github.com/adb-connector/adb-connector/bench/internal/procstat"
	"github.com/adb-connector/adb-connector/emulator/android"
)

func main() {
	failed, err := run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
	if failed {
		os.Exit(1)
	}
}

// Config is the run's shape; it is part of the report.
type Config struct {
	Phones         int           `json:"phones"`
	PhoneProcs     int           `json:"phone_processes"`
	Servers        int           `json:"adb_servers"`
	SSHServers     int           `json:"ssh_adb_servers"`
	Acting         int           `json:"acting_channels"`
	PathPhase      time.Duration `json:"path_phase"`
	Sockets        int           `json:"sockets"`
	Duration       time.Duration `json:"duration"`
	Think          time.Duration `json:"think"`
	Settle         time.Duration `json:"settle"`
	LeaseGrace     time.Duration `json:"lease_grace"`
	Profile        string        `json:"profile"`
	Scenario       string        `json:"scenario"`
	LeakGoroutines int64         `json:"leak_margin_goroutines"`
	LeakFDs        int64         `json:"leak_margin_fds"`
	Short          bool          `json:"short"`
}

// rssGoalKB is the goal for the connector's RSS per attached phone.
const rssGoalKB = 2048

func parseFlags() (cfg Config, out, bin string, strict, keep bool, err error) {
	fs := flag.CommandLine
	fs.IntVar(&cfg.Phones, "phones", 64, "virtual phones (one channel each)")
	fs.IntVar(&cfg.PhoneProcs, "phone-procs", 1, "processes the phones are spread over (`adb-connector emulator` each)")
	fs.IntVar(&cfg.Servers, "servers", 2, "private adb servers; the phones are spread evenly over them")
	fs.IntVar(&cfg.SSHServers, "ssh-servers", 0, "how many of the adb servers serve reaches through SSH (a loopback sshd the benchmark starts)")
	fs.IntVar(&cfg.Acting, "acting", 0, "channels acting (balanced over direct and SSH phones); the others stay bound and idle (0: all)")
	fs.DurationVar(&cfg.PathPhase, "path-phase", 30*time.Second, "with -ssh-servers: after the load, this long with only direct phones acting, then only SSH ones (0: skip)")
	fs.IntVar(&cfg.Sockets, "sockets", 1, "WebSockets carrying the channels (xAgent carries every user on one)")
	fs.DurationVar(&cfg.Duration, "duration", 5*time.Minute, "how long the agents act")
	fs.DurationVar(&cfg.Think, "think", 0, "pause of each agent between its calls (0: a closed loop, the next call once the last is answered)")
	fs.DurationVar(&cfg.Settle, "settle", adb.DefaultStreamIdle+15*time.Second,
		"wait after the clients leave before the last sample (longer than -lease-grace, and than adb.DefaultStreamIdle: the phones' open streams close unused)")
	fs.DurationVar(&cfg.LeaseGrace, "lease-grace", 5*time.Second, "serve --lease-grace: short, so the closed sockets' channels and bindings are released before the last sample")
	fs.StringVar(&cfg.Profile, "profile", "instant", "the phones' timing profile: "+strings.Join(android.ProfileNames(), ", "))
	fs.StringVar(&cfg.Scenario, "scenario", "launcher", "the phones' scenario (the mix taps the launcher's wallpaper)")
	fs.Int64Var(&cfg.LeakGoroutines, "leak-goroutines", 10, "settled goroutines may exceed the baseline by this much")
	fs.Int64Var(&cfg.LeakFDs, "leak-fds", 4, "settled FDs (besides the database files) may exceed the baseline by this much")
	fs.BoolVar(&cfg.Short, "short", false, "a quick check: 16 phones, 30 s (flags given explicitly still win)")
	fs.StringVar(&out, "out", "", "write the JSON report here (default bench/results/scale-<time>.json; - for stdout)")
	fs.StringVar(&bin, "bin", "", "adb-connector binary (default: go build ./cmd/adb-connector into a temp dir)")
	fs.BoolVar(&strict, "strict", false, "exit 1 when a goal is missed, a call failed or a process was left behind")
	fs.BoolVar(&keep, "keep", false, "keep the temp dir (serve's and the phones' logs, serve's data) and print its path")
	flag.Parse()
	if cfg.Short {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		for name, v := range map[string]string{"phones": "16", "duration": "30s"} {
			if !set[name] {
				fs.Set(name, v)
			}
		}
	}
	switch {
	case cfg.Phones < 1 || cfg.Servers < 1 || cfg.Sockets < 1 || cfg.PhoneProcs < 1:
		err = errors.New("-phones, -phone-procs, -servers and -sockets must be at least 1")
	case cfg.SSHServers < 0 || cfg.SSHServers > cfg.Servers:
		err = errors.New("-ssh-servers: 0 to -servers")
	case cfg.Acting < 0 || cfg.Acting > cfg.Phones || cfg.PathPhase < 0:
		err = errors.New("-acting: 0 to -phones; -path-phase not negative")
	case cfg.Phones > 256:
		err = errors.New("-phones: at most 256")
	case cfg.Duration <= 0 || cfg.Settle <= 0 || cfg.LeaseGrace <= 0 || cfg.Think < 0:
		err = errors.New("-duration, -settle and -lease-grace must be positive, -think not negative")
	case cfg.Settle <= cfg.LeaseGrace:
		err = errors.New("-settle must be longer than -lease-grace, or the last sample still holds the closed sockets' channels")
	}
	if err == nil {
		_, err = android.ProfileByName(cfg.Profile)
	}
	return cfg, out, bin, strict, keep, err
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
	started := time.Now().UTC()
	if out == "" {
		out = filepath.Join(root, "bench", "results", "scale-"+started.Format("20060102T150405Z")+".json")
	}
	// A hard bound on the whole run: setup, load, settle and teardown.
	// Past it the program exits, and its children die with it (they are
	// started with a parent-death signal).
	limit := cfg.Duration + 2*cfg.PathPhase + cfg.Settle + 10*time.Minute
	watchdog := time.AfterFunc(limit, func() {
		fmt.Fprintf(os.Stderr, "scale: still running after %s; exiting (children are killed with it)\n", limit)
		os.Exit(2)
	})
	defer watchdog.Stop()

	tb := benchtb.New("scale")
	defer tb.Close()
	defer tb.Recover(&err)
	tmp, err := os.MkdirTemp("", "scale-")
	if err != nil {
		return false, err
	}
	if keep {
		fmt.Fprintln(os.Stderr, "scale: keeping", tmp)
	} else {
		tb.Cleanup(func() { os.RemoveAll(tmp) })
	}
	if bin == "" {
		fmt.Fprintln(os.Stderr, "scale: building adb-connector")
		if bin, err = benchtb.Build(tmp); err != nil {
			return false, err
		}
	}
	b := &bench{cfg: cfg, tb: tb, tmp: tmp, bin: bin}
	rep, err := b.run(context.Background())
	if err != nil {
		return false, err
	}
	rep.Time = started
	// Stop everything now, to check that nothing is left.
	tb.Close()
	for _, port := range b.adbPorts {
		if pids := benchtb.StrayADB(port); len(pids) > 0 {
			rep.StrayADB = append(rep.StrayADB, pids...)
			rep.Flags = append(rep.Flags, fmt.Sprintf("adb processes left on port %d: %v (killed)", port, pids))
		}
	}
	rep.LoadavgEnd = loadavg()
	printReport(os.Stdout, rep)
	js, _ := json.MarshalIndent(rep, "", "  ")
	js = append(js, '\n')
	if out == "-" {
		_, err = os.Stdout.Write(js)
	} else {
		err = os.WriteFile(out, js, 0o644)
		fmt.Println("report:", out)
	}
	return strict && len(rep.Flags) > 0, err
}

func loadavg() string {
	l, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(l))
}

// Report is what -out receives.
type Report struct {
	Time   time.Time `json:"time"`
	Config Config    `json:"config"`
	CPUs   int       `json:"cpus"`
	Go     string    `json:"go"`
	// LoadavgStart and LoadavgEnd are /proc/loadavg before the phones start and
	// after the run: the machine is shared, and its other load slows
	// every figure here.
	LoadavgStart string `json:"loadavg_start"`
	LoadavgEnd   string `json:"loadavg_end"`
	// PhonesPerServer is how many phones each adb server carries.
	PhonesPerServer []int `json:"phones_per_server"`
	// Endpoints are serve's --adb values, in the servers' order.
	Endpoints []string `json:"endpoints"`
	// SetupSeconds is from the start to the first call (phones started,
	// attached, every channel bound).
	SetupSeconds float64 `json:"setup_s"`
	// ByPath are the main load's figures per tool on each path ("direct",
	// "ssh"), the same calls as Ops.
	ByPath map[string][]OpStats `json:"ops_by_path,omitempty"`
	// PathPhases are the runs with one path acting at a time.
	PathPhases []PathPhase `json:"path_phases,omitempty"`

	// Calls are the tool calls answered during the load (downloads not
	// included), over LoadSeconds: from the first call to the last answer.
	Calls          int       `json:"calls"`
	LoadSeconds    float64   `json:"load_s"`
	CallsPerSecond float64   `json:"calls_per_s"`
	Ops            []OpStats `json:"ops"`
	// Errors counts the calls (downloads included) that did not end ok.
	Errors map[string]int `json:"errors_by_code"`
	// ServerToolOutcomes is adb_connector_tool_invocations_total by
	// outcome over the load; ServerErrorsSent adb_connector_ws_errors_sent_total
	// by code: the server's side of the same counts.
	ServerToolOutcomes map[string]float64 `json:"server_tool_outcomes"`
	ServerErrorsSent   map[string]float64 `json:"server_errors_sent"`

	// Serve's figures: Zero with no phone attached, Baseline with every
	// phone attached and no client, Peak the maximum of each figure
	// under load, After the clients gone and -settle later. After's heap
	// in use still holds the load's garbage unless a GC ran meanwhile (Go
	// forces one every 2 minutes on an idle server): -settle 135s shows
	// it collected.
	Zero     procstat.Sample   `json:"zero_phones"`
	Baseline procstat.Sample   `json:"baseline"`
	Peak     procstat.Sample   `json:"peak"`
	After    procstat.Sample   `json:"after"`
	Samples  []procstat.Sample `json:"samples"`
	PerPhone PerPhone          `json:"per_phone"`
	CPU      CPU               `json:"cpu"`
	// PhonesRSSKB is the emulator process's RSS with every phone attached
	// (the memory the connector's figures exclude).
	PhonesRSSKB int64 `json:"phones_process_rss_kb"`
	Leak        Leak  `json:"leak"`
	// StrayADB are the adb processes still on the adb servers' ports once
	// everything was stopped (killed then).
	StrayADB []int `json:"stray_adb_pids"`
	// Flags lists every missed goal and failure (-strict fails on them).
	Flags []string `json:"flags"`
}

// PerPhone is what one phone costs serve, in kB.
type PerPhone struct {
	// RSSKB is (Baseline - Zero) RSS / phones: an attached, idle phone.
	RSSKB     float64 `json:"rss_kb"`
	RSSGoalKB int     `json:"rss_goal_kb"`
	RSSMet    bool    `json:"rss_goal_met"`
	// HeapKB is the same for the Go heap in use.
	HeapKB float64 `json:"heap_inuse_kb"`
	// PeakRSSKB is (Peak - Baseline) RSS / phones: a phone under load.
	PeakRSSKB float64 `json:"peak_minus_baseline_rss_kb"`
	// Goroutines and FDs are (Baseline - Zero) / phones.
	Goroutines float64 `json:"goroutines"`
	FDs        float64 `json:"fds"`
}

// CPU is the CPU time (user + system, s) each process used during the
// load, and serve's per call.
type CPU struct {
	ServeS      float64 `json:"serve_s"`
	PhonesS     float64 `json:"phones_s"`
	ADBServersS float64 `json:"adb_servers_s"`
	// SSHDS is the loopback sshd's CPU (its listener and one process per
	// SSH connection): the lab hosts' side of the SSH path.
	SSHDS       float64 `json:"sshd_s"`
	BenchS      float64 `json:"bench_client_s"`
	ServeMSCall float64 `json:"serve_ms_per_call"`
}

// Leak compares the settled figures with the baseline. FDs leaves out the
// database files, whose reader pool may keep more open after a load than
// before it (DBFDs, judged against the pools' bound instead).
type Leak struct {
	Goroutines int64 `json:"goroutines_delta"`
	FDs        int64 `json:"fds_delta_besides_db"`
	DBFDs      int64 `json:"db_fds_delta"`
	RSSKB      int64 `json:"rss_kb_delta"`
	Back       bool  `json:"back_to_baseline"`
}
