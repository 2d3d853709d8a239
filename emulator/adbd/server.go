package adbd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"
)

// DefaultFeatures is the feature list the device advertises in its banner.
var DefaultFeatures = []string{"shell_v2", "cmd", "stat_v2", "ls_v2", "fixed_push_mkdir"}

// ErrClosed is returned by Server methods after Close.
var ErrClosed = errors.New("adbd: server closed")

// Options configures a Server. The zero value is usable.
type Options struct {
	// Addr is the TCP address to listen on. Default "127.0.0.1:0" (a free
	// port). Keep devices off 5554-5585: the adb server scans those.
	Addr string
	// Logger receives connection and stream events. Default: discard.
	Logger *slog.Logger
	// Features overrides DefaultFeatures in the CNXN banner.
	Features []string
	// MaxData is the largest payload the device accepts and sends.
	// Default 1 MiB (the host's value is used when smaller).
	MaxData uint32
	// Unauthorized starts the device in unauthorized mode (see
	// Server.SetUnauthorized).
	Unauthorized bool
	// Link is the modelled cable or network (latency and bandwidth per
	// direction) every stream's messages pay. Default: instant.
	Link Link
}

// Server is the device side of one virtual device: a TCP listener speaking
// the ADB transport to any number of hosts. It is safe for concurrent use.
type Server struct {
	backend  Backend
	log      *slog.Logger
	banner   []byte
	maxData  uint32
	addr     string // fixed after the first Listen, reused by Vanish
	ctx      context.Context
	cancel   context.CancelFunc
	stopCtx  func() bool    // unregisters the shutdown on ctx's end
	wg       sync.WaitGroup // accept loops, connections, vanish timers, shutdown on ctx's end
	mu       sync.Mutex
	ln       net.Listener
	conns    map[*conn]struct{}
	unauth   bool
	accepted int64
	closed   bool
	vanished bool
	// xferFault is armed by DropDuringTransfer.
	xferFault *transferFault
	// wire applies Options.Link to every stream.
	wire *wire
}

// Listen starts a Server for backend on opts.Addr and begins accepting
// connections. ctx bounds the server's life: canceling it is like Close
// (Close must still be called to wait for the goroutines).
func Listen(ctx context.Context, backend Backend, opts Options) (*Server, error) {
	if backend == nil {
		return nil, errors.New("adbd: nil backend")
	}
	addr := opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	maxData := opts.MaxData
	if maxData == 0 {
		maxData = defaultMaxData
	}
	features := opts.Features
	if features == nil {
		features = DefaultFeatures
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("adbd: listen: %w", err)
	}
	id := backend.Identity()
	banner := fmt.Sprintf("device::ro.product.name=%s;ro.product.model=%s;ro.product.device=%s;features=%s",
		id.Product, id.Model, id.Device, strings.Join(features, ","))
	sctx, cancel := context.WithCancel(ctx)
	s := &Server{
		backend: backend,
		log:     log.With("addr", ln.Addr().String()),
		banner:  []byte(banner),
		maxData: maxData,
		addr:    ln.Addr().String(),
		ctx:     sctx,
		cancel:  cancel,
		ln:      ln,
		conns:   make(map[*conn]struct{}),
		unauth:  opts.Unauthorized,
		wire:    &wire{link: opts.Link},
	}
	s.wg.Add(2)
	go s.acceptLoop(ln)
	s.stopCtx = context.AfterFunc(sctx, func() {
		defer s.wg.Done()
		s.shutdown()
	})
	return s, nil
}

// Addr returns the listening address, "127.0.0.1:PORT". It stays the same
// across Vanish.
func (s *Server) Addr() string { return s.addr }

// Close stops listening, closes every host connection and waits for every
// goroutine the server started (including running shell commands, whose
// contexts are canceled). It is idempotent.
func (s *Server) Close() error {
	if s.stopCtx() {
		s.wg.Done() // the shutdown on ctx's end will not run
	}
	s.cancel()
	s.shutdown()
	s.wg.Wait()
	return nil
}

// shutdown closes the listener and connections without waiting.
func (s *Server) shutdown() {
	s.mu.Lock()
	s.closed = true
	ln := s.ln
	s.ln = nil
	s.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	s.DropLink()
}

// DropLink closes every current host connection now, as a pulled cable
// would; the listener stays up, so the adb server can reconnect.
func (s *Server) DropLink() {
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.close()
	}
}

// Vanish closes the listener and all connections, then listens again on the
// same port after d. Debian's adb server (29.0.6) marks a vanished TCP
// device "offline" and reconnects by itself: its first retry comes within
// about 0.3 s (so DropLink looks like a short blip), later ones about every
// 10 s (measured: back 10.3 s after Vanish(2s)); after about 60 s it removes
// the device, which then needs `adb connect` again.
func (s *Server) Vanish(d time.Duration) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	if s.vanished {
		s.mu.Unlock()
		return nil
	}
	s.vanished = true
	ln := s.ln
	s.ln = nil
	s.wg.Add(1)
	s.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	s.DropLink()
	go func() {
		defer s.wg.Done()
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		s.relisten()
	}()
	return nil
}

// relisten reopens the listener on the old address, retrying briefly while
// the port is still held by the kernel.
func (s *Server) relisten() {
	retry := time.NewTicker(50 * time.Millisecond)
	defer retry.Stop()
	for range 100 {
		ln, err := net.Listen("tcp", s.addr)
		if err == nil {
			s.mu.Lock()
			if s.closed {
				s.mu.Unlock()
				ln.Close()
				return
			}
			s.ln = ln
			s.vanished = false
			s.wg.Add(1)
			s.mu.Unlock()
			s.log.Debug("adbd: back after vanish")
			go s.acceptLoop(ln)
			return
		}
		s.log.Debug("adbd: relisten", "err", err)
		select {
		case <-s.ctx.Done():
			return
		case <-retry.C:
		}
	}
	s.log.Error("adbd: could not listen again after vanish", "addr", s.addr)
}

// SetUnauthorized switches unauthorized mode. When on, new connections get
// AUTH TOKEN instead of CNXN and every signature and public key is refused,
// so `adb devices` shows "unauthorized"; current connections are dropped so
// the host sees the change. When off, connections waiting for
// authorization are accepted at once (as when the user taps "Allow").
func (s *Server) SetUnauthorized(on bool) {
	s.mu.Lock()
	changed := s.unauth != on
	s.unauth = on
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	if !changed {
		return
	}
	for _, c := range conns {
		if on {
			c.close()
		} else {
			c.authorize()
		}
	}
}

func (s *Server) unauthorized() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unauth
}

// Connections returns the number of live host connections.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// Accepted returns how many host connections were accepted so far; tests
// use it to see a host reconnect after DropLink or Vanish.
func (s *Server) Accepted() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.accepted
}

func (s *Server) acceptLoop(ln net.Listener) {
	defer s.wg.Done()
	for {
		nc, err := ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				s.log.Debug("adbd: accept", "err", err)
			}
			return
		}
		c := newConn(s, nc)
		s.mu.Lock()
		if s.closed || s.ln != ln {
			s.mu.Unlock()
			nc.Close()
			continue
		}
		s.conns[c] = struct{}{}
		s.accepted++
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			c.serve()
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
		}()
	}
}
