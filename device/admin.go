package device

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

// The admin socket: operator commands (adb-connector devices | pair |
// approve | unbind) reach the running server over a Unix socket in the data
// directory. File permissions are the access control: the socket is 0600,
// owned by the user running serve. The server is the only database writer.
//
// Wire format: one JSON object per line each way.
//
//	-> {"op":"devices"}
//	<- {"ok":true,"devices":[{"serial":"...","endpoint":"...","state":"device","model":"...","bound":false}]}
//	-> {"op":"pair","serial":"R58M123ABC","ttl":"15m"}
//	<- {"ok":true,"code":"7K3M-Q9XD"}
//	-> {"op":"approve","code":"K7Q-M2X","serial":""}
//	<- {"ok":true,"device":"127.0.0.1:5037/R58M123ABC"}
//	-> {"op":"unbind","serial":"R58M123ABC"}
//	<- {"ok":true,"device":"127.0.0.1:5037/R58M123ABC"}
//	<- {"error":{"code":"device_in_use","message":"device is in use by another channel"}}

// AdminSocketName is the admin socket's file name in the data directory.
const AdminSocketName = "admin.sock"

// AdminSocketPath returns the admin socket's path for a data directory.
func AdminSocketPath(dataDir string) string { return filepath.Join(dataDir, AdminSocketName) }

// Admin operations.
const (
	OpDevices = "devices"
	OpPair    = "pair"
	OpApprove = "approve"
	OpUnbind  = "unbind"
)

// maxAdminLine bounds one request or response line.
const maxAdminLine = 1 << 20

// DeviceRow is one device as `adb-connector devices` shows it.
type DeviceRow struct {
	Serial   string `json:"serial"`
	Endpoint string `json:"endpoint"`
	State    string `json:"state"` // adb's word: device, offline, unauthorized, ...
	Model    string `json:"model"`
	Bound    bool   `json:"bound"`
}

// AdminRequest is one request line on the admin socket.
type AdminRequest struct {
	Op     string `json:"op"`
	Serial string `json:"serial,omitempty"`
	Code   string `json:"code,omitempty"`
	TTL    string `json:"ttl,omitempty"` // Go duration, e.g. "15m"; empty means the default
}

// AdminResponse is one response line: OK with the op's result, or Error.
type AdminResponse struct {
	OK      bool        `json:"ok,omitempty"`
	Devices []DeviceRow `json:"devices,omitempty"`
	Code    string      `json:"code,omitempty"`   // pair: the one-time code
	Device  string      `json:"device,omitempty"` // approve, unbind: "endpoint/serial"
	Error   *AdminError `json:"error,omitempty"`
}

// AdminError is a failed admin request: a stable code and a message safe to print.
type AdminError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *AdminError) Error() string { return e.Message }

// AdminHandler answers admin requests; the coordinator implements it with
// live device data, usually by embedding or wrapping *AdminService. Methods
// are called concurrently.
type AdminHandler interface {
	Devices(ctx context.Context) ([]DeviceRow, error)
	// Pair issues a one-time pairing code for the device (ttl 0: default).
	Pair(ctx context.Context, serial string, ttl time.Duration) (code string, err error)
	// Approve answers a device_request code; it returns the bound device key.
	Approve(ctx context.Context, code, serial string) (deviceKey string, err error)
	// Unbind revokes the device's binding; it returns the device key.
	Unbind(ctx context.Context, serial string) (deviceKey string, err error)
}

// ErrAdminSocketInUse: another live server already answers on the socket.
var ErrAdminSocketInUse = errors.New("admin socket is in use by a running server")

// DecodeAdminRequest parses and checks one request line.
func DecodeAdminRequest(line []byte) (AdminRequest, time.Duration, error) {
	var req AdminRequest
	if err := json.Unmarshal(line, &req); err != nil {
		return AdminRequest{}, 0, fmt.Errorf("%w: request is not a JSON object", ErrInvalidArgument)
	}
	if len(req.Serial) > maxSerialLen || len(req.Code) > maxCodeLen {
		return AdminRequest{}, 0, fmt.Errorf("%w: serial or code too long", ErrInvalidArgument)
	}
	var ttl time.Duration
	switch req.Op {
	case OpDevices:
	case OpPair, OpUnbind:
		if req.Serial == "" {
			return AdminRequest{}, 0, fmt.Errorf("%w: %s needs a serial", ErrInvalidArgument, req.Op)
		}
		if req.Op == OpPair && req.TTL != "" {
			d, err := time.ParseDuration(req.TTL)
			if err != nil || d <= 0 {
				return AdminRequest{}, 0, fmt.Errorf("%w: ttl must be a positive duration such as 15m", ErrInvalidArgument)
			}
			ttl = d
		}
	case OpApprove:
		if req.Code == "" {
			return AdminRequest{}, 0, fmt.Errorf("%w: approve needs a code", ErrInvalidArgument)
		}
	default:
		return AdminRequest{}, 0, fmt.Errorf("%w: unknown op", ErrInvalidArgument)
	}
	return req, ttl, nil
}

// adminErrorFor maps an error to the wire: the one place admin error codes
// are chosen. Unknown errors become "internal" without their detail.
func adminErrorFor(err error) *AdminError {
	for _, m := range []struct {
		err  error
		code string
	}{
		{ErrInvalidArgument, "invalid_argument"},
		{ErrUnknownDevice, "unknown_device"},
		{ErrAmbiguousSerial, "ambiguous_serial"},
		{ErrDeviceInUse, "device_in_use"},
		{ErrChannelBound, "channel_bound"},
		{ErrNotBound, "not_bound"},
		{ErrInvalidRequestCode, "invalid_code"},
		{ErrNoFreeDevice, "no_free_device"},
	} {
		if errors.Is(err, m.err) {
			return &AdminError{Code: m.code, Message: err.Error()}
		}
	}
	return &AdminError{Code: "internal", Message: "internal error, see the server log"}
}

// AdminOptions configures ServeAdmin. The zero value is usable.
type AdminOptions struct {
	// Log receives connection errors and internal failures; default: discarded.
	Log *slog.Logger
	// IdleTimeout closes a connection silent for this long; default 1 minute.
	IdleTimeout time.Duration
	// RequestTimeout bounds one handler call; default 30 seconds.
	RequestTimeout time.Duration
}

type adminServer struct {
	ln     net.Listener
	h      AdminHandler
	opts   AdminOptions
	path   string
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
}

// ServeAdmin listens on the Unix socket at path (mode 0600) and answers
// requests with h until ctx ends or close is called; close is idempotent,
// waits for every connection goroutine and removes the socket file. It
// refuses to start when a live server answers on path
// (ErrAdminSocketInUse) or path is not a socket; a stale socket is replaced.
// The socket never exists with looser permissions: it is created in a
// private directory and renamed into place.
func ServeAdmin(ctx context.Context, path string, h AdminHandler, opts AdminOptions) (close func() error, err error) {
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
			return nil, fmt.Errorf("admin socket %s: %w", path, ErrAdminSocketInUse)
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
	r.Buffer(make([]byte, 4096), maxAdminLine)
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

func (s *adminServer) handle(line []byte) (resp AdminResponse) {
	req, ttl, err := DecodeAdminRequest(line)
	if err != nil {
		return AdminResponse{Error: adminErrorFor(err)}
	}
	ctx, cancel := context.WithTimeout(s.ctx, s.opts.RequestTimeout)
	defer cancel()
	switch req.Op {
	case OpDevices:
		resp.Devices, err = s.h.Devices(ctx)
	case OpPair:
		resp.Code, err = s.h.Pair(ctx, req.Serial, ttl)
	case OpApprove:
		resp.Device, err = s.h.Approve(ctx, req.Code, req.Serial)
	case OpUnbind:
		resp.Device, err = s.h.Unbind(ctx, req.Serial)
	}
	if err != nil {
		ae := adminErrorFor(err)
		if ae.Code == "internal" {
			s.opts.Log.Error("admin request failed", "op", req.Op, "err", err)
		} else {
			s.opts.Log.Debug("admin request refused", "op", req.Op, "error_code", ae.Code)
		}
		return AdminResponse{Error: ae}
	}
	resp.OK = true
	return resp
}
