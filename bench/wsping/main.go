// Command wsping measures the /ws data plane: ping/pong throughput on one
// pipelined socket, closed-loop latency with 50 concurrent sockets, and
// latency at a paced 5,000 packets/s spread over 50 sockets; then the same
// runs against a bare WebSocket echo server as the baseline, with ratios. It starts the
// connector in-process on loopback unless -addr is given, and writes the
// figures as JSON to -out.
//
//	go run ./bench/wsping -out bench/results/wsping.json
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/coder/websocket"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/store"
)

type result struct {
	Name       string  `json:"name"`
	Sockets    int     `json:"sockets"`
	Packets    int     `json:"packets"`
	Seconds    float64 `json:"seconds"`
	PacketsPS  float64 `json:"round_trips_per_second"`
	TargetRate float64 `json:"target_rate_per_second,omitempty"`
	P50Millis  float64 `json:"p50_ms,omitempty"`
	P99Millis  float64 `json:"p99_ms,omitempty"`
	MaxMillis  float64 `json:"max_ms,omitempty"`
	// CPUMicrosPerPacket is this process's user+sys CPU per round trip
	// (server and client when in-process): a figure that load on a shared
	// machine does not distort the way it distorts p99.
	CPUMicrosPerPacket float64 `json:"cpu_us_per_round_trip"`
}

type report struct {
	Time    string   `json:"time"`
	Addr    string   `json:"addr"`
	InProc  bool     `json:"in_process"`
	CPUs    int      `json:"cpus"`
	Go      string   `json:"go"`
	LoadAvg string   `json:"loadavg,omitempty"`
	Results []result `json:"results"`
	// Baseline is the same runs against a bare echo server (baseline.go) in
	// the same process and run; Ratios are ours / baseline (throughput: >1
	// is faster than the floor; latency and CPU: >1 is slower).
	Baseline []result           `json:"baseline"`
	Ratios   map[string]float64 `json:"ratios"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "wsping:", err)
		os.Exit(1)
	}
}

func run() error {
	out := flag.String("out", "", "write the JSON report to this file (default stdout)")
	addr := flag.String("addr", "", "host:port of a running server (default: start one in-process on loopback)")
	key := flag.String("key-env", "ADB_CONNECTOR_API_KEY", "environment variable holding the API key for -addr")
	n := flag.Int("n", 200000, "pings for the one-socket throughput run")
	conns := flag.Int("conns", 50, "concurrent sockets")
	dur := flag.Duration("duration", 5*time.Second, "length of each latency run")
	rate := flag.Float64("rate", 5000, "paced total rate in packets/s")
	flag.Parse()

	ctx := context.Background()
	rep := report{Time: time.Now().UTC().Format(time.RFC3339), CPUs: runtime.NumCPU(), Go: runtime.Version()}
	apiKey := os.Getenv(*key)
	if *addr == "" {
		a, stop, err := startInProcess(ctx)
		if err != nil {
			return err
		}
		defer stop()
		*addr, rep.InProc, apiKey = a, true, ""
	}
	rep.Addr = *addr
	url := "ws://" + *addr + "/ws"

	measure := func(url, key string) ([]result, error) {
		runs := []func() (result, error){
			func() (result, error) { return throughput(ctx, url, key, *n) },
			func() (result, error) { return latency(ctx, url, key, *conns, *dur, 0) },
			func() (result, error) { return latency(ctx, url, key, *conns, *dur, *rate) },
		}
		var rs []result
		for _, f := range runs {
			cpu0 := cpuTime()
			r, err := f()
			if err != nil {
				return nil, err
			}
			if r.Packets > 0 {
				r.CPUMicrosPerPacket = float64((cpuTime() - cpu0).Microseconds()) / float64(r.Packets)
			}
			rs = append(rs, r)
		}
		return rs, nil
	}
	var err error
	if rep.Results, err = measure(url, apiKey); err != nil {
		return err
	}
	baseAddr, stopBase, err := startBaseline()
	if err != nil {
		return err
	}
	rep.Baseline, err = measure("ws://"+baseAddr+"/ws", "")
	stopBase()
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	rep.Ratios = map[string]float64{
		"throughput_one_socket":   ratio(rep.Results[0].PacketsPS, rep.Baseline[0].PacketsPS),
		"closed_loop_p50":         ratio(rep.Results[1].P50Millis, rep.Baseline[1].P50Millis),
		"closed_loop_p99":         ratio(rep.Results[1].P99Millis, rep.Baseline[1].P99Millis),
		"paced_p50":               ratio(rep.Results[2].P50Millis, rep.Baseline[2].P50Millis),
		"paced_p99":               ratio(rep.Results[2].P99Millis, rep.Baseline[2].P99Millis),
		"cpu_per_round_trip_pipe": ratio(rep.Results[0].CPUMicrosPerPacket, rep.Baseline[0].CPUMicrosPerPacket),
	}
	if l, err := os.ReadFile("/proc/loadavg"); err == nil {
		rep.LoadAvg = strings.TrimSpace(string(l))
	}

	b, _ := json.MarshalIndent(rep, "", "  ")
	b = append(b, '\n')
	if *out == "" {
		_, err := os.Stdout.Write(b)
		return err
	}
	fmt.Print(string(b))
	return os.WriteFile(*out, b, 0o644)
}

// startInProcess runs a connector with no tools on 127.0.0.1:0.
func startInProcess(ctx context.Context) (string, func(), error) {
	dir, err := os.MkdirTemp("", "wsping")
	if err != nil {
		return "", nil, err
	}
	db, err := store.Open(ctx, dir)
	if err != nil {
		return "", nil, err
	}
	srv, err := connector.New(ctx, connector.Config{
		Card: connector.CardConfig{
			CardID:    "device.adb",
			Connector: connector.CardConnector{Name: "wsping", Version: "0"},
			Supports:  connector.CardSupports{TargetTypes: []string{"device"}, Profiles: []string{connector.ProfileDeviceV1}},
		},
		DB:     db,
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	hs := &http.Server{Handler: srv}
	go hs.Serve(ln)
	return ln.Addr().String(), func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		hs.Shutdown(sctx)
		db.Close()
		os.RemoveAll(dir)
	}, nil
}

func dial(ctx context.Context, url, key string) (*websocket.Conn, error) {
	h := http.Header{}
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{connector.Subprotocol}, HTTPHeader: h})
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(connector.MaxPacketBytes)
	return c, nil
}

// ping builds a ping whose request_id carries the send time in ns.
func ping(seq int, sent time.Time) []byte {
	return []byte(`{"schema":"xagent.connector.packet/v1","packet_id":"p` + strconv.Itoa(seq) +
		`","request_id":"` + strconv.FormatInt(sent.UnixNano(), 10) + `","type":"ping"}`)
}

// pongSent returns the send time carried by a pong.
func pongSent(b []byte) (time.Time, error) {
	var p struct {
		Type      string `json:"type"`
		RequestID string `json:"request_id"`
	}
	if err := json.Unmarshal(b, &p); err != nil || p.Type != connector.TypePong {
		return time.Time{}, fmt.Errorf("unexpected reply %s", b)
	}
	ns, err := strconv.ParseInt(p.RequestID, 10, 64)
	return time.Unix(0, ns), err
}

// throughput pipelines n pings on one socket: one goroutine writes as fast
// as it can while another reads the pongs.
func throughput(ctx context.Context, url, key string, n int) (result, error) {
	c, err := dial(ctx, url, key)
	if err != nil {
		return result{}, err
	}
	defer c.CloseNow()
	start := time.Now()
	werr := make(chan error, 1)
	go func() {
		for i := 0; i < n; i++ {
			if err := c.Write(ctx, websocket.MessageText, ping(i, time.Now())); err != nil {
				werr <- err
				return
			}
		}
		werr <- nil
	}()
	for i := 0; i < n; i++ {
		if _, _, err := c.Read(ctx); err != nil {
			return result{}, err
		}
	}
	el := time.Since(start)
	if err := <-werr; err != nil {
		return result{}, err
	}
	c.Close(websocket.StatusNormalClosure, "")
	return result{Name: "one_socket_pipelined", Sockets: 1, Packets: n, Seconds: el.Seconds(), PacketsPS: float64(n) / el.Seconds()}, nil
}

// latency runs conns sockets for d. rate 0: each socket sends its next ping
// when the pong arrives (closed loop). rate > 0: each socket sends on a
// fixed schedule of rate/conns per second whatever the replies (open loop).
func latency(ctx context.Context, url, key string, conns int, d time.Duration, rate float64) (result, error) {
	var (
		mu   sync.Mutex
		lats []time.Duration
		wg   sync.WaitGroup
		errs []error
	)
	sockets := make([]*websocket.Conn, conns)
	for i := range sockets {
		c, err := dial(ctx, url, key)
		if err != nil {
			return result{}, err
		}
		defer c.CloseNow()
		sockets[i] = c
	}
	start := time.Now()
	deadline := start.Add(d)
	for i, c := range sockets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var local []time.Duration
			var err error
			if rate == 0 {
				local, err = closedLoop(ctx, c, deadline)
			} else {
				interval := time.Duration(float64(time.Second) * float64(conns) / rate)
				// Stagger the sockets over one interval.
				first := start.Add(interval * time.Duration(i) / time.Duration(conns))
				local, err = openLoop(ctx, c, first, interval, deadline)
			}
			mu.Lock()
			lats = append(lats, local...)
			if err != nil {
				errs = append(errs, err)
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	el := time.Since(start)
	if len(errs) > 0 {
		return result{}, errors.Join(errs...)
	}
	slices.Sort(lats)
	pct := func(p float64) float64 {
		if len(lats) == 0 {
			return 0
		}
		return float64(lats[min(len(lats)-1, int(p*float64(len(lats))))].Microseconds()) / 1000
	}
	name := "concurrent_closed_loop"
	if rate > 0 {
		name = "concurrent_paced"
	}
	r := result{Name: name, Sockets: conns, Packets: len(lats), Seconds: el.Seconds(), PacketsPS: float64(len(lats)) / el.Seconds(),
		TargetRate: rate, P50Millis: pct(0.50), P99Millis: pct(0.99)}
	if len(lats) > 0 {
		r.MaxMillis = float64(lats[len(lats)-1].Microseconds()) / 1000
	}
	return r, nil
}

func closedLoop(ctx context.Context, c *websocket.Conn, deadline time.Time) ([]time.Duration, error) {
	var lats []time.Duration
	for i := 0; time.Now().Before(deadline); i++ {
		t0 := time.Now()
		if err := c.Write(ctx, websocket.MessageText, ping(i, t0)); err != nil {
			return lats, err
		}
		if _, _, err := c.Read(ctx); err != nil {
			return lats, err
		}
		lats = append(lats, time.Since(t0))
	}
	return lats, nil
}

// openLoop sends on a fixed schedule until deadline, then one "end" ping;
// the reader records latencies until the pong of "end".
func openLoop(ctx context.Context, c *websocket.Conn, first time.Time, interval time.Duration, deadline time.Time) ([]time.Duration, error) {
	werr := make(chan error, 1)
	go func() {
		i := 0
		for next := first; next.Before(deadline); next = next.Add(interval) {
			time.Sleep(time.Until(next)) // pacing the load generator, not test synchronisation
			if err := c.Write(ctx, websocket.MessageText, ping(i, time.Now())); err != nil {
				werr <- err
				return
			}
			i++
		}
		werr <- c.Write(ctx, websocket.MessageText, []byte(`{"schema":"xagent.connector.packet/v1","packet_id":"end","request_id":"end","type":"ping"}`))
	}()
	var lats []time.Duration
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return lats, err
		}
		if strings.Contains(string(b), `"request_id":"end"`) {
			break
		}
		t0, err := pongSent(b)
		if err != nil {
			return lats, err
		}
		lats = append(lats, time.Since(t0))
	}
	return lats, <-werr
}

// cpuTime is the user+sys CPU time of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
