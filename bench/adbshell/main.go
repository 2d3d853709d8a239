// Command adbshell measures the per-command overhead of package adb against
// the adb CLI, in the same run, and screencap latency PNG vs raw.
//
// With no flags it starts a private adb server and one virtual phone
// (adb/adbtest); with -endpoint and -serial it measures a real device.
//
//	go run ./bench/adbshell -n 200 -out bench/results/adbshell.json
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/bench/internal/benchtb"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "adbshell:", err)
		os.Exit(1)
	}
}

// Stats summarizes one measured operation (milliseconds).
type Stats struct {
	Name   string  `json:"name"`
	N      int     `json:"n"`
	MeanMS float64 `json:"mean_ms"`
	P50MS  float64 `json:"p50_ms"`
	P95MS  float64 `json:"p95_ms"`
}

// Report is what -out receives.
type Report struct {
	Time      time.Time `json:"time"`
	Target    string    `json:"target"`
	Results   []Stats   `json:"results"`
	CLIRatio  float64   `json:"cli_over_lib_ratio"`
	PNGvsRaw  float64   `json:"png_over_raw_ratio"`
	GoVersion string    `json:"go_version,omitempty"`
}

func measure(name string, n int, fn func() error) (Stats, error) {
	d := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if err := fn(); err != nil {
			return Stats{}, fmt.Errorf("%s: %w", name, err)
		}
		d = append(d, time.Since(start))
	}
	slices.Sort(d)
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	ms := func(x time.Duration) float64 { return float64(x.Microseconds()) / 1000 }
	return Stats{Name: name, N: n, MeanMS: ms(sum / time.Duration(n)), P50MS: ms(d[n/2]), P95MS: ms(d[n*95/100])}, nil
}

func run() (err error) {
	n := flag.Int("n", 100, "iterations per measurement")
	out := flag.String("out", "", "write the JSON report to this file (default stdout)")
	endpoint := flag.String("endpoint", "", "adb server host:port of a real device (default: virtual phone)")
	serial := flag.String("serial", "", "serial of the real device (with -endpoint)")
	flag.Parse()
	if *n < 1 {
		return errors.New("-n must be positive")
	}

	target := "real device"
	if *endpoint == "" || *serial == "" {
		tb := benchtb.New("adbshell")
		defer tb.Close()
		defer tb.Recover(&err)
		env := adbtest.Start(tb, adbtest.Options{Devices: 1})
		*endpoint, *serial = env.ServerAddr, env.Devices[0].Serial()
		target = "adbtest virtual phone"
	}
	ctx := context.Background()
	c, err := adb.New(ctx, adb.Config{Endpoints: []string{*endpoint}, NoTracking: true})
	if err != nil {
		return err
	}
	defer c.Close()
	d, err := c.Device(adb.DeviceKey(*endpoint, *serial))
	if err != nil {
		return err
	}
	host, port, _ := net.SplitHostPort(*endpoint)
	rep := Report{Time: time.Now().UTC(), Target: target}
	steps := []struct {
		name string
		fn   func() error
	}{
		{"lib Shell(true)", func() error { _, err := d.Shell(ctx, "true"); return err }},
		{"adb CLI shell true", func() error {
			return exec.Command("adb", "-H", host, "-P", port, "-s", *serial, "shell", "true").Run()
		}},
		{"lib ExecOut(true)", func() error { _, err := d.ExecOut(ctx, "true"); return err }},
		{"screencap PNG", func() error { _, err := d.ScreencapPNG(ctx); return err }},
		{"screencap raw", func() error { _, err := d.ScreencapRaw(ctx); return err }},
	}
	for _, s := range steps {
		st, err := measure(s.name, *n, s.fn)
		if err != nil {
			return err
		}
		rep.Results = append(rep.Results, st)
	}
	rep.CLIRatio = rep.Results[1].MeanMS / rep.Results[0].MeanMS
	rep.PNGvsRaw = rep.Results[3].MeanMS / rep.Results[4].MeanMS
	b, _ := json.MarshalIndent(rep, "", "  ")
	b = append(b, '\n')
	if *out == "" {
		_, err = os.Stdout.Write(b)
		return err
	}
	return os.WriteFile(*out, b, 0o644)
}
