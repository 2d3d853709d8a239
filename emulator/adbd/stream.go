package adbd

import (
	"context"
	"errors"
	"io"
	"sync"
)

// errStreamClosed is returned by writes on a stream the host or the
// service has closed.
var errStreamClosed = errors.New("adbd: stream closed")

// stream is one ADB stream (a service opened by the host). It is an
// io.ReadWriteCloser for the service goroutine, with the flow control adbd
// uses when the host has no delayed-ack feature: one WRTE in flight in each
// direction. Our WRTE waits for the host's OKAY; the host's WRTE is
// acknowledged with OKAY when the service takes its data.
type stream struct {
	c       *conn
	local   uint32
	remote  uint32
	maxData int
	ctx     context.Context
	cancel  context.CancelFunc

	in      chan []byte   // host data; capacity 1 (one WRTE in flight)
	okay    chan struct{} // host's OKAY for our last WRTE
	done    chan struct{} // closed when the stream ends (either side)
	pending []byte        // data taken from in, not yet read

	wmu      sync.Mutex // one writer at a time (one WRTE in flight)
	mu       sync.Mutex
	ended    bool
	sentCLSE bool
}

func newStream(c *conn, local, remote, maxData uint32) *stream {
	ctx, cancel := context.WithCancel(c.ctx)
	return &stream{
		c:       c,
		local:   local,
		remote:  remote,
		maxData: int(maxData),
		ctx:     ctx,
		cancel:  cancel,
		in:      make(chan []byte, 1),
		okay:    make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
}

// deliver hands a host WRTE payload to the stream (reader goroutine). The
// host may not send another before our OKAY, so the channel has room; a host
// that breaks that rule loses the extra data, as with adbd.
func (s *stream) deliver(data []byte) {
	select {
	case s.in <- data:
	default:
		s.c.log.Debug("adbd: WRTE before OKAY; dropped", "stream", s.local)
	}
}

// acked records the host's OKAY for our last WRTE. (remote is known from
// the OPEN: handleOPEN refuses a zero host id.)
func (s *stream) acked() {
	select {
	case s.okay <- struct{}{}:
	default:
	}
}

// remoteClosed marks the stream closed by the host (or the connection
// gone): reads return io.EOF once buffered data is consumed, writes fail,
// and the service's context is canceled.
func (s *stream) remoteClosed() {
	s.mu.Lock()
	s.sentCLSE = true // the host forgot the stream; no CLSE back
	s.end()
	s.mu.Unlock()
}

// end closes done once; s.mu held.
func (s *stream) end() {
	if !s.ended {
		s.ended = true
		close(s.done)
		s.cancel()
	}
}

// Read returns the host's data (stdin, sync requests). It returns io.EOF
// after the stream ends.
func (s *stream) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(s.pending) == 0 {
		var data []byte
		select {
		case data = <-s.in:
		case <-s.done:
			select {
			case data = <-s.in:
			default:
				return 0, io.EOF
			}
		}
		// On a modelled link the chunk arrives after its trip down (a
		// stream that ends meanwhile cuts the wait short; data already
		// sent is still delivered), and the service has it then. Taking
		// the chunk frees the slot: our OKAY lets the host send the next
		// one once it has made its trip up, while the service goes on.
		s.c.srv.wire.down(s.ctx, len(data))
		s.pending = data
		s.c.srv.wire.upAfter(func() {
			select {
			case <-s.done:
			default:
				_ = s.c.write(message{command: cmdOKAY, arg0: s.local, arg1: s.remote})
			}
		})
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

// Write sends p to the host in WRTE messages of at most maxData bytes,
// each after the host acknowledged the previous one.
func (s *stream) Write(p []byte) (int, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	written := 0
	for len(p) > 0 {
		n := min(len(p), s.maxData)
		select {
		case <-s.done:
			return written, errStreamClosed
		default:
		}
		// On a modelled link the chunk reaches the host after its trip up.
		if !s.c.srv.wire.up(s.ctx, n) {
			return written, errStreamClosed
		}
		if err := s.c.write(message{command: cmdWRTE, arg0: s.local, arg1: s.remote, data: p[:n]}); err != nil {
			return written, err
		}
		select {
		case <-s.okay:
		case <-s.done:
			return written, errStreamClosed
		}
		// ... and the host's OKAY reaches us after its trip down.
		if !s.c.srv.wire.down(s.ctx, 0) {
			return written, errStreamClosed
		}
		written += n
		p = p[n:]
	}
	return written, nil
}

// Close ends the stream from the device side (CLSE to the host) and frees
// its id. The host answers with its own CLSE, which is ignored. Idempotent.
func (s *stream) Close() error {
	s.mu.Lock()
	send := !s.sentCLSE
	s.sentCLSE = true
	s.end()
	s.mu.Unlock()
	s.c.forget(s.local)
	if send {
		return s.c.write(message{command: cmdCLSE, arg0: s.local, arg1: s.remote})
	}
	return nil
}
