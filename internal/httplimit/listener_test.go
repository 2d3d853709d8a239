package httplimit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// waitBound bounds every wait for something the server does; it is a hang
// guard, never what a test measures.
const waitBound = 10 * time.Second

// testServer is a Listener on 127.0.0.1 served by its own http.Server.
// GET /block waits until release is closed; every other path answers "ok".
type testServer struct {
	l       *Listener
	addr    string
	entered chan struct{} // one value per request inside /block
	release chan struct{}
}

func newTestServer(t *testing.T, cfg Config) *testServer {
	t.Helper()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return serveOn(t, inner, cfg)
}

func serveOn(t *testing.T, inner net.Listener, cfg Config) *testServer {
	t.Helper()
	ts := &testServer{addr: inner.Addr().String(), entered: make(chan struct{}, 16), release: make(chan struct{})}
	ts.l = NewListener(inner, cfg)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /block", func(w http.ResponseWriter, r *http.Request) {
		ts.entered <- struct{}{}
		<-ts.release
		io.WriteString(w, "ok")
	})
	mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	mux.HandleFunc("GET /hijack", func(w http.ResponseWriter, r *http.Request) {
		nc, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer nc.Close()
		brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
		brw.Flush()
		// Echo lines until the client closes: a long-lived upgraded socket.
		for {
			line, err := brw.ReadString('\n')
			if err != nil {
				return
			}
			if _, err := brw.WriteString(line); err != nil || brw.Flush() != nil {
				t.Errorf("hijacked write: %v", err)
				return
			}
		}
	})
	hs := ts.l.Server(mux)
	done := make(chan struct{})
	go func() { defer close(done); hs.Serve(ts.l) }()
	t.Cleanup(func() {
		select {
		case <-ts.release:
		default:
			close(ts.release)
		}
		hs.Close()
		<-done
	})
	return ts
}

// enter waits until n requests are inside /block.
func (ts *testServer) enter(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case <-ts.entered:
		case <-time.After(waitBound):
			t.Fatal("request did not reach the handler")
		}
	}
}

// waitIdle waits until n tracked connections are idle.
func (ts *testServer) waitIdle(t *testing.T, n int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d idle connections", n), func() bool {
		ts.l.mu.Lock()
		defer ts.l.mu.Unlock()
		idle := 0
		for c := range ts.l.conns {
			if c.idle {
				idle++
			}
		}
		return idle == n
	})
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitBound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond) // polling, bounded above
	}
}

// client is one raw HTTP/1.1 keep-alive connection from a chosen loopback
// source address.
type client struct {
	net.Conn
	br *bufio.Reader
}

func dial(t *testing.T, addr, from string) *client {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: waitBound}
	nc, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(waitBound))
	return &client{Conn: nc, br: bufio.NewReader(nc)}
}

// get sends GET path and reads the response; an error means the server
// closed the connection.
func (c *client) get(path string) (string, error) {
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: test\r\n\r\n", path); err != nil {
		return "", err
	}
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// closedByServer reports whether the server closed c (EOF or reset on read).
func (c *client) closedByServer() bool {
	_, err := c.br.Peek(1)
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

func mustGet(t *testing.T, c *client, path string) {
	t.Helper()
	if body, err := c.get(path); err != nil || body != "ok" {
		t.Fatalf("GET %s from %s: %q %v", path, c.LocalAddr(), body, err)
	}
}

func TestWithDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		nofile uint64
		want   int
	}{{0, 1}, {1, 1}, {64, 32}, {1024, 512}, {1 << 20, 4096}, {^uint64(0), 4096}}
	for _, tt := range tests {
		if got := DefaultMaxConns(tt.nofile); got != tt.want {
			t.Errorf("DefaultMaxConns(%d) = %d, want %d", tt.nofile, got, tt.want)
		}
	}
	perIP := []struct{ max, want int }{{1, 1}, {2, 1}, {32, 16}, {512, 64}}
	for _, tt := range perIP {
		if got := (Config{MaxConns: tt.max}).WithDefaults().MaxConnsPerIP; got != tt.want {
			t.Errorf("MaxConns %d: per-IP default %d, want %d", tt.max, got, tt.want)
		}
	}
	c := Config{}.WithDefaults()
	if c.MaxConns != DefaultMaxConns(FileLimit()) || c.ReadHeaderTimeout != DefaultReadHeaderTimeout ||
		c.ReadTimeout != DefaultReadTimeout || c.WriteTimeout != DefaultWriteTimeout || c.IdleTimeout != DefaultIdleTimeout {
		t.Errorf("zero Config defaults: %+v", c)
	}
}

// TestPerIPCapRefusesWhenBusy: a remote at its cap with every connection in
// a request is refused; another remote is still served.
func TestPerIPCapRefusesWhenBusy(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, Config{MaxConns: 8, MaxConnsPerIP: 2})
	for range 2 {
		c := dial(t, ts.addr, "127.0.0.1")
		go c.get("/block")
	}
	ts.enter(t, 2)
	if _, err := dial(t, ts.addr, "127.0.0.1").get("/"); err == nil {
		t.Fatal("third connection from a busy remote was served")
	}
	mustGet(t, dial(t, ts.addr, "127.0.0.2"), "/")
	if got := testutil.ToFloat64(ts.l.rejected.WithLabelValues(reasonPerIP)); got != 1 {
		t.Errorf("rejected{max_conns_per_ip} = %v, want 1", got)
	}
}

// TestPerIPCapEvictsOldestIdle: at its cap, a remote's longest-idle
// connection makes room for its new one; its other connections stay.
func TestPerIPCapEvictsOldestIdle(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, Config{MaxConns: 8, MaxConnsPerIP: 2})
	other := dial(t, ts.addr, "127.0.0.2")
	mustGet(t, other, "/")
	oldest := dial(t, ts.addr, "127.0.0.1")
	mustGet(t, oldest, "/")
	ts.waitIdle(t, 2)
	newer := dial(t, ts.addr, "127.0.0.1")
	mustGet(t, newer, "/")
	ts.waitIdle(t, 3)
	mustGet(t, dial(t, ts.addr, "127.0.0.1"), "/")
	if !oldest.closedByServer() {
		t.Fatal("oldest idle connection of the remote was not evicted")
	}
	mustGet(t, newer, "/")
	mustGet(t, other, "/") // another remote's older idle connection is untouched
	if got := testutil.ToFloat64(ts.l.evicted.WithLabelValues(reasonPerIP)); got != 1 {
		t.Errorf("evicted{max_conns_per_ip} = %v, want 1", got)
	}
}

// TestTotalCap: at the total cap the longest-idle connection of any remote
// makes room (a silent new connection counts as idle); when every
// connection is busy, the new one is refused.
func TestTotalCap(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, Config{MaxConns: 2, MaxConnsPerIP: 2})
	silent := dial(t, ts.addr, "127.0.0.1") // never sends a request
	ts.waitIdle(t, 1)
	busy := dial(t, ts.addr, "127.0.0.2")
	go busy.get("/block")
	ts.enter(t, 1)
	c := dial(t, ts.addr, "127.0.0.3")
	go c.get("/block")
	ts.enter(t, 1)
	if !silent.closedByServer() {
		t.Fatal("idle connection was not evicted at the total cap")
	}
	if _, err := dial(t, ts.addr, "127.0.0.4").get("/"); err == nil {
		t.Fatal("served past the total cap with every connection busy")
	}
	if got := testutil.ToFloat64(ts.l.rejected.WithLabelValues(reasonMaxConns)); got != 1 {
		t.Errorf("rejected{max_conns} = %v, want 1", got)
	}
	if got := testutil.ToFloat64(ts.l.evicted.WithLabelValues(reasonMaxConns)); got != 1 {
		t.Errorf("evicted{max_conns} = %v, want 1", got)
	}
	close(ts.release)
	waitFor(t, "slots freed after close", func() bool {
		busy.Close()
		c.Close()
		return ts.l.Len() == 0
	})
}

// flakyListener fails Accept with EMFILE while fail is set, as accept(2)
// does when the process has no descriptor left.
type flakyListener struct {
	net.Listener
	fail atomic.Int32
}

func (f *flakyListener) Accept() (net.Conn, error) {
	if f.fail.Load() > 0 {
		f.fail.Add(-1)
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: f.Addr(), Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return f.Listener.Accept()
}

// TestFDExhaustionEvictsIdle: an EMFILE from accept closes the longest-idle
// connection and is returned as a temporary error, which net/http's Serve
// retries: the server keeps answering.
func TestFDExhaustionEvictsIdle(t *testing.T) {
	t.Parallel()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fl := &flakyListener{Listener: inner}
	ts := serveOn(t, fl, Config{MaxConns: 8, MaxConnsPerIP: 8})
	idle := dial(t, ts.addr, "127.0.0.1")
	mustGet(t, idle, "/")
	ts.waitIdle(t, 1)
	// Serve may already wait in Accept: the failure then hits the accept
	// after 127.0.0.2's, and idle is still the longest idle.
	fl.fail.Store(1)
	mustGet(t, dial(t, ts.addr, "127.0.0.2"), "/")
	if !idle.closedByServer() {
		t.Fatal("idle connection was not closed on EMFILE")
	}
	mustGet(t, dial(t, ts.addr, "127.0.0.3"), "/") // Serve retried
	if got := testutil.ToFloat64(ts.l.evicted.WithLabelValues(reasonFDs)); got != 1 {
		t.Errorf("evicted{fd_exhausted} = %v, want 1 (one idle connection to close)", got)
	}

	l := NewListener(&flakyListener{Listener: inner}, Config{})
	l.inner.(*flakyListener).fail.Store(1)
	_, err = l.Accept()
	var ne net.Error
	//lint:ignore SA1019 net/http's Serve retries on exactly this
	if !errors.As(err, &ne) || !ne.Temporary() {
		t.Fatalf("EMFILE from Accept = %v, want a temporary net.Error", err)
	}
}

// upgrade opens a connection from 127.0.0.1 and hijacks it with GET /hijack.
func (ts *testServer) upgrade(t *testing.T) *client {
	t.Helper()
	up := dial(t, ts.addr, "127.0.0.1")
	fmt.Fprintf(up, "GET /hijack HTTP/1.1\r\nHost: test\r\n\r\n")
	resp, err := http.ReadResponse(up.br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	return up
}

func (c *client) echo(t *testing.T) {
	t.Helper()
	if _, err := fmt.Fprintf(c, "ping\n"); err != nil {
		t.Fatal(err)
	}
	if line, err := c.br.ReadString('\n'); err != nil || line != "ping\n" {
		t.Fatalf("hijacked socket: %q %v", line, err)
	}
}

// TestHijackedConnOutlivesTimeouts: net/http clears the deadlines its
// ReadTimeout and WriteTimeout set when a handler hijacks the connection
// (as websocket.Accept does): an upgraded socket still echoes after a
// keep-alive connection opened later was closed by IdleTimeout, as long as
// every other timeout.
func TestHijackedConnOutlivesTimeouts(t *testing.T) {
	t.Parallel()
	const d = 50 * time.Millisecond
	ts := newTestServer(t, Config{ReadHeaderTimeout: d, ReadTimeout: d, WriteTimeout: d, IdleTimeout: d})
	up := ts.upgrade(t)
	ka := dial(t, ts.addr, "127.0.0.1")
	mustGet(t, ka, "/")
	if !ka.closedByServer() { // blocks until IdleTimeout closes it
		t.Fatal("keep-alive connection was not closed")
	}
	up.echo(t)
}

// TestHijackedConnNotEvicted: a hijacked socket is busy, never idle: at the
// total cap a younger idle connection is evicted instead.
func TestHijackedConnNotEvicted(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, Config{MaxConns: 2, MaxConnsPerIP: 2})
	up := ts.upgrade(t)
	idle := dial(t, ts.addr, "127.0.0.2")
	mustGet(t, idle, "/")
	ts.waitIdle(t, 1)
	mustGet(t, dial(t, ts.addr, "127.0.0.3"), "/")
	if !idle.closedByServer() {
		t.Fatal("idle connection was not evicted")
	}
	up.echo(t)
}
