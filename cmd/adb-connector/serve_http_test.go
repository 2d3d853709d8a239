package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/connector/xagenttest"
	"github.com/adb-connector/adb-connector/internal/httplimit"
	"github.com/adb-connector/adb-connector/internal/testkit"
)

func TestServeHTTPLimitFlags(t *testing.T) {
	tests := []struct {
		name           string
		env, envPerIP  string
		args           []string
		nofile         uint64
		wantMax, wantI int
		wantErr        string
	}{
		{name: "derived", nofile: 1024, wantMax: 512, wantI: 64},
		{name: "derived, low limit", nofile: 128, wantMax: 64, wantI: 32},
		{name: "derived, high limit", nofile: 1 << 20, wantMax: 4096, wantI: 64},
		{name: "env", env: "100", envPerIP: "10", nofile: 1024, wantMax: 100, wantI: 10},
		{name: "flags replace env", env: "100", args: []string{"--max-conns", "200", "--max-conns-per-ip", "20"}, nofile: 1024, wantMax: 200, wantI: 20},
		{name: "per-IP equal to total", args: []string{"--max-conns", "50", "--max-conns-per-ip", "50"}, nofile: 1024, wantMax: 50, wantI: 50},
		{name: "at the reserve", args: []string{"--max-conns", "960"}, nofile: 1024, wantMax: 960, wantI: 64},
		{name: "past the reserve", args: []string{"--max-conns", "961"}, nofile: 1024, wantErr: "RLIMIT_NOFILE is 1024, so at most 960"},
		{name: "limit below the reserve", args: []string{"--max-conns", "1"}, nofile: 32, wantErr: "so at most 0"},
		{name: "negative", args: []string{"--max-conns", "-1"}, nofile: 1024, wantErr: "--max-conns -1"},
		{name: "negative per-IP", args: []string{"--max-conns-per-ip", "-5"}, nofile: 1024, wantErr: "--max-conns-per-ip -5"},
		{name: "per-IP above total", args: []string{"--max-conns", "10", "--max-conns-per-ip", "11"}, nofile: 1024, wantErr: "exceeds --max-conns 10"},
		{name: "per-IP above derived total", args: []string{"--max-conns-per-ip", "100"}, nofile: 128, wantErr: "exceeds --max-conns 64"},
		{name: "env not a number", env: "lots", nofile: 1024, wantErr: `ADB_CONNECTOR_MAX_CONNS="lots": want a whole number`},
		{name: "per-IP env not a number", envPerIP: "1e3", nofile: 1024, wantErr: `ADB_CONNECTOR_MAX_CONNS_PER_IP="1e3": want a whole number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("ADB_CONNECTOR_MAX_CONNS", tt.env)
			t.Setenv("ADB_CONNECTOR_MAX_CONNS_PER_IP", tt.envPerIP)
			fs := flag.NewFlagSet("serve", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			var hf *httpFlags
			names := registerSettings(fs, func(fs *flag.FlagSet) { hf = registerHTTPFlags(fs) })
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			given := map[string]bool{}
			fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
			err := applyEnv(fs, names, given)
			var cfg httplimit.Config
			if err == nil {
				cfg, err = hf.config(tt.nofile)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("config = %v, want an error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.MaxConns != tt.wantMax || cfg.MaxConnsPerIP != tt.wantI {
				t.Fatalf("caps %d/%d per IP, want %d/%d", cfg.MaxConns, cfg.MaxConnsPerIP, tt.wantMax, tt.wantI)
			}
			if cfg.IdleTimeout != httplimit.DefaultIdleTimeout || cfg.WriteTimeout != httplimit.DefaultWriteTimeout {
				t.Errorf("timeouts not defaulted: %+v", cfg)
			}
		})
	}
}

// TestServeBadMaxConnsIsAStartError: a bad cap stops serve before it
// listens, with a line naming the flag.
func TestServeBadMaxConnsIsAStartError(t *testing.T) {
	t.Setenv("ADB_CONNECTOR_API_KEY", "")
	err := runServe([]string{"--max-conns", "-3", "--data-dir", t.TempDir()}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--max-conns -3") {
		t.Fatalf("runServe = %v, want a --max-conns error", err)
	}
}

// rawConn is one HTTP/1.1 keep-alive connection from a chosen loopback
// source address (127.0.0.0/8 is all loopback on Linux), so one test can
// be many remotes.
type rawConn struct {
	net.Conn
	br *bufio.Reader
}

// hangGuard bounds every wait on the server; never what a test measures.
const hangGuard = 10 * time.Second

func dialFrom(addr, from string) (*rawConn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: hangGuard}
	nc, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	nc.SetDeadline(time.Now().Add(hangGuard))
	return &rawConn{Conn: nc, br: bufio.NewReader(nc)}, nil
}

func mustDialFrom(t *testing.T, addr, from string) *rawConn {
	t.Helper()
	c, err := dialFrom(addr, from)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// get sends GET path (with the API key) and returns the status and body;
// an error means the server did not answer on this connection.
func (c *rawConn) get(path string, hdr ...string) (int, string, error) {
	req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer %s\r\n%s\r\n", path, testKey, strings.Join(hdr, ""))
	if _, err := io.WriteString(c, req); err != nil {
		return 0, "", err
	}
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusSwitchingProtocols {
		err = nil // the body is the data plane
	}
	return resp.StatusCode, string(b), err
}

// closedByServer blocks until the server closes c; false on the hang guard.
func (c *rawConn) closedByServer() bool {
	_, err := c.br.Peek(1)
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

// health GETs /health on a fresh connection from from, and fails t unless
// it answers 200.
func health(t *testing.T, addr, from string) {
	t.Helper()
	c := mustDialFrom(t, addr, from)
	code, body, err := c.get("/health")
	if err != nil || code != http.StatusOK || !strings.Contains(body, `"status":"ok"`) {
		t.Fatalf("/health from %s: %d %q %v", from, code, body, err)
	}
	c.Close()
}

const wsUpgrade = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n" +
	"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: " + connector.Subprotocol + "\r\n"

// TestServeStaysUpAtNOFILELimit runs the real binary with RLIMIT_NOFILE
// 128 (soft and hard: the Go runtime raises the soft limit to the hard one
// at start-up) and opens more idle connections than that — silent ones
// and keep-alives that fetched the public Card — from several remotes.
// /health keeps answering, from a new remote and from a flooded one. Then
// one remote holds its cap of busy /ws sockets: its next connection is
// refused, another remote is still served.
func TestServeStaysUpAtNOFILELimit(t *testing.T) {
	t.Parallel()
	const nofile = 128 // derived caps: 64 in total, 32 per IP
	bin := binary(t)
	wrapper := filepath.Join(t.TempDir(), "adb-connector-nofile")
	script := fmt.Sprintf("#!/bin/sh\nulimit -n %d || exit 97\nexec %q \"$@\"\n", nofile, bin)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p := start(t, wrapper, t.TempDir(), privateADB(t)...)
	if lim, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", p.cmd.Process.Pid)); err == nil {
		if !regexp.MustCompile(`Max open files\s+` + strconv.Itoa(nofile) + `\s+` + strconv.Itoa(nofile) + `\s`).Match(lim) {
			t.Fatalf("server runs without the low limit:\n%s", lim)
		}
	}
	if !strings.Contains(p.Logs(), "max_conns=64 max_conns_per_ip=32") {
		t.Errorf("caps not derived from RLIMIT_NOFILE %d:\n%s", nofile, p.Logs())
	}

	// Silent connections, then keep-alives that fetch the Card and idle,
	// one after the other, from 127.0.0.1-4: 200 in all.
	for range 40 {
		mustDialFrom(t, p.addr, "127.0.0.5")
	}
	for i := range 160 {
		from := fmt.Sprintf("127.0.0.%d", 1+i%4)
		c := mustDialFrom(t, p.addr, from)
		if code, _, err := c.get("/connector-card.json"); err != nil || code != http.StatusOK {
			t.Errorf("idle connection %d from %s: Card not served (%d %v): the server stopped accepting", i, from, code, err)
			break
		}
	}
	health(t, p.addr, "127.0.0.6")
	health(t, p.addr, "127.0.0.1")

	// 32 /ws sockets (hijacked: busy, never evicted) fill 127.0.0.9's cap.
	for i := range 32 {
		c := mustDialFrom(t, p.addr, "127.0.0.9")
		if code, _, err := c.get("/ws", wsUpgrade); err != nil || code != http.StatusSwitchingProtocols {
			t.Fatalf("/ws %d: %d %v", i, code, err)
		}
	}
	if code, _, err := mustDialFrom(t, p.addr, "127.0.0.9").get("/health"); err == nil {
		t.Errorf("a remote at its cap of busy connections was served: %d", code)
	}
	health(t, p.addr, "127.0.0.10")

	_, metrics, err := mustDialFrom(t, p.addr, "127.0.0.11").get("/metrics")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`adb_connector_http_connections_rejected_total{reason="max_conns_per_ip"} 1`,
		`adb_connector_http_connections_evicted_total{reason="max_conns_per_ip"} `,
		`adb_connector_http_connections_evicted_total{reason="max_conns"} `,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	for _, zero := range []string{`evicted_total{reason="max_conns_per_ip"} 0`, `evicted_total{reason="max_conns"} 0`} {
		if strings.Contains(metrics, zero) {
			t.Errorf("/metrics: %s, want evictions", zero)
		}
	}
	if m := regexp.MustCompile(`(?m)^adb_connector_http_connections (\d+)$`).FindStringSubmatch(metrics); m == nil {
		t.Error("/metrics lacks adb_connector_http_connections")
	} else if n, _ := strconv.Atoi(m[1]); n > 64 {
		t.Errorf("adb_connector_http_connections = %d, past the cap of 64", n)
	}
	if strings.Contains(p.Logs(), "too many open files") {
		t.Errorf("the server ran out of file descriptors:\n%s", p.Logs())
	}
}

// startServeHTTP runs serve in-process (real flag parsing and wiring, a
// private adb server) with the HTTP limits replaced by h.
func startServeHTTP(t *testing.T, h httplimit.Config) string {
	t.Helper()
	t.Setenv("ADB_CONNECTOR_API_KEY", testKey)
	cfg, err := parseServeFlags(append([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir(),
		"--drain-timeout", "5s"}, privateADB(t)...), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cfg.HTTP = h
	logs := &testkit.LogBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan string, 1), make(chan error, 1)
	go func() { done <- serve(ctx, cfg, logs.JSONLogger(), ready) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	select {
	case addr := <-ready:
		return addr
	case err := <-done:
		t.Fatalf("serve: %v\n%s", err, logs.String())
	case <-time.After(setupWait):
		t.Fatalf("serve did not listen within %s", setupWait)
	}
	return ""
}

// TestServeWSOutlivesHTTPTimeouts: a /ws data plane is not cut by the
// server's read, write or idle timeouts (net/http clears a hijacked
// connection's deadlines; the socket keeps its own, protocol 3.0 §8):
// after a keep-alive connection opened later was closed by IdleTimeout,
// as long as every other timeout, ping still gets its pong.
func TestServeWSOutlivesHTTPTimeouts(t *testing.T) {
	const d = 200 * time.Millisecond
	addr := startServeHTTP(t, httplimit.Config{ReadHeaderTimeout: d, ReadTimeout: d, WriteTimeout: d, IdleTimeout: d})
	ctx := testCtx(t)
	c := xagenttest.New(t, "http://"+addr, xagenttest.Options{APIKey: testKey})
	if _, err := c.Hello(ctx, "device.adb", ""); err != nil {
		t.Fatal(err)
	}
	ka := mustDialFrom(t, addr, "127.0.0.1")
	if code, _, err := ka.get("/connector-card.json"); err != nil || code != http.StatusOK {
		t.Fatalf("Card: %d %v", code, err)
	}
	if !ka.closedByServer() {
		t.Fatal("keep-alive connection not closed by IdleTimeout")
	}
	r, err := c.Request(ctx, connector.TypePing, "", nil)
	if err != nil || r.Type != connector.TypePong {
		t.Fatalf("ping after the HTTP timeouts: %v %v", r, err)
	}
}
