package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/adb-connector/adb-connector/bench/internal/procstat"
)

// soak runs the load and returns the report (without the stray-adb check,
// which needs serve stopped).
func (s *soak) soak(ctx context.Context) (*Report, error) {
	rep := &Report{Time: time.Now().UTC(), Config: s.cfg, CPUs: runtime.NumCPU(), Go: runtime.Version()}
	sm := &procstat.Sampler{Srv: s.srv, Pid: s.srv.Pid(), Start: time.Now()}

	// Before: serve up with its phones attached and no client; give it a
	// moment after the attach, then read it.
	time.Sleep(3 * time.Second) // letting the server settle, not synchronisation
	var err error
	if rep.Before, err = sm.TakeWithTargets(ctx); err != nil {
		return nil, fmt.Errorf("sample before: %w", err)
	}
	metricsBefore, err := s.srv.Metrics(ctx)
	if err != nil {
		return nil, err
	}
	se := procstat.NewSeries(rep.Before)
	sctx, stopSampling := context.WithCancel(ctx)
	defer stopSampling()
	go se.Run(sctx, sm, time.Second)

	// Setup: load sockets, the steady phones bound to their first channel,
	// the flood socket bound to the burst phone.
	fmt.Printf("soak: %d sockets x %d channels, %d phones, %s of load, %d adb kill(s)\n",
		s.cfg.Sockets, s.cfg.ChansPerSocket, s.cfg.Phones, s.cfg.Duration, s.cfg.Kills)
	chans, err := s.openLoadSockets(ctx)
	if err != nil {
		return nil, err
	}
	nSteady := s.cfg.Phones - 2
	workers := make([]*steady, nSteady)
	for i := range workers {
		workers[i] = &steady{s: s, serial: s.serials[i]}
	}
	for i, r := range chans {
		w := workers[i%nSteady]
		w.chans = append(w.chans, r)
	}
	for _, w := range workers {
		if err := s.bind(ctx, w.chans[0], w.serial); err != nil {
			return nil, err
		}
	}
	floodCh, unboundCh, garbageCh, err := s.bindFlood(ctx, s.serials[nSteady])
	if err != nil {
		return nil, fmt.Errorf("flood socket: %w", err)
	}
	bound := func() []chanRef {
		out := []chanRef{floodCh}
		for _, w := range workers {
			out = append(out, w.current())
		}
		return out
	}

	loadStart := time.Now()
	lctx, stopLoad := context.WithTimeout(ctx, s.cfg.Duration)
	defer stopLoad()
	for _, w := range workers {
		s.wg.Add(1)
		go w.run(lctx)
	}
	s.wg.Add(1)
	go s.probe(lctx, chans)
	s.wg.Add(4)
	go s.every(lctx, s.cfg.FloodEvery, func(ctx context.Context) { s.burstInflight(ctx, floodCh) })
	go s.every(lctx, s.cfg.FloodEvery, func(ctx context.Context) { s.burstUnbound(ctx, unboundCh) })
	go s.every(lctx, s.cfg.FloodEvery/2, func(ctx context.Context) { s.oversized(ctx, garbageCh) })
	go s.every(lctx, s.cfg.FloodEvery, func(ctx context.Context) { s.idleHTTP(ctx, idleHold) })
	d := &dropper{s: s, serial: s.serials[nSteady+1]}
	s.wg.Add(1)
	go d.run(lctx)
	faultsDone := make(chan []Fault, 1)
	go func() {
		var out []Fault
		for k := 1; k <= s.cfg.Kills; k++ {
			at := loadStart.Add(s.cfg.Duration * time.Duration(k) / time.Duration(s.cfg.Kills+1))
			select {
			case <-lctx.Done():
			case <-time.After(time.Until(at)):
				fmt.Printf("soak: killing the adb server (%d of %d)\n", k, s.cfg.Kills)
				out = append(out, s.killADB(ctx, loadStart, bound))
			}
		}
		faultsDone <- out
	}()

	<-lctx.Done()
	rep.Faults = <-faultsDone
	s.wg.Wait()
	fmt.Println("soak: load stopped; closing every client and settling for", s.cfg.Settle)
	s.mu.Lock()
	for _, c := range s.clients {
		c.Close()
		rep.SchemaViolations += len(c.Errors())
	}
	s.mu.Unlock()
	s.srv.HTTP.CloseIdleConnections()
	rep.Peak = se.Peak()

	time.Sleep(s.cfg.Settle) // the settle period is what is measured
	stopSampling()
	if rep.After, err = sm.TakeWithTargets(ctx); err != nil {
		return nil, fmt.Errorf("sample after: %w", err)
	}
	metricsAfter, err := s.srv.Metrics(ctx)
	if err != nil {
		return nil, err
	}
	samples, _ := se.Samples()
	rep.Samples = append(samples, rep.After)
	rep.ServerToolOutcomes, rep.ServerErrorsSent = procstat.ServerCounts(metricsBefore, metricsAfter)
	rep.ProgressPushes = s.board.progress.Load()
	rep.Outcomes = s.tally.rows()
	s.judge(rep)
	return rep, nil
}

// judge fills the leak figures and the flags.
func (s *soak) judge(rep *Report) {
	dbBefore, dbAfter := procstat.DBFDs(rep.Before.FDTargets), procstat.DBFDs(rep.After.FDTargets)
	rep.Leak = Leak{Goroutines: rep.After.Goroutines - rep.Before.Goroutines,
		FDs:   (rep.After.FDs - dbAfter) - (rep.Before.FDs - dbBefore),
		DBFDs: dbAfter - dbBefore, RSSKB: rep.After.RSSKB - rep.Before.RSSKB}
	if dbAfter > procstat.MaxDBFDs {
		rep.Leak.Flagged = true
		rep.Flags = append(rep.Flags, fmt.Sprintf("leak? %d FDs on the database files (the pools allow %d)", dbAfter, procstat.MaxDBFDs))
	}
	if rep.Leak.Goroutines > s.cfg.LeakGoroutines {
		rep.Leak.Flagged = true
		rep.Flags = append(rep.Flags, fmt.Sprintf("leak? goroutines %d -> %d (margin %d)", rep.Before.Goroutines, rep.After.Goroutines, s.cfg.LeakGoroutines))
	}
	if rep.Leak.FDs > s.cfg.LeakFDs {
		rep.Leak.Flagged = true
		rep.Flags = append(rep.Flags, fmt.Sprintf("leak? FDs %d -> %d, %+d besides the database files (margin %d)",
			rep.Before.FDs, rep.After.FDs, rep.Leak.FDs, s.cfg.LeakFDs))
	}
	for _, r := range rep.Outcomes {
		if !r.Expected {
			rep.Unexpected += r.Count
		}
	}
	if rep.Unexpected > 0 {
		rep.Flags = append(rep.Flags, fmt.Sprintf("%d unexpected outcomes", rep.Unexpected))
	}
	for i, f := range rep.Faults {
		if len(f.NotBack) > 0 || f.CallsOK < f.Channels {
			rep.Flags = append(rep.Flags, fmt.Sprintf("adb kill %d: %d of %d channels not connected again within %s, %d of %d calls ok after",
				i+1, len(f.NotBack), f.Channels, recoverWait, f.CallsOK, f.Channels))
		}
	}
	if len(rep.Faults) < s.cfg.Kills {
		rep.Flags = append(rep.Flags, fmt.Sprintf("only %d of %d adb kills ran", len(rep.Faults), s.cfg.Kills))
	}
	if rep.SchemaViolations > 0 {
		rep.Flags = append(rep.Flags, fmt.Sprintf("%d received packets failed schema validation", rep.SchemaViolations))
	}
}

func printReport(w io.Writer, rep *Report) {
	fmt.Fprintln(w)
	procstat.Print(w, rep.Before, rep.Peak, rep.After)
	fmt.Fprintln(w)
	printOutcomes(w, rep.Outcomes)
	fmt.Fprintf(w, "tool.progress.push received: %d\n\n", rep.ProgressPushes)
	for i, f := range rep.Faults {
		fmt.Fprintf(w, "adb kill %d at %.1f s: %d bound channels, %d pushed offline, all connected again after %.0f ms (not back: %d), calls ok after: %d/%d\n",
			i+1, f.AtSeconds, f.Channels, f.OfflineSeen, f.ConnectedAfterMS, len(f.NotBack), f.CallsOK, f.Channels)
		for _, e := range f.CallErrors {
			fmt.Fprintln(w, "   ", e)
		}
	}
	fmt.Fprintf(w, "server tool outcomes: %v\nserver errors sent:   %v\n", rep.ServerToolOutcomes, rep.ServerErrorsSent)
	fmt.Fprintf(w, "adb processes left on port %d after the run: %d\n", rep.ADBPort, len(rep.StrayADB))
	if len(rep.Flags) == 0 {
		fmt.Fprintln(w, "no unexpected outcome, every phone came back")
	}
	fmt.Fprintf(w, "leak check: goroutines %+d (margin %d), FDs %+d besides the database files (margin %d), database FDs %+d (pool bound %d), RSS %+d kB (not judged)\n",
		rep.Leak.Goroutines, rep.Config.LeakGoroutines, rep.Leak.FDs, rep.Config.LeakFDs, rep.Leak.DBFDs, procstat.MaxDBFDs, rep.Leak.RSSKB)
	for _, f := range rep.Flags {
		fmt.Fprintln(w, "FLAG:", f)
	}
}
