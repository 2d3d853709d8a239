// Command devicetools measures what the connector adds to a device action,
// end to end, against the same action sent straight to the adb server's
// socket, in the same run, on the same virtual phone (the tool latency figures):
//
//   - android_tap: tool.invoke -> tool.invoke.ack over /ws, vs
//     host:transport:SERIAL + shell,v2:input tap X Y read to its exit packet
//     (target: at most 2 ms added at the median);
//   - android_screenshot (png passthrough) + GET download_url, vs
//     exec:screencap -p (target: at most 1.25x at the median), twice:
//     "cached frame" (the virtual phone serves the PNG of an unchanged
//     screen from a cache, so the raw side costs well under a millisecond;
//     no phone does that) and "fresh frame" (android
//     Config.EncodeEveryCapture: a new PNG encoded on every screencap, as
//     a phone does, though still far faster than a phone's hundreds of
//     milliseconds). Both ratios are reported.
//
// It starts a private adb server with one virtual phone (adb/adbtest),
// builds and starts the real `adb-connector serve --adb PRIVATE`, pairs a
// channel through the admin socket, then alternates the two sides of each
// pair call by call so both see the same machine load.
//
//	go run ./bench/devicetools -out bench/results/devicetools.json
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/bench/internal/benchtb"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "devicetools:", err)
		os.Exit(1)
	}
}

// Stats summarizes one measured operation (milliseconds).
type Stats struct {
	Name   string  `json:"name"`
	N      int     `json:"n"`
	MeanMS float64 `json:"mean_ms"`
	P50MS  float64 `json:"p50_ms"`
	P90MS  float64 `json:"p90_ms"`
	P99MS  float64 `json:"p99_ms"`
}

// Comparison is one connector-vs-raw pair.
type Comparison struct {
	Name      string  `json:"name"`
	Connector Stats   `json:"connector"`
	Raw       Stats   `json:"raw"`
	AddedMS   float64 `json:"added_p50_ms"` // connector p50 - raw p50
	Ratio     float64 `json:"ratio"`        // connector p50 / raw p50
	Target    string  `json:"target"`
	Met       bool    `json:"met"`
	// Frame, for android_screenshot: "cached" or "fresh" (see FrameNote).
	Frame     string `json:"frame,omitempty"`
	FrameNote string `json:"frame_note,omitempty"`
	// Breakdown splits the connector side (android_screenshot).
	Breakdown []Stats `json:"breakdown,omitempty"`
}

// The two android_screenshot comparisons.
const (
	frameCached     = "cached"
	frameCachedNote = "cached frame: the virtual phone serves the PNG of an unchanged screen from a cache " +
		"(no phone does), so the raw side is little more than a socket round trip"
	frameFresh     = "fresh"
	frameFreshNote = "fresh frame per capture, like a phone: the virtual phone encodes a new PNG on every " +
		"screencap (android Config.EncodeEveryCapture); a real phone's encode is slower still"
)

// Report is what -out receives.
type Report struct {
	Time    time.Time    `json:"time"`
	Target  string       `json:"target"`
	CPUs    int          `json:"cpus"`
	Go      string       `json:"go"`
	Loadavg string       `json:"loadavg,omitempty"`
	Results []Comparison `json:"results"`
	// ScreenshotBytes is the size of the PNG the screenshots return.
	ScreenshotBytes int64 `json:"screenshot_bytes"`
}

func stats(name string, d []time.Duration) Stats {
	d = slices.Clone(d)
	slices.Sort(d)
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	n := len(d)
	ms := func(x time.Duration) float64 { return float64(x.Microseconds()) / 1000 }
	q := func(p int) float64 { return ms(d[min(n-1, n*p/100)]) }
	return Stats{Name: name, N: n, MeanMS: ms(sum / time.Duration(n)), P50MS: q(50), P90MS: q(90), P99MS: q(99)}
}

// rounds runs warm warm-up rounds, then n rounds calling each of fns once
// (the order rotating round by round, so every side sees the same load),
// and returns one sample per function. prep runs untimed before each round.
func rounds(n, warm int, prep func() error, fns ...func() error) ([][]time.Duration, error) {
	out := make([][]time.Duration, len(fns))
	for i := range warm + n {
		if err := prep(); err != nil {
			return nil, err
		}
		for k := range fns {
			j := (i + k) % len(fns)
			start := time.Now()
			if err := fns[j](); err != nil {
				return nil, err
			}
			if i >= warm {
				out[j] = append(out[j], time.Since(start))
			}
		}
	}
	return out, nil
}

func run() (err error) {
	n := flag.Int("n", 300, "measured android_tap calls (and as many raw taps)")
	nShot := flag.Int("n-screenshot", 100, "measured android_screenshot calls (and as many raw screencaps)")
	warm := flag.Int("warmup", 20, "warm-up rounds before each measurement")
	out := flag.String("out", "", "write the JSON report to this file (default stdout)")
	bin := flag.String("bin", "", "adb-connector binary to run (default: go build ./cmd/adb-connector into a temp dir)")
	flag.Parse()
	if *n < 1 || *nShot < 1 || *warm < 0 {
		return errors.New("-n and -n-screenshot must be positive, -warmup not negative")
	}

	tb := benchtb.New("devicetools")
	defer tb.Close()
	defer tb.Recover(&err)
	tmp, err := os.MkdirTemp("", "devicetools-")
	if err != nil {
		return err
	}
	tb.Cleanup(func() { os.RemoveAll(tmp) })
	if *bin == "" {
		if *bin, err = benchtb.Build(tmp); err != nil {
			return err
		}
	}
	env := adbtest.Start(tb, adbtest.Options{Devices: 1})
	phone := env.Devices[0]
	serial := phone.Serial()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	srv, err := benchtb.StartServe(ctx, benchtb.ServeOptions{Bin: *bin, DataDir: filepath.Join(tmp, "data"), Args: []string{"--adb", env.ServerAddr}})
	if err != nil {
		return err
	}
	tb.Cleanup(srv.Stop)
	ag, err := benchtb.NewAgent(ctx, srv, serial)
	if err != nil {
		return err
	}
	defer ag.Close()

	rep := Report{Time: time.Now().UTC(), Target: "adbtest virtual phone (launcher scenario, 720x1280)",
		CPUs: runtime.NumCPU(), Go: runtime.Version()}

	prep := func() error { return ag.Prepare(ctx) }
	// A point on the launcher's wallpaper: a tap that changes nothing, so
	// every tap meets the same screen.
	const tapX, tapY = 700, 1260
	tapConn := func() error {
		_, err := ag.Invoke(ctx, "android_tap", map[string]int{"x": tapX, "y": tapY})
		return err
	}
	tapRaw := func() error {
		return rawShellV2(ctx, env.ServerAddr, serial, fmt.Sprintf("input tap %d %d", tapX, tapY))
	}
	home, _ := phone.Android().Foreground()
	d, err := rounds(*n, *warm, prep, tapConn, tapRaw)
	if err != nil {
		return fmt.Errorf("tap: %w", err)
	}
	if fg, _ := phone.Android().Foreground(); fg != home {
		return fmt.Errorf("tap: the taps changed the foreground app (%s -> %s): pick another point", home, fg)
	}
	rep.Results = append(rep.Results, compare("android_tap", stats("android_tap via /ws", d[0]),
		stats("input tap via adb socket", d[1]), "added_p50_ms <= 2", func(c Comparison) bool { return c.AddedMS <= 2 }))

	var ackD, dlD []time.Duration // the two halves of shotConn, for the breakdown
	shotConn := func() error {
		start := time.Now()
		res, err := ag.Invoke(ctx, "android_screenshot", map[string]any{})
		if err != nil {
			return err
		}
		ackD = append(ackD, time.Since(start))
		defer func() { dlD = append(dlD, time.Since(start)-ackD[len(ackD)-1]) }()
		var r struct {
			URL  string `json:"download_url"`
			Size int64  `json:"byte_size"`
		}
		if err := json.Unmarshal(res, &r); err != nil {
			return err
		}
		rep.ScreenshotBytes = r.Size
		return srv.Download(ctx, r.URL, r.Size)
	}
	shotRaw := func() error {
		b, err := rawExec(ctx, env.ServerAddr, serial, "screencap -p")
		if err == nil && !strings.HasPrefix(string(b), "\x89PNG") {
			err = errors.New("screencap -p: not a PNG")
		}
		return err
	}
	shotWarm := min(*warm, 5)
	lib, err := adb.New(ctx, adb.Config{Endpoints: []string{env.ServerAddr}, NoTracking: true})
	if err != nil {
		return err
	}
	defer lib.Close()
	libDev, err := lib.Device(adb.DeviceKey(env.ServerAddr, serial))
	if err != nil {
		return err
	}
	shotLib := func() error { _, err := libDev.ScreencapPNG(ctx); return err }
	for _, fr := range []struct{ frame, note string }{{frameCached, frameCachedNote}, {frameFresh, frameFreshNote}} {
		phone.Android().SetEncodeEveryCapture(fr.frame == frameFresh)
		ackD, dlD = nil, nil
		d, err = rounds(*nShot, shotWarm, prep, shotConn, shotRaw, shotLib)
		if err != nil {
			return fmt.Errorf("screenshot (%s frame): %w", fr.frame, err)
		}
		c := compare("android_screenshot ("+fr.frame+" frame)", stats("android_screenshot png + GET download_url", d[0]),
			stats("exec:screencap -p via adb socket", d[1]), "ratio <= 1.25", func(c Comparison) bool { return c.Ratio <= 1.25 })
		c.Frame, c.FrameNote = fr.frame, fr.note
		c.Breakdown = []Stats{stats("  of which tool.invoke -> ack", ackD[shotWarm:]), stats("  of which GET download_url", dlD[shotWarm:]),
			stats("  package adb Device.ScreencapPNG alone", d[2])}
		rep.Results = append(rep.Results, c)
	}
	phone.Android().SetEncodeEveryCapture(false)

	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		rep.Loadavg = strings.TrimSpace(string(b))
	}
	printTable(os.Stderr, rep)
	b, _ := json.MarshalIndent(rep, "", "  ")
	b = append(b, '\n')
	if *out == "" {
		_, err = os.Stdout.Write(b)
		return err
	}
	return os.WriteFile(*out, b, 0o644)
}

func compare(name string, conn, raw Stats, target string, met func(Comparison) bool) Comparison {
	c := Comparison{Name: name, Connector: conn, Raw: raw, Target: target,
		AddedMS: round3(conn.P50MS - raw.P50MS), Ratio: round3(conn.P50MS / raw.P50MS)}
	c.Met = met(c)
	return c
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

func printTable(w io.Writer, rep Report) {
	fmt.Fprintf(w, "%-45s %5s %8s %8s %8s %8s\n", "operation", "n", "p50_ms", "p90_ms", "p99_ms", "mean_ms")
	for _, c := range rep.Results {
		for _, s := range []Stats{c.Connector, c.Raw} {
			fmt.Fprintf(w, "%-45s %5d %8.3f %8.3f %8.3f %8.3f\n", s.Name, s.N, s.P50MS, s.P90MS, s.P99MS, s.MeanMS)
		}
		for _, s := range c.Breakdown {
			fmt.Fprintf(w, "%-45s %5d %8.3f %8.3f %8.3f %8.3f\n", s.Name, s.N, s.P50MS, s.P90MS, s.P99MS, s.MeanMS)
		}
		fmt.Fprintf(w, "  %s: added p50 %.3f ms, ratio %.2fx (target %s: met=%v)\n", c.Name, c.AddedMS, c.Ratio, c.Target, c.Met)
		if c.FrameNote != "" {
			fmt.Fprintf(w, "    (%s)\n", c.FrameNote)
		}
	}
	fmt.Fprintf(w, "screenshot %d bytes; cpus %d, loadavg %s\n", rep.ScreenshotBytes, rep.CPUs, rep.Loadavg)
}
