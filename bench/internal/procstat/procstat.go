// Package procstat reads a running `adb-connector serve` child's figures for
// the bench programs that watch it under load (bench/soak, bench/scale):
// what the kernel says (/proc/PID: VmRSS, open FDs and what they point at)
// and what the server says (/metrics: go_goroutines, process_open_fds,
// heap, socket gauges, counters by label), sampled over a run with the
// peak of each figure kept.
package procstat

import (
	"bufio"
	"context"
	"errors"
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
	AtSeconds float64 `json:"at_s"` // since the Sampler's Start (negative: before)
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
	// "socket", "pipe", "anon_inode:[eventpoll]", ...): filled by callers
	// in their before and after samples only, to tell a leak from a pool
	// that grew.
	FDTargets map[string]int `json:"fd_targets,omitempty"`
}

// Sampler reads the serve process's figures.
type Sampler struct {
	Srv   *benchtb.Serve
	Pid   int
	Start time.Time
}

// Take reads /proc/PID/status VmRSS, counts /proc/PID/fd and scrapes
// /metrics (10 s deadline).
func (s *Sampler) Take(ctx context.Context) (Sample, error) {
	smp := Sample{AtSeconds: time.Since(s.Start).Seconds()}
	var err error
	if smp.RSSKB, err = RSSKB(s.Pid); err != nil {
		return smp, err
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", s.Pid))
	if err != nil {
		return smp, err
	}
	smp.FDs = int64(len(fds))
	mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	m, err := s.Srv.Metrics(mctx)
	if err != nil {
		return smp, err
	}
	v := Gauges(m)
	smp.Goroutines, smp.OpenFDs = int64(v["go_goroutines"]), int64(v["process_open_fds"])
	smp.HeapInuseKB = int64(v["go_memstats_heap_inuse_bytes"]) / 1024
	smp.WSConns, smp.HTTPConns = int64(v["adb_connector_ws_connections"]), int64(v["adb_connector_http_connections"])
	return smp, nil
}

// TakeWithTargets is Take plus FDTargets, whose count replaces FDs: read
// after Take, it counts the connection of Take's /metrics scrape (idle in
// the client's pool) in the before and after samples alike, where Take's
// own count may see it or not.
func (s *Sampler) TakeWithTargets(ctx context.Context) (Sample, error) {
	smp, err := s.Take(ctx)
	if err != nil {
		return smp, err
	}
	smp.FDTargets, smp.FDs = FDTargets(s.Pid)
	return smp, nil
}

// RSSKB reads VmRSS (kB) from /proc/PID/status.
func RSSKB(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no VmRSS", pid)
}

// FDTargets reads where each of pid's FDs points, and their number.
func FDTargets(pid int) (map[string]int, int64) {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
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

// MaxDBFDs bounds the FDs on the database files: the store keeps one
// writer and up to four readers, each with the database and its WAL open,
// and the reader pool keeps some idle after a load. Growth up to it is the
// pool warming, not a leak.
const MaxDBFDs = 5 * 2

// DBFDs counts the FDs on the SQLite files (adb-connector.db, -wal).
func DBFDs(targets map[string]int) int64 {
	var n int64
	for path, k := range targets {
		if strings.HasPrefix(filepath.Base(path), "adb-connector.db") {
			n += int64(k)
		}
	}
	return n
}

// Gauges reads the unlabelled samples of a Prometheus text exposition.
func Gauges(text string) map[string]float64 {
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

// CounterByLabel sums the samples of metric by the value of label, e.g.
// adb_connector_tool_invocations_total by outcome.
func CounterByLabel(text, metric, label string) map[string]float64 {
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

// Delta is after - before per key, leaving out the keys that did not move.
func Delta(before, after map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// ServerCounts returns what the server counted between two /metrics
// scrapes: tool outcomes (adb_connector_tool_invocations_total by outcome)
// and protocol errors sent (adb_connector_ws_errors_sent_total by code),
// the server's side of a benchmark's own tally.
func ServerCounts(before, after string) (toolOutcomes, errorsSent map[string]float64) {
	delta := func(metric, label string) map[string]float64 {
		return Delta(CounterByLabel(before, metric, label), CounterByLabel(after, metric, label))
	}
	return delta("adb_connector_tool_invocations_total", "outcome"), delta("adb_connector_ws_errors_sent_total", "code")
}

// Series samples every interval until ctx ends and keeps every reading
// and the peak of each figure. Safe for concurrent use.
type Series struct {
	mu      sync.Mutex
	samples []Sample
	peak    Sample
	errs    int
}

// NewSeries starts the peak at from (the before sample).
func NewSeries(from Sample) *Series { return &Series{peak: from} }

// Run samples with s every interval until ctx ends.
func (se *Series) Run(ctx context.Context, s *Sampler, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		smp, err := s.Take(ctx)
		se.mu.Lock()
		if err != nil {
			se.errs++
		} else {
			se.samples = append(se.samples, smp)
			se.peak = PeakOf(se.peak, smp)
		}
		se.mu.Unlock()
	}
}

// Peak returns the field-wise maximum so far.
func (se *Series) Peak() Sample {
	se.mu.Lock()
	defer se.mu.Unlock()
	return se.peak
}

// Samples returns every reading so far, and the number of failed ones.
func (se *Series) Samples() ([]Sample, int) {
	se.mu.Lock()
	defer se.mu.Unlock()
	return append([]Sample(nil), se.samples...), se.errs
}

// PeakOf is the field-wise maximum (AtSeconds: of the RSS peak).
func PeakOf(a, b Sample) Sample {
	if b.RSSKB > a.RSSKB {
		a.RSSKB, a.AtSeconds = b.RSSKB, b.AtSeconds
	}
	a.HeapInuseKB = max(a.HeapInuseKB, b.HeapInuseKB)
	a.FDs, a.Goroutines, a.OpenFDs = max(a.FDs, b.FDs), max(a.Goroutines, b.Goroutines), max(a.OpenFDs, b.OpenFDs)
	a.WSConns, a.HTTPConns = max(a.WSConns, b.WSConns), max(a.HTTPConns, b.HTTPConns)
	a.FDTargets = nil
	return a
}

// Print writes the before / peak / after table, then the FD targets whose
// count changed between before and after.
func Print(w io.Writer, before, peak, after Sample) {
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

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times: 100 on every
// Linux architecture Go supports (proc(5); sysconf(_SC_CLK_TCK)).
const clockTicks = 100

// CPUSeconds reads the user + system CPU time pid has used so far, from
// /proc/PID/stat (proc(5): fields 14 utime and 15 stime, counted after the
// parenthesised command name, which may hold spaces).
func CPUSeconds(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStatCPU(string(b))
}

func parseStatCPU(stat string) (float64, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("/proc/PID/stat: no command name")
	}
	// After ") ": field 3 (state) is f[0], so utime (14) is f[11], stime f[12].
	f := strings.Fields(stat[i+1:])
	if len(f) < 13 {
		return 0, errors.New("/proc/PID/stat: too few fields")
	}
	u, err1 := strconv.ParseUint(f[11], 10, 64)
	s, err2 := strconv.ParseUint(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc/PID/stat: %w", err)
	}
	return float64(u+s) / clockTicks, nil
}
