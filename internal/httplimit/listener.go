package httplimit

import (
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"
)

// Reasons, the label values of the rejected and evicted counters.
const (
	reasonMaxConns = "max_conns"        // the total cap was reached
	reasonPerIP    = "max_conns_per_ip" // the remote's cap was reached
	reasonFDs      = "fd_exhausted"     // accept failed with EMFILE or ENFILE
)

// Listener wraps a net.Listener with the caps of a [Config]. Connections are
// tracked from Accept until closed; [Listener.Server] hooks the server's
// ConnState so the Listener knows which connections are idle.
//
// At a cap, Accept closes the oldest idle connection (a keep-alive between
// requests, or a new one that has not sent a request yet) of that remote
// (per-IP cap) or of anyone (total cap) to make room. When no connection is
// idle — all are in a request, or hijacked /ws sockets — the new connection
// is closed at once, without a response: a 503 would need a write that a
// client that does not read could stall. A connection counts as idle until
// net/http has read a whole request head from it, so a client trickling
// headers is evictable too. When accept itself fails because
// the process is out of file descriptors, the oldest idle connection is
// closed to free one and the error is returned; net/http's Serve retries
// such temporary errors after a pause (5 ms, doubling up to 1 s).
//
// Safe for concurrent use.
type Listener struct {
	inner net.Listener
	cfg   Config
	log   *slog.Logger

	rejected *prometheus.CounterVec
	evicted  *prometheus.CounterVec
	open     prometheus.GaugeFunc

	mu    sync.Mutex
	seq   uint64 // orders idle connections: smaller = idle longer
	conns map[*conn]struct{}
	perIP map[netip.Addr]int
}

// NewListener wraps inner; zero fields of cfg take their defaults.
func NewListener(inner net.Listener, cfg Config) *Listener {
	cfg = cfg.WithDefaults()
	l := &Listener{
		inner: inner,
		cfg:   cfg,
		log:   cfg.Logger,
		conns: map[*conn]struct{}{},
		perIP: map[netip.Addr]int{},
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adb_connector_http_connections_rejected_total",
			Help: "HTTP connections closed at accept because a cap was reached and none was idle, by cap."}, []string{"reason"}),
		evicted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adb_connector_http_connections_evicted_total",
			Help: "Idle HTTP connections closed to make room, by cause."}, []string{"reason"}),
	}
	l.open = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "adb_connector_http_connections",
		Help: "Open HTTP connections, /ws sockets included."}, func() float64 { return float64(l.Len()) })
	for _, r := range []string{reasonMaxConns, reasonPerIP} {
		l.rejected.WithLabelValues(r)
		l.evicted.WithLabelValues(r)
	}
	l.evicted.WithLabelValues(reasonFDs)
	return l
}

// Config returns the Listener's configuration with defaults applied.
func (l *Listener) Config() Config { return l.cfg }

// Collectors returns the Listener's metrics, for the server's registry.
func (l *Listener) Collectors() []prometheus.Collector {
	return []prometheus.Collector{l.rejected, l.evicted, l.open}
}

// Len returns the number of open connections.
func (l *Listener) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

// Addr returns the inner listener's address.
func (l *Listener) Addr() net.Addr { return l.inner.Addr() }

// Close closes the inner listener; open connections stay open (http.Server
// closes them on Shutdown).
func (l *Listener) Close() error { return l.inner.Close() }

// Accept waits for a connection within the caps. See [Listener].
func (l *Listener) Accept() (net.Conn, error) {
	for {
		nc, err := l.inner.Accept()
		if err != nil {
			if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
				l.evictFor(netip.Addr{}, reasonFDs)
			}
			return nil, err
		}
		if c := l.admit(nc); c != nil {
			return c, nil
		}
	}
}

// admit tracks nc, making room by evicting if a cap is reached, or closes
// it and returns nil.
func (l *Listener) admit(nc net.Conn) *conn {
	ip := remoteIP(nc)
	l.mu.Lock()
	var victim *conn
	reason := ""
	switch {
	case ip.IsValid() && l.perIP[ip] >= l.cfg.MaxConnsPerIP:
		reason, victim = reasonPerIP, l.oldestIdleLocked(ip)
	case len(l.conns) >= l.cfg.MaxConns:
		reason, victim = reasonMaxConns, l.oldestIdleLocked(netip.Addr{})
	}
	if reason != "" && victim == nil {
		l.mu.Unlock()
		// Counted before the close, so whoever sees the close sees the count.
		l.rejected.WithLabelValues(reason).Inc()
		nc.Close()
		l.log.Debug("connection refused: cap reached, none idle", "reason", reason, "remote", ip.String())
		return nil
	}
	if victim != nil {
		l.removeLocked(victim)
	}
	c := &conn{Conn: nc, l: l, ip: ip}
	l.markIdleLocked(c) // a new connection is idle until its first request
	l.conns[c] = struct{}{}
	l.perIP[ip]++
	l.mu.Unlock()
	if victim != nil {
		l.evict(victim, reason)
	}
	return c
}

// evictFor closes the oldest idle connection of ip (any remote when ip is
// the zero Addr). It reports whether there was one.
func (l *Listener) evictFor(ip netip.Addr, reason string) bool {
	l.mu.Lock()
	v := l.oldestIdleLocked(ip)
	if v != nil {
		l.removeLocked(v)
	}
	l.mu.Unlock()
	if v == nil {
		l.log.Debug("accept failed and no idle connection to close", "reason", reason)
		return false
	}
	l.evict(v, reason)
	return true
}

func (l *Listener) evict(v *conn, reason string) {
	l.evicted.WithLabelValues(reason).Inc() // before the close: see admit
	v.Conn.Close()                          // the server's read fails and it forgets the connection
	l.log.Debug("idle connection closed to make room", "reason", reason, "remote", v.ip.String())
}

// oldestIdleLocked returns the connection idle longest, of ip or of any
// remote when ip is the zero Addr; nil if none is idle. A linear scan: it
// runs only at a cap, over at most MaxConns entries.
func (l *Listener) oldestIdleLocked(ip netip.Addr) *conn {
	var best *conn
	for c := range l.conns {
		if !c.idle || ip.IsValid() && c.ip != ip {
			continue
		}
		if best == nil || c.idleSeq < best.idleSeq {
			best = c
		}
	}
	return best
}

func (l *Listener) markIdleLocked(c *conn) {
	l.seq++
	c.idle, c.idleSeq = true, l.seq
}

// removeLocked forgets c; false if it was already gone.
func (l *Listener) removeLocked(c *conn) bool {
	if _, ok := l.conns[c]; !ok {
		return false
	}
	delete(l.conns, c)
	if l.perIP[c.ip]--; l.perIP[c.ip] <= 0 {
		delete(l.perIP, c.ip)
	}
	return true
}

// connState is the http.Server.ConnState hook: it tells idle connections
// (between requests) from busy ones (in a request, or hijacked by /ws).
func (l *Listener) connState(nc net.Conn, st http.ConnState) {
	c, ok := nc.(*conn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, tracked := l.conns[c]; !tracked {
		return
	}
	switch st {
	case http.StateIdle:
		l.markIdleLocked(c)
	case http.StateActive, http.StateHijacked:
		c.idle = false
	case http.StateClosed:
		l.removeLocked(c)
	}
}

// conn is an accepted connection; closing it frees its slot.
type conn struct {
	net.Conn
	l  *Listener
	ip netip.Addr
	// guarded by l.mu
	idle    bool
	idleSeq uint64
}

// Close frees the slot and closes the connection. Safe to call more than once.
func (c *conn) Close() error {
	c.l.mu.Lock()
	c.l.removeLocked(c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

// CloseWrite half-closes a TCP connection: net/http uses it to flush a
// response before closing a connection whose request body it did not read.
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Conn.Close()
}

// remoteIP is the connection's remote address, IPv4-mapped IPv6 unmapped so
// one client has one key; the zero Addr when it is not an IP address.
func remoteIP(nc net.Conn) netip.Addr {
	if ap, err := netip.ParseAddrPort(nc.RemoteAddr().String()); err == nil {
		return ap.Addr().Unmap()
	}
	return netip.Addr{}
}
