package adbd

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
)

// conn is one host connection. Its serve goroutine is the only reader of
// the socket; every goroutine may write whole messages under wmu. Each
// stream's service runs on its own goroutine, tracked by wg.
type conn struct {
	srv    *Server
	nc     net.Conn
	log    *slog.Logger
	ctx    context.Context // canceled when the connection ends
	cancel context.CancelFunc

	wmu sync.Mutex // serializes writes of whole messages
	hdr []byte     // header scratch, under wmu
	// skipSum: the host's version allows a zero data checksum.
	skipSum atomic.Bool

	mu        sync.Mutex
	streams   map[uint32]*stream
	nextID    uint32
	online    bool   // CNXN sent
	maxData   uint32 // negotiated payload limit
	hostAuth  bool   // host is waiting in AUTH (unauthorized mode)
	closeOnce sync.Once
	wg        sync.WaitGroup
}

func newConn(s *Server, nc net.Conn) *conn {
	ctx, cancel := context.WithCancel(s.ctx)
	return &conn{
		srv:     s,
		nc:      nc,
		log:     s.log.With("host", nc.RemoteAddr().String()),
		ctx:     ctx,
		cancel:  cancel,
		streams: make(map[uint32]*stream),
		nextID:  1,
		maxData: s.maxData,
	}
}

// close ends the connection: the socket closes, every stream's context is
// canceled and blocked stream reads and writes return. Safe to call many times.
func (c *conn) close() {
	c.closeOnce.Do(func() {
		c.cancel()
		c.nc.Close()
	})
}

// write sends one message (header and payload in one writev, without
// copying the payload); it fails once the connection is closed.
func (c *conn) write(m message) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.hdr = appendMessage(c.hdr[:0], message{command: m.command, arg0: m.arg0, arg1: m.arg1})
	fixHeader(c.hdr, m.data, c.skipSum.Load())
	bufs := net.Buffers{c.hdr, m.data}
	_, err := bufs.WriteTo(c.nc)
	if err != nil {
		c.close()
	}
	return err
}

// serve reads messages until the host goes away, then tears down all
// streams and waits for their goroutines.
func (c *conn) serve() {
	defer func() {
		c.close()
		c.mu.Lock()
		for _, st := range c.streams {
			st.remoteClosed()
		}
		c.mu.Unlock()
		c.wg.Wait()
	}()
	c.log.Debug("adbd: host connected")
	r := bufio.NewReaderSize(c.nc, 64<<10)
	for {
		m, err := readMessage(r, c.srv.maxData)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				c.log.Debug("adbd: read", "err", err)
			}
			return
		}
		if err := c.handle(m); err != nil {
			c.log.Debug("adbd: handle", "cmd", commandName(m.command), "err", err)
			return
		}
	}
}

// handle dispatches one message from the host.
func (c *conn) handle(m message) error {
	switch m.command {
	case cmdCNXN:
		return c.handleCNXN(m)
	case cmdAUTH:
		return c.handleAUTH(m)
	}
	c.mu.Lock()
	online := c.online
	c.mu.Unlock()
	if !online {
		return nil // adbd ignores stream traffic before the handshake
	}
	switch m.command {
	case cmdOPEN:
		return c.handleOPEN(m)
	case cmdOKAY:
		if st := c.stream(m.arg1); st != nil {
			st.acked()
		}
	case cmdWRTE:
		st := c.stream(m.arg1)
		if st == nil {
			// Unknown stream: tell the host it is gone.
			return c.write(message{command: cmdCLSE, arg0: 0, arg1: m.arg0})
		}
		st.deliver(m.data)
	case cmdCLSE:
		if st := c.stream(m.arg1); st != nil {
			st.remoteClosed()
		}
	default:
		c.log.Debug("adbd: ignoring message", "cmd", commandName(m.command))
	}
	return nil
}

func (c *conn) handleCNXN(m message) error {
	max := m.arg1
	if max == 0 || max > c.srv.maxData {
		max = c.srv.maxData
	}
	c.mu.Lock()
	c.maxData = max
	c.mu.Unlock()
	c.skipSum.Store(m.arg0 >= protocolVersion)
	c.log.Debug("adbd: CNXN", "version", m.arg0, "maxdata", m.arg1)
	if c.srv.unauthorized() {
		c.mu.Lock()
		c.hostAuth = true
		c.mu.Unlock()
		return c.sendAuthToken()
	}
	return c.sendCNXN()
}

func (c *conn) sendCNXN() error {
	c.mu.Lock()
	c.online = true
	c.hostAuth = false
	max := c.maxData
	c.mu.Unlock()
	return c.write(message{command: cmdCNXN, arg0: protocolVersion, arg1: max, data: c.srv.banner})
}

func (c *conn) sendAuthToken() error {
	token := make([]byte, 20)
	rand.Read(token)
	return c.write(message{command: cmdAUTH, arg0: authToken, data: token})
}

// handleAUTH refuses every signature (with a fresh token, so the host then
// offers its public key) and leaves public keys waiting, as a phone does
// while its "Allow USB debugging?" dialog is open.
func (c *conn) handleAUTH(m message) error {
	if !c.srv.unauthorized() {
		return c.sendCNXN()
	}
	switch m.arg0 {
	case authSignature:
		return c.sendAuthToken()
	case authRSAPublicKey:
		c.log.Debug("adbd: public key offered; waiting for authorization")
	}
	return nil
}

// authorize accepts a host waiting in AUTH (unauthorized mode turned off).
func (c *conn) authorize() {
	c.mu.Lock()
	waiting := c.hostAuth
	c.mu.Unlock()
	if waiting {
		c.sendCNXN()
	}
}

func (c *conn) stream(local uint32) *stream {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.streams[local]
}

// handleOPEN starts the named service on a new stream, or refuses it with
// CLSE(0, remote) as adbd does for unknown services.
func (c *conn) handleOPEN(m message) error {
	name := string(bytes.TrimRight(m.data, "\x00"))
	svc := lookupService(name)
	if svc == nil || m.arg0 == 0 {
		c.log.Debug("adbd: service refused", "service", redactService(name))
		return c.write(message{command: cmdCLSE, arg0: 0, arg1: m.arg0})
	}
	c.mu.Lock()
	id := c.nextID
	c.nextID++
	st := newStream(c, id, m.arg0, c.maxData)
	c.streams[id] = st
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		defer st.Close()
		// On a modelled link the OPEN arrives after its trip down; adbd
		// starts the service then, and its OKAY travels up meanwhile (the
		// service's first message travels behind it on the same lane).
		if !c.srv.wire.down(st.ctx, len(m.data)) || st.ctx.Err() != nil {
			return
		}
		if c.write(message{command: cmdOKAY, arg0: id, arg1: m.arg0}) != nil {
			return
		}
		c.srv.wire.book(&c.srv.wire.upLane, c.srv.wire.link.Up, 0)
		svc(st.ctx, c.srv, st, name)
	}()
	return nil
}

// forget removes a closed stream from the table.
func (c *conn) forget(id uint32) {
	c.mu.Lock()
	delete(c.streams, id)
	c.mu.Unlock()
}
