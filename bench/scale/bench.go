package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest/adbserver"
	"github.com/adb-connector/adb-connector/bench/internal/benchtb"
	"github.com/adb-connector/adb-connector/bench/internal/procstat"
	"github.com/adb-connector/adb-connector/device/policy"
	"github.com/adb-connector/adb-connector/sshtunnel/sshdtest"
)

// settleIdle is the pause before each idle sample, after serve started or
// the phones attached: for the server's start-up work to end. It lets the
// server settle; nothing waits on it.
const settleIdle = 5 * time.Second

// downloadConns bounds the bench's HTTP connections to serve (downloads
// and /metrics), well under serve's per-address cap of 64.
const downloadConns = 32

// bench is one run: the adb servers, the phones, serve and the agents.
type bench struct {
	cfg      Config
	tb       *benchtb.TB
	tmp, bin string
	adbPorts []int
	sshd     *sshdtest.Server // nil without -ssh-servers
}

func (b *bench) run(ctx context.Context) (*Report, error) {
	cfg := b.cfg
	runStart := time.Now()
	rep := &Report{Config: cfg, CPUs: runtime.NumCPU(), Go: runtime.Version(), LoadavgStart: loadavg(),
		StrayADB: []int{}, Flags: []string{}}

	servers := make([]*adbserver.Server, cfg.Servers)
	args := []string{"--lease-grace", cfg.LeaseGrace.String(), "--config", filepath.Join(b.tmp, "config.yaml")}
	if cfg.SSHServers > 0 {
		sargs, err := b.startSSHD()
		if err != nil {
			return nil, err
		}
		args = append(args, sargs...)
	}
	for i := range servers {
		servers[i] = adbserver.Start(b.tb)
		b.adbPorts = append(b.adbPorts, servers[i].Port)
		ep := servers[i].Addr
		if i >= cfg.Servers-cfg.SSHServers {
			ep = b.sshd.URL(servers[i].Addr)
		}
		rep.Endpoints = append(rep.Endpoints, ep)
		args = append(args, "--adb", ep)
	}
	// The per-channel budget at its maximum: the connector's capacity is
	// measured, not the policy's 120 calls a minute.
	conf := fmt.Sprintf("policies:\n  default:\n    rate_per_minute: %d\n", policy.MaxRatePerMinute)
	if err := os.WriteFile(filepath.Join(b.tmp, "config.yaml"), []byte(conf), 0o600); err != nil {
		return nil, err
	}
	fmt.Printf("scale: %d virtual phones (profile %s) in their own process\n", cfg.Phones, cfg.Profile)
	plog, err := os.Create(filepath.Join(b.tmp, "phones.log"))
	if err != nil {
		return nil, err
	}
	b.tb.Cleanup(func() { plog.Close() })
	ph, err := startPhoneProcs(ctx, b.tb, b.bin, cfg, plog)
	if err != nil {
		return nil, err
	}

	slog, err := os.Create(filepath.Join(b.tmp, "serve.log"))
	if err != nil {
		return nil, err
	}
	b.tb.Cleanup(func() { slog.Close() })
	srv, err := benchtb.StartServe(ctx, benchtb.ServeOptions{Bin: b.bin, DataDir: filepath.Join(b.tmp, "data"), Log: slog, Args: args})
	if err != nil {
		return nil, err
	}
	b.tb.Cleanup(srv.Stop)
	srv.HTTP = &http.Client{Transport: &http.Transport{MaxConnsPerHost: downloadConns, MaxIdleConnsPerHost: downloadConns}}
	sm := &procstat.Sampler{Srv: srv, Pid: srv.Pid(), Start: time.Now()}

	fmt.Printf("scale: serve on %d adb servers, no phone attached; sampling\n", cfg.Servers)
	time.Sleep(settleIdle)
	if rep.Zero, err = sm.TakeWithTargets(ctx); err != nil {
		return nil, fmt.Errorf("sample with no phone: %w", err)
	}
	fmt.Printf("scale: adb connect %d phones over %d adb servers\n", cfg.Phones, cfg.Servers)
	if rep.PhonesPerServer, err = connect(ctx, servers, ph.addrs()); err != nil {
		return nil, err
	}
	serials, paths, err := waitAttached(ctx, srv, cfg.Phones)
	if err != nil {
		return nil, err
	}
	time.Sleep(settleIdle)
	if rep.Baseline, err = sm.TakeWithTargets(ctx); err != nil {
		return nil, fmt.Errorf("sample baseline: %w", err)
	}
	rep.PhonesRSSKB = ph.rssKB()
	metricsBefore, err := srv.Metrics(ctx)
	if err != nil {
		return nil, err
	}

	fmt.Printf("scale: %d channels on %d socket(s), pairing each to its phone\n", cfg.Phones, cfg.Sockets)
	clients, err := dial(ctx, srv, cfg.Sockets)
	if err != nil {
		return nil, err
	}
	closeClients := func() {
		for _, c := range clients {
			c.Close()
		}
	}
	defer closeClients()
	agents := make([]*agent, len(serials))
	for i, serial := range serials {
		if agents[i], err = bind(ctx, srv, clients[i%len(clients)], serial); err != nil {
			return nil, err
		}
		agents[i].path = paths[serial]
	}
	acting := pickActing(agents, cfg.Acting)

	se := procstat.NewSeries(rep.Baseline)
	sctx, stopSampling := context.WithCancel(ctx)
	defer stopSampling()
	go se.Run(sctx, sm, time.Second)
	cpu0 := b.cpu(srv.Pid(), ph)
	fmt.Printf("scale: %d agents acting (%d bound) for %s\n", len(acting), len(agents), cfg.Duration)
	l := newLoad(srv, cfg.Think)
	lctx, stopLoad := context.WithTimeout(ctx, cfg.Duration)
	defer stopLoad()
	loadStart := time.Now()
	rep.SetupSeconds = round3(loadStart.Sub(runStart).Seconds())
	lastAnswer := l.run(lctx, acting)
	elapsed := lastAnswer.Sub(loadStart)
	cpu1 := b.cpu(srv.Pid(), ph)
	if cfg.SSHServers > 0 {
		rep.ByPath = map[string][]OpStats{}
		for path, r := range l.byPath {
			rep.ByPath[path], _ = r.stats(elapsed)
		}
		if cfg.PathPhase > 0 {
			rep.PathPhases = b.pathPhases(ctx, srv, ph, acting)
		}
	}

	fmt.Println("scale: load stopped; the clients leave; settling for", cfg.Settle)
	closeClients()
	srv.HTTP.CloseIdleConnections()
	rep.Peak = se.Peak()
	time.Sleep(cfg.Settle) // the settle period is what is measured
	stopSampling()
	if rep.After, err = sm.TakeWithTargets(ctx); err != nil {
		return nil, fmt.Errorf("sample after: %w", err)
	}
	metricsAfter, err := srv.Metrics(ctx)
	if err != nil {
		return nil, err
	}
	samples, _ := se.Samples()
	rep.Samples = append(samples, rep.After)
	rep.ServerToolOutcomes, rep.ServerErrorsSent = procstat.ServerCounts(metricsBefore, metricsAfter)

	rep.Ops, rep.Errors = l.rec.stats(elapsed)
	for _, o := range rep.Ops {
		if o.Op != "download" {
			rep.Calls += o.Calls
		}
	}
	rep.LoadSeconds = round3(elapsed.Seconds())
	rep.CallsPerSecond = round3(float64(rep.Calls) / elapsed.Seconds())
	rep.CPU = CPU{ServeS: round3(cpu1.serve - cpu0.serve), PhonesS: round3(cpu1.phones - cpu0.phones),
		ADBServersS: round3(cpu1.adb - cpu0.adb), BenchS: round3(cpu1.bench - cpu0.bench), SSHDS: round3(cpu1.sshd - cpu0.sshd)}
	if rep.Calls > 0 {
		rep.CPU.ServeMSCall = round3(rep.CPU.ServeS * 1000 / float64(rep.Calls))
	}
	b.judge(rep)
	return rep, nil
}

// waitAttached waits (at most 60 s) until serve lists n phones as
// "device", and returns their serials and each one's path ("ssh" for an
// endpoint named USER@HOST:PORT, else "direct").
func waitAttached(ctx context.Context, srv *benchtb.Serve, n int) ([]string, map[string]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for {
		rows, err := srv.Devices(ctx)
		var serials []string
		paths := map[string]string{}
		for _, r := range rows {
			if r.State == "device" {
				serials = append(serials, r.Serial)
				paths[r.Serial] = pathDirect
				if strings.Contains(r.Endpoint, "@") {
					paths[r.Serial] = pathSSH
				}
			}
		}
		if err == nil && len(serials) == n {
			return serials, paths, nil
		}
		select {
		case <-ctx.Done():
			return nil, nil, fmt.Errorf("%d phones not all attached to serve after 60 s (%d are; %v)", n, len(serials), err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

type cpuTimes struct{ serve, phones, adb, bench, sshd float64 }

// cpu reads the CPU time used so far by serve, the phones' processes, the
// adb servers, sshd and this program.
func (b *bench) cpu(servePid int, ph phoneProcs) cpuTimes {
	var t cpuTimes
	t.serve, _ = procstat.CPUSeconds(servePid)
	for _, p := range ph {
		s, _ := procstat.CPUSeconds(p.Pid())
		t.phones += s
	}
	t.bench, _ = procstat.CPUSeconds(os.Getpid())
	if b.sshd != nil {
		for _, pid := range b.sshd.Pids() {
			s, _ := procstat.CPUSeconds(pid)
			t.sshd += s
		}
	}
	for _, port := range b.adbPorts {
		for _, pid := range adbserver.Processes(port) {
			s, _ := procstat.CPUSeconds(pid)
			t.adb += s
		}
	}
	return t
}
