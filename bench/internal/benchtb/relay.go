package benchtb

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
)

// Relay is a TCP relay on loopback that counts the bytes it forwards each
// way. Put between the adb server and a virtual phone (`adb connect` the
// relay's address), it meters the cable: every ADB message of every
// stream, whoever opened it. The phone's serial is then the relay's
// address. Its methods are safe for concurrent use.
type Relay struct {
	ln     net.Listener
	target string
	// down counts host -> device bytes, up device -> host.
	down, up atomic.Int64

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// StartRelay listens on a free port of 127.0.0.1 and forwards every
// connection to target.
func StartRelay(target string) (*Relay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &Relay{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

// Addr is the relay's "127.0.0.1:PORT".
func (r *Relay) Addr() string { return r.ln.Addr().String() }

// Bytes returns the bytes forwarded so far: down (host to device) and up
// (device to host).
func (r *Relay) Bytes() (down, up int64) { return r.down.Load(), r.up.Load() }

func (r *Relay) accept() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		d, err := net.Dial("tcp", r.target)
		if err != nil {
			c.Close()
			continue
		}
		if !r.track(c, d) {
			return
		}
		r.wg.Add(2)
		go r.pipe(d, c, &r.down)
		go r.pipe(c, d, &r.up)
	}
}

// track registers a connection pair, or closes it when the relay is closed.
func (r *Relay) track(cs ...net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		for _, c := range cs {
			c.Close()
		}
		return false
	}
	for _, c := range cs {
		r.conns[c] = struct{}{}
	}
	return true
}

// pipe copies src to dst, counting, and closes both when either side ends
// (an adb transport is all or nothing).
func (r *Relay) pipe(dst, src net.Conn, n *atomic.Int64) {
	defer r.wg.Done()
	io.Copy(countingWriter{dst, n}, src)
	dst.Close()
	src.Close()
	r.mu.Lock()
	delete(r.conns, dst)
	delete(r.conns, src)
	r.mu.Unlock()
}

type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	k, err := c.w.Write(p)
	c.n.Add(int64(k))
	return k, err
}

// Close stops listening, drops every connection and waits for the copies.
// Idempotent.
func (r *Relay) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	err := r.ln.Close()
	for c := range r.conns {
		c.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}
