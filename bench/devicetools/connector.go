package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/connector/xagenttest"
	"github.com/adb-connector/adb-connector/device"
	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/auth"
	"github.com/adb-connector/adb-connector/device/tools"
)

// server is a running `adb-connector serve` child process.
type server struct {
	cmd     *exec.Cmd
	url     string
	dataDir string
	apiKey  string
	done    chan struct{}
	http    *http.Client
}

var listenRe = regexp.MustCompile(`msg=listening addr=(\S+)`)

// startConnector runs bin serve on a free loopback port against the adb
// server adbAddr, with a fresh random API key, and waits until it listens.
func startConnector(ctx context.Context, bin, dataDir, adbAddr string) (*server, error) {
	key := make([]byte, 16)
	rand.Read(key)
	s := &server{dataDir: dataDir, apiKey: "sk-bench-" + hex.EncodeToString(key), done: make(chan struct{}),
		http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}}
	s.cmd = exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--adb", adbAddr, "--log-level", "info")
	s.cmd.Env = append(os.Environ(), "ADB_CONNECTOR_API_KEY="+s.apiKey)
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listenRe.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
		s.cmd.Wait()
		close(s.done)
	}()
	select {
	case a := <-addr:
		s.url = "http://" + a
		return s, nil
	case <-s.done:
		return nil, fmt.Errorf("adb-connector serve exited: %v", s.cmd.ProcessState)
	case <-time.After(30 * time.Second):
		s.stop()
		return nil, fmt.Errorf("adb-connector serve did not listen within 30 s")
	case <-ctx.Done():
		s.stop()
		return nil, ctx.Err()
	}
}

// stop sends SIGINT and waits (SIGKILL after 10 s).
func (s *server) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// download GETs a download_url and checks its length.
func (s *server) download(ctx context.Context, path string, size int64) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url+path, nil)
	if err != nil {
		return err
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || n != size {
		return fmt.Errorf("GET %s: %s, %d bytes (want %d)", path, resp.Status, n, size)
	}
	return nil
}

// callsPerChannel stays under the per-channel rate limit (a burst of
// tools.DefaultRatePerMinute): the agent moves to a fresh channel, paired
// again through the admin socket, before it runs out.
const callsPerChannel = tools.DefaultRatePerMinute - 10

// agent is an xAgent data plane bound to the phone through device_pairing.
type agent struct {
	srv    *server
	serial string
	c      *xagenttest.Client
	ch     string
	calls  int
	seq    atomic.Uint64
}

func newAgent(ctx context.Context, srv *server, serial string) (*agent, error) {
	c, _, err := xagenttest.Dial(ctx, srv.url, xagenttest.Options{APIKey: srv.apiKey, SkipValidation: true})
	if err != nil {
		return nil, err
	}
	a := &agent{srv: srv, serial: serial, c: c}
	if _, err := c.Hello(ctx, device.CardID, ""); err != nil {
		c.Close()
		return nil, err
	}
	if err := a.bind(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return a, nil
}

func (a *agent) close() { a.c.Close() }

// bind opens a channel and pairs it with a code from the admin socket,
// waiting for "connected" (the server may still be probing the phone).
func (a *agent) bind(ctx context.Context) error {
	ch, _, err := a.c.OpenChannel(ctx, "")
	if err != nil {
		return err
	}
	r, err := a.pair(ctx, ch)
	if err != nil {
		return err
	}
	var ack struct {
		Status string `json:"status"`
		D      struct {
			Connection struct {
				Status string `json:"status"`
			} `json:"connection"`
		} `json:"connection_descriptor"`
	}
	if r.Error != nil || json.Unmarshal(r.Payload, &ack) != nil || ack.Status != "authenticated" {
		return fmt.Errorf("pairing refused: %s %v", r.Payload, r.Error)
	}
	for st := ack.D.Connection.Status; st != "connected"; {
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		p, err := a.c.WaitPush(wctx, connector.TypeDescriptorPush)
		cancel()
		if err != nil {
			return fmt.Errorf("waiting for connected (last %q): %w", st, err)
		}
		if p.ChannelID == ch && json.Unmarshal(p.Payload, &ack) == nil {
			st = ack.D.Connection.Status
		}
	}
	a.ch, a.calls = ch, 0
	return nil
}

// retryAfterRe reads the wait out of a rate_limited pairing refusal.
var retryAfterRe = regexp.MustCompile(`retry after (\d+) s`)

// pair redeems a fresh code from the admin socket on channel ch. Pairing
// attempts are rate-limited per serial (a handful a minute) and a long
// run rotates channels more often than that: a rate_limited refusal
// waits out its retry hint (outside the timed calls) and tries again.
func (a *agent) pair(ctx context.Context, ch string) (*connector.Packet, error) {
	for attempt := 0; ; attempt++ {
		admin, err := admin.Dial(ctx, admin.SocketPath(a.srv.dataDir))
		if err != nil {
			return nil, err
		}
		code, err := admin.Pair(ctx, a.serial, 0)
		admin.Close()
		if err != nil {
			return nil, err
		}
		r, err := a.c.Request(ctx, connector.TypeAuthStart, ch, map[string]any{
			"flow_id": auth.FlowPairing, "input": map[string]string{"serial": a.serial, "pairing_code": code}})
		if err != nil || r.Error == nil || r.Error.Code != tools.CodeRateLimited || attempt >= 5 {
			return r, err
		}
		wait := 5 * time.Second
		if m := retryAfterRe.FindStringSubmatch(r.Error.Message); m != nil {
			if sec, err := strconv.Atoi(m[1]); err == nil {
				wait = time.Duration(sec)*time.Second + 100*time.Millisecond
			}
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// rotate frees the device (auth.logout) and binds a fresh channel.
func (a *agent) rotate(ctx context.Context) error {
	if _, err := a.c.Request(ctx, connector.TypeAuthLogout, a.ch, nil); err != nil {
		return err
	}
	return a.bind(ctx)
}

// prepare moves to a fresh channel when this one is near the rate limit;
// call it outside the timed part.
func (a *agent) prepare(ctx context.Context) error {
	if a.calls >= callsPerChannel {
		return a.rotate(ctx)
	}
	return nil
}

// invoke runs one tool call with a fresh tool_call_id and returns its result.
func (a *agent) invoke(ctx context.Context, tool string, args any) (json.RawMessage, error) {
	a.calls++
	r, err := a.c.Request(ctx, connector.TypeToolInvoke, a.ch, map[string]any{
		"tool_id": tool, "arguments": args,
		"context": map[string]string{"tool_call_id": "bench_" + strconv.FormatUint(a.seq.Add(1), 10)}})
	if err != nil {
		return nil, err
	}
	if r.Error != nil {
		return nil, fmt.Errorf("%s: %s: %s", tool, r.Error.Code, r.Error.Message)
	}
	var ack struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(r.Payload, &ack); err != nil {
		return nil, err
	}
	return ack.Result, nil
}
