package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/adb-connector/adb-connector/bench/internal/benchtb"
)

// Sample is one reading of the server process: from /proc (what the kernel
// says) and from /metrics (what the Go runtime and the server say).
type Sample struct {
	AtSeconds float64 `json:"at_s"` // since the load started (negative: before)
	RSSKB     int64   `json:"rss_kb"`
	// HeapInuseKB is go_memstats_heap_inuse_bytes: the live part of the
	// RSS (the Go runtime returns freed heap to the OS only slowly).
	HeapInuseKB int64 `json:"heap_inuse_kb"`
	FDs         int64 `json:"fds"`
	Goroutines  int64 `json:"goroutines"`
	// OpenFDs is process_open_fds from /metrics (it should match FDs).
	OpenFDs int64 `json:"process_open_fds"`
	// WSConns and HTTPConns are the server's own gauges of open sockets.
	WSConns   int64 `json:"ws_connections"`
	HTTPConns int64 `json:"http_connections"`
	// FDTargets counts the open FDs by what they point at (a file's path,
	// "socket", "pipe", "anon_inode:[eventpoll]", ...): in the before and
	// after samples only, to tell a leak from a pool that grew.
	FDTargets map[string]int `json:"fd_targets,omitempty"`
}

// sampler reads the serve process's figures.
type sampler struct {
	srv   *benchtb.Serve
	pid   int
	start time.Time
}

// take reads /proc/PID/status VmRSS, counts /proc/PID/fd and scrapes
// /metrics.
func (s *sampler) take(ctx context.Context) (Sample, error) {
	smp := Sample{AtSeconds: time.Since(s.start).Seconds()}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.pid))
	if err != nil {
		return smp, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			smp.RSSKB, _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", s.pid))
	if err != nil {
		return smp, err
	}
	smp.FDs = int64(len(fds))
	mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	m, err := s.srv.Metrics(mctx)
	if err != nil {
		return smp, err
	}
	v := gauges(m)
	smp.Goroutines, smp.OpenFDs = int64(v["go_goroutines"]), int64(v["process_open_fds"])
	smp.HeapInuseKB = int64(v["go_memstats_heap_inuse_bytes"]) / 1024
	smp.WSConns, smp.HTTPConns = int64(v["adb_connector_ws_connections"]), int64(v["adb_connector_http_connections"])
	return smp, nil
}

// fdTargets reads where each of the process's FDs points, and their
// number. Read after take, it counts the connection of take's /metrics
// scrape (idle in the client's pool) in the before and after samples
// alike, where take's own count may see it or not.
func (s *sampler) fdTargets() (map[string]int, int64) {
	dir := fmt.Sprintf("/proc/%d/fd", s.pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, 0
	}
	out := map[string]int{}
	var n int64
	for _, e := range ents {
		t, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			continue // closed meanwhile
		}
		if k, _, ok := strings.Cut(t, ":["); ok && (k == "socket" || k == "pipe") {
			t = k
		}
		out[t]++
		n++
	}
	return out, n
}

// gauges reads the unlabelled samples of a Prometheus text exposition.
func gauges(text string) map[string]float64 {
	out := map[string]float64{}
	for _, line := range strings.Split(text, "\n") {
		if line == "" || line[0] == '#' || strings.ContainsRune(line, '{') {
			continue
		}
		name, val, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
			out[name] = f
		}
	}
	return out
}

// counterByLabel sums the samples of metric by the value of label, e.g.
// adb_connector_tool_invocations_total by outcome.
func counterByLabel(text, metric, label string) map[string]float64 {
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, metric+"{")
		if !ok {
			continue
		}
		labels, val, ok := strings.Cut(rest, "} ")
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			continue
		}
		for _, kv := range strings.Split(labels, ",") {
			if k, v, ok := strings.Cut(kv, "="); ok && k == label {
				out[strings.Trim(v, `"`)] += f
			}
		}
	}
	return out
}

// series samples every interval until ctx ends and keeps every reading
// and the peak of each figure. Safe for concurrent use.
type series struct {
	mu      sync.Mutex
	samples []Sample
	peak    Sample
	errs    int
}

func (se *series) run(ctx context.Context, s *sampler, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		smp, err := s.take(ctx)
		se.mu.Lock()
		if err != nil {
			se.errs++
		} else {
			se.samples = append(se.samples, smp)
			se.peak = peakOf(se.peak, smp)
		}
		se.mu.Unlock()
	}
}

// peakOf is the field-wise maximum (AtSeconds: of the RSS peak).
func peakOf(a, b Sample) Sample {
	if b.RSSKB > a.RSSKB {
		a.RSSKB, a.AtSeconds = b.RSSKB, b.AtSeconds
	}
	a.HeapInuseKB = max(a.HeapInuseKB, b.HeapInuseKB)
	a.FDs, a.Goroutines, a.OpenFDs = max(a.FDs, b.FDs), max(a.Goroutines, b.Goroutines), max(a.OpenFDs, b.OpenFDs)
	a.WSConns, a.HTTPConns = max(a.WSConns, b.WSConns), max(a.HTTPConns, b.HTTPConns)
	return a
}

func printSamples(w io.Writer, before, peak, after Sample) {
	fmt.Fprintf(w, "%-28s %10s %10s %10s %12s\n", "server process", "before", "peak", "after", "after-before")
	row := func(name string, f func(Sample) int64) {
		fmt.Fprintf(w, "%-28s %10d %10d %10d %+12d\n", name, f(before), f(peak), f(after), f(after)-f(before))
	}
	row("RSS (kB, VmRSS)", func(s Sample) int64 { return s.RSSKB })
	row("Go heap in use (kB)", func(s Sample) int64 { return s.HeapInuseKB })
	row("goroutines (go_goroutines)", func(s Sample) int64 { return s.Goroutines })
	row("FDs (/proc/PID/fd)", func(s Sample) int64 { return s.FDs })
	row("process_open_fds", func(s Sample) int64 { return s.OpenFDs })
	row("ws connections", func(s Sample) int64 { return s.WSConns })
	row("http connections", func(s Sample) int64 { return s.HTTPConns })
	for k, n := range after.FDTargets {
		if d := n - before.FDTargets[k]; d != 0 {
			fmt.Fprintf(w, "  FDs to %-50s %+d (%d -> %d)\n", k, d, before.FDTargets[k], n)
		}
	}
	for k, n := range before.FDTargets {
		if _, ok := after.FDTargets[k]; !ok {
			fmt.Fprintf(w, "  FDs to %-50s %+d (%d -> 0)\n", k, -n, n)
		}
	}
}
