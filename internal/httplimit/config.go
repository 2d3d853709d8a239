package httplimit

import (
	"log/slog"
	"syscall"
	"time"
)

// Default timeouts. The control plane reads no request bodies and answers in
// one small write, so the read and write bounds are short; idle keep-alive
// connections are cheap to reopen.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 20 * time.Second
	DefaultWriteTimeout      = 30 * time.Second
	DefaultIdleTimeout       = 90 * time.Second
)

const (
	// ReserveFDs is how many file descriptors an explicit MaxConns must
	// leave to the rest of the process: SQLite, adb sockets, virtual
	// devices, cached files, the admin socket and the listener itself.
	ReserveFDs = 64
	// maxDefaultConns caps the derived default: each connection costs a
	// goroutine and buffers, and a lab host serves a handful of xAgents.
	maxDefaultConns = 4096
	// maxDefaultPerIP caps the derived per-IP default.
	maxDefaultPerIP = 64
)

// Config bounds the HTTP server. The zero value of every field means the
// default documented on it.
type Config struct {
	// MaxConns caps open connections in total, /ws sockets included.
	// Default: half the soft RLIMIT_NOFILE, at most 4096, so the other half
	// stays for the database, adb and files.
	MaxConns int
	// MaxConnsPerIP caps open connections from one remote IP address, so
	// one client cannot take every slot. Default: half of MaxConns, at
	// most 64. Behind a reverse proxy every client shares the proxy's
	// address: raise it to MaxConns there.
	MaxConnsPerIP int
	// ReadHeaderTimeout bounds reading a request's headers, and how long a
	// new connection may stay silent. Default 10s.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request; no endpoint takes a body.
	// Default 20s.
	ReadTimeout time.Duration
	// WriteTimeout bounds writing a response, from the end of its request.
	// /ws clears it (hijack) and /files downloads extend it per chunk.
	// Default 30s.
	WriteTimeout time.Duration
	// IdleTimeout closes a keep-alive connection that sends no new request.
	// Default 90s.
	IdleTimeout time.Duration
	// Logger receives expected conditions (evictions, refusals,
	// descriptor exhaustion) at Debug; nil discards.
	Logger *slog.Logger
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	if c.MaxConns <= 0 {
		c.MaxConns = DefaultMaxConns(FileLimit())
	}
	if c.MaxConnsPerIP <= 0 {
		c.MaxConnsPerIP = min(maxDefaultPerIP, max(1, c.MaxConns/2))
	}
	if c.ReadHeaderTimeout <= 0 {
		c.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if c.ReadTimeout <= 0 {
		c.ReadTimeout = DefaultReadTimeout
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = DefaultWriteTimeout
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// DefaultMaxConns is the MaxConns default for a soft RLIMIT_NOFILE of
// nofile: half of it, at most 4096, at least 1.
func DefaultMaxConns(nofile uint64) int {
	return int(max(1, min(maxDefaultConns, nofile/2)))
}

// FileLimit returns the process's soft RLIMIT_NOFILE (the Go runtime raises
// it to the hard limit at start-up), or 1024 when it cannot be read.
func FileLimit() uint64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == 0 {
		return 1024
	}
	return rl.Cur
}
