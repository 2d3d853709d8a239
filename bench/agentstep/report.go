package main

import (
	"fmt"
	"io"
)

// printMarkdown writes the report as Markdown tables: per profile the step
// kinds and the tasks, then the targets.
func printMarkdown(w io.Writer, rep Report) {
	fmt.Fprintf(w, "# agentstep %s\n\n", rep.Time.Format("2006-01-02 15:04:05Z"))
	fmt.Fprintf(w, "Ours: our server and tools over /ws. Baseline: %s.\n", rep.Baseline)
	fmt.Fprintf(w, "Ratio: ours / baseline (below 1: ours is faster or smaller). %d runs per task and side, %d rounds per step kind; "+
		"think time %d ms (untimed); display %s; %d CPUs, load %s.\n",
		rep.Config.Runs, rep.Config.Rounds, rep.Config.ThinkMS, rep.Config.Screen, rep.CPUs, rep.Loadavg)
	for _, p := range rep.Profiles {
		fmt.Fprintf(w, "\n## %s (%s)\n\n", p.Profile, p.Summary)
		fmt.Fprintln(w, "| step kind | ours p50 ms | ours p90 ms | baseline p50 ms | baseline p90 ms | ratio p50 | ratio p90 | n |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
		for _, k := range p.Kinds {
			t := k.Time
			fmt.Fprintf(w, "| %s | %.0f | %.0f | %.0f | %.0f | %.3f | %.3f | %d |\n", k.Kind,
				t.Ours.P50, t.Ours.P90, t.Baseline.P50, t.Baseline.P90, t.RatioP50, t.RatioP90, t.Ours.N)
		}
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| task | ours p50 ms | ours p90 ms | baseline p50 ms | baseline p90 ms | ratio p50 | ratio p90 | device cmds ours / baseline | link bytes ours / baseline | observes ours / baseline |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
		for _, t := range p.Tasks {
			fmt.Fprintf(w, "| %s | %.0f | %.0f | %.0f | %.0f | %.3f | %.3f | %.0f / %.0f | %s / %s | %.0f / %.0f |\n", t.Task,
				t.Time.Ours.P50, t.Time.Ours.P90, t.Time.Baseline.P50, t.Time.Baseline.P90, t.Time.RatioP50, t.Time.RatioP90,
				t.DeviceCommands.Ours.P50, t.DeviceCommands.Baseline.P50,
				size(t.BytesTotal.Ours.P50), size(t.BytesTotal.Baseline.P50), t.Observes.Ours.P50, t.Observes.Baseline.P50)
		}
	}
	fmt.Fprintf(w, "\n## Targets (%s, p50 ratio)\n\n", targetProfile)
	fmt.Fprintln(w, "| target | at most | measured | |")
	fmt.Fprintln(w, "|---|---:|---:|---|")
	for _, t := range rep.Targets {
		verdict := "MISS"
		if t.Pass {
			verdict = "PASS"
		}
		fmt.Fprintf(w, "| %s | %.2fx | %.3fx | %s |\n", t.What, t.MaxRatio, t.Ratio, verdict)
	}
	if len(rep.Targets) == 0 {
		fmt.Fprintf(w, "| (no %s run) | | | |\n", targetProfile)
	}
}

// size prints a byte count in KiB or MiB.
func size(b float64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.0f KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}
