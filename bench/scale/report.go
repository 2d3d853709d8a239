package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/adb-connector/adb-connector/bench/internal/procstat"
)

// judge fills the per-phone figures, the leak check and the flags.
func (b *bench) judge(rep *Report) {
	n := b.cfg.Phones
	z, base, peak, after := rep.Zero, rep.Baseline, rep.Peak, rep.After
	rep.PerPhone = PerPhone{
		RSSKB: perPhoneKB(z.RSSKB, base.RSSKB, n), RSSGoalKB: rssGoalKB,
		HeapKB:     perPhoneKB(z.HeapInuseKB, base.HeapInuseKB, n),
		PeakRSSKB:  perPhoneKB(base.RSSKB, peak.RSSKB, n),
		Goroutines: perPhoneKB(z.Goroutines, base.Goroutines, n),
		FDs:        perPhoneKB(z.FDs, base.FDs, n),
	}
	rep.PerPhone.RSSMet = rep.PerPhone.RSSKB <= rssGoalKB
	if !rep.PerPhone.RSSMet {
		rep.Flags = append(rep.Flags, fmt.Sprintf("RSS per phone %.0f kB, over the %d kB goal", rep.PerPhone.RSSKB, rssGoalKB))
	}

	dbBase, dbAfter := procstat.DBFDs(base.FDTargets), procstat.DBFDs(after.FDTargets)
	rep.Leak = Leak{Goroutines: after.Goroutines - base.Goroutines,
		FDs:   (after.FDs - dbAfter) - (base.FDs - dbBase),
		DBFDs: dbAfter - dbBase, RSSKB: after.RSSKB - base.RSSKB}
	rep.Leak.Back = true
	if dbAfter > procstat.MaxDBFDs {
		rep.Leak.Back = false
		rep.Flags = append(rep.Flags, fmt.Sprintf("leak? %d FDs on the database files (the pools allow %d)", dbAfter, procstat.MaxDBFDs))
	}
	if rep.Leak.Goroutines > b.cfg.LeakGoroutines {
		rep.Leak.Back = false
		rep.Flags = append(rep.Flags, fmt.Sprintf("leak? goroutines %d -> %d (margin %d)", base.Goroutines, after.Goroutines, b.cfg.LeakGoroutines))
	}
	if rep.Leak.FDs > b.cfg.LeakFDs {
		rep.Leak.Back = false
		rep.Flags = append(rep.Flags, fmt.Sprintf("leak? FDs %d -> %d, %+d besides the database files (margin %d)",
			base.FDs, after.FDs, rep.Leak.FDs, b.cfg.LeakFDs))
	}
	if after.WSConns != 0 {
		rep.Flags = append(rep.Flags, fmt.Sprintf("%d WebSockets still open after the clients left", after.WSConns))
	}
	if len(rep.Errors) > 0 {
		rep.Flags = append(rep.Flags, fmt.Sprintf("calls that did not end ok: %v", rep.Errors))
	}
}

func printReport(w io.Writer, rep *Report) {
	c := rep.Config
	fmt.Fprintf(w, "\nscale: %d phones in %d process(es) on %d adb servers %v (%d through SSH), %d channels on %d socket(s) (%d acting), profile %s, %.1f s of load (think %s), set up in %.0f s\n",
		c.Phones, c.PhoneProcs, c.Servers, rep.PhonesPerServer, c.SSHServers, c.Phones, c.Sockets, actingCount(c), c.Profile, rep.LoadSeconds, c.Think, rep.SetupSeconds)
	fmt.Fprintf(w, "load average: %s at the start, %s at the end (%d CPUs)\n\n", rep.LoadavgStart, rep.LoadavgEnd, rep.CPUs)
	fmt.Fprintf(w, "%-24s %8s %8s %9s %9s %9s %9s %9s  %s\n", "operation", "calls", "ok", "calls/s", "p50_ms", "p90_ms", "p99_ms", "max_ms", "errors")
	for _, o := range rep.Ops {
		fmt.Fprintf(w, "%-24s %8d %8d %9.1f %9.2f %9.2f %9.2f %9.2f  %s\n", o.Op, o.Calls, o.OK, o.PerSecond, o.P50MS, o.P90MS, o.P99MS, o.MaxMS, codes(o.Errors))
	}
	fmt.Fprintf(w, "%-24s %8d %8s %9.1f\n", "all tool calls", rep.Calls, "", rep.CallsPerSecond)
	fmt.Fprintf(w, "errors by code: %s\n", codes(rep.Errors))
	fmt.Fprintf(w, "server tool outcomes: %v\nserver errors sent:   %v\n\n", rep.ServerToolOutcomes, rep.ServerErrorsSent)
	printPaths(w, rep)

	fmt.Fprintf(w, "%-28s %10s %10s %10s %10s %12s\n", "serve process", "0 phones", "baseline", "peak", "after", "after-base")
	row := func(name string, f func(procstat.Sample) int64) {
		fmt.Fprintf(w, "%-28s %10d %10d %10d %10d %+12d\n", name, f(rep.Zero), f(rep.Baseline), f(rep.Peak), f(rep.After), f(rep.After)-f(rep.Baseline))
	}
	row("RSS (kB, VmRSS)", func(s procstat.Sample) int64 { return s.RSSKB })
	row("Go heap in use (kB)", func(s procstat.Sample) int64 { return s.HeapInuseKB })
	row("goroutines (go_goroutines)", func(s procstat.Sample) int64 { return s.Goroutines })
	row("FDs (/proc/PID/fd)", func(s procstat.Sample) int64 { return s.FDs })
	row("process_open_fds", func(s procstat.Sample) int64 { return s.OpenFDs })
	row("ws connections", func(s procstat.Sample) int64 { return s.WSConns })
	row("http connections", func(s procstat.Sample) int64 { return s.HTTPConns })
	pp := rep.PerPhone
	fmt.Fprintf(w, "per phone: RSS %.0f kB (baseline - 0 phones; goal <= %d kB: %s), heap %.0f kB, %.2f goroutines, %.2f FDs; under load RSS %+.0f kB (peak - baseline)\n",
		pp.RSSKB, pp.RSSGoalKB, met(pp.RSSMet), pp.HeapKB, pp.Goroutines, pp.FDs, pp.PeakRSSKB)
	fmt.Fprintf(w, "virtual phones' own process (excluded above): RSS %d kB\n", rep.PhonesRSSKB)
	fmt.Fprintf(w, "CPU during the load (s): serve %.1f (%.3f ms a call), phones %.1f, adb servers %.1f, sshd %.1f, bench client %.1f\n",
		rep.CPU.ServeS, rep.CPU.ServeMSCall, rep.CPU.PhonesS, rep.CPU.ADBServersS, rep.CPU.SSHDS, rep.CPU.BenchS)
	l := rep.Leak
	fmt.Fprintf(w, "after the clients left: goroutines %+d (margin %d), FDs %+d besides the database files (margin %d), database FDs %+d (pool bound %d), RSS %+d kB (not judged): back to baseline: %s\n",
		l.Goroutines, c.LeakGoroutines, l.FDs, c.LeakFDs, l.DBFDs, procstat.MaxDBFDs, l.RSSKB, met(l.Back))
	fmt.Fprintf(w, "adb processes left after the run: %d\n", len(rep.StrayADB))
	for _, f := range rep.Flags {
		fmt.Fprintln(w, "FLAG:", f)
	}
}

func actingCount(c Config) int {
	if c.Acting == 0 {
		return c.Phones
	}
	return c.Acting
}

func met(ok bool) string {
	if ok {
		return "yes"
	}
	return "NO"
}

// codes prints counts by code in a stable order.
func codes(m map[string]int) string {
	if len(m) == 0 {
		return "-"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
	}
	return strings.Join(parts, " ")
}
