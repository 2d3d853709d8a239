package admin

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Options configures Serve. The zero value is usable.
type Options struct {
	// Log receives connection errors and internal failures; default: discarded.
	Log *slog.Logger
	// IdleTimeout closes a connection silent for this long; default 1 minute.
	IdleTimeout time.Duration
	// RequestTimeout bounds one handler call; default 30 seconds.
	RequestTimeout time.Duration
}

type adminServer struct {
	ln     net.Listener
	h      Handler
	opts   Options
	path   string
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
}

// Serve listens on the Unix socket at path (mode 0600) and answers
// requests with h until ctx ends or close is called; close is idempotent,
// waits for every connection goroutine and removes the socket file. It
// refuses to start when a live server answers on path
// (ErrSocketInUse) or path is not a socket; a stale socket is replaced.
// The socket never exists with looser permissions: it is created in a
// private directory and renamed into place.
func Serve(ctx context.Context, path string, h Handler, opts Options) (close func() error, err error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = time.Minute
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = 30 * time.Second
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("admin socket %s: exists and is not a socket", path)
		}
		d := net.Dialer{Timeout: time.Second}
		if c, err := d.DialContext(ctx, "unix", path); err == nil {
			c.Close()
			return nil, fmt.Errorf("admin socket %s: %w", path, ErrSocketInUse)
		}
	}
	tmpDir, err := os.MkdirTemp(filepath.Dir(path), ".admin-")
	if err != nil {
		return nil, fmt.Errorf("admin socket: %w", err)
	}
	defer os.RemoveAll(tmpDir)
	tmp := filepath.Join(tmpDir, "s")
	ln, err := net.Listen("unix", tmp)
	if err != nil {
		return nil, fmt.Errorf("admin socket: %w", err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	if err := os.Chmod(tmp, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("admin socket: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		ln.Close()
		return nil, fmt.Errorf("admin socket: %w", err)
	}
	s := &adminServer{ln: ln, h: h, opts: opts, path: path, conns: map[net.Conn]struct{}{}}
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	var once sync.Once
	var closeErr error
	closeOnce := func() error {
		once.Do(func() { closeErr = s.close() })
		return closeErr
	}
	stop := context.AfterFunc(ctx, func() { closeOnce() })
	s.wg.Go(s.acceptLoop)
	return func() error { stop(); return closeOnce() }, nil
}

func (s *adminServer) close() error {
	s.mu.Lock()
	s.closed = true
	err := s.ln.Close()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	if rmErr := os.Remove(s.path); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
		err = errors.Join(err, rmErr)
	}
	return err
}

func (s *adminServer) acceptLoop() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if !closed {
				s.opts.Log.Error("admin socket accept failed; operator commands are unavailable", "err", err)
			}
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.wg.Go(func() {
			defer func() {
				s.mu.Lock()
				delete(s.conns, c)
				s.mu.Unlock()
				c.Close()
			}()
			s.serveConn(c)
		})
	}
}

func (s *adminServer) serveConn(c net.Conn) {
	r := bufio.NewScanner(c)
	r.Buffer(make([]byte, 4096), maxLine)
	enc := json.NewEncoder(c)
	for {
		c.SetReadDeadline(time.Now().Add(s.opts.IdleTimeout))
		if !r.Scan() {
			if err := r.Err(); err != nil && !errors.Is(err, net.ErrClosed) && !errors.Is(err, io.EOF) {
				s.opts.Log.Debug("admin connection ended", "err", err)
			}
			return
		}
		resp := s.handle(r.Bytes())
		c.SetWriteDeadline(time.Now().Add(s.opts.IdleTimeout))
		if err := enc.Encode(resp); err != nil {
			s.opts.Log.Debug("admin connection write failed", "err", err)
			return
		}
	}
}

func (s *adminServer) handle(line []byte) (resp Response) {
	req, ttl, err := DecodeRequest(line)
	if err != nil {
		return Response{Error: errorFor(err)}
	}
	ctx, cancel := context.WithTimeout(s.ctx, s.opts.RequestTimeout)
	defer cancel()
	switch req.Op {
	case OpDevices:
		resp.Devices, err = s.h.Devices(ctx)
	case OpPair:
		resp.Code, err = s.h.Pair(ctx, req.Serial, ttl, req.Force)
	case OpApprove:
		resp.Device, err = s.h.Approve(ctx, req.Code, req.Serial, req.Force)
	case OpUnbind:
		resp.Device, err = s.h.Unbind(ctx, req.Serial)
	case OpClearReset:
		resp.Device, err = s.h.ClearReset(ctx, req.Serial)
	case OpReset:
		resp.Device, err = s.h.Reset(ctx, req.Serial)
	case OpQuestions:
		resp.Questions, err = s.h.Questions(ctx)
	case OpAnswer:
		resp.Device, err = s.h.Answer(ctx, req.ID, req.Text)
	case OpDecline:
		resp.Device, err = s.h.Decline(ctx, req.ID)
	}
	if err != nil {
		ae := errorFor(err)
		if ae.Code == CodeInternal {
			s.opts.Log.Error("admin request failed", "op", req.Op, "err", err)
		} else {
			s.opts.Log.Debug("admin request refused", "op", req.Op, "error_code", ae.Code)
		}
		return Response{Error: ae}
	}
	resp.OK = true
	return resp
}
