// Package adminclient is the operator CLI's side of the admin Unix socket
// that `adb-connector serve` listens on in its data directory (server side
// and wire format: Serve).
package admin

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"sync"
	"syscall"
	"time"
)

// ErrNotRunning: nothing listens on the socket (missing file or refused).
var ErrNotRunning = errors.New("no server is listening on the admin socket")

// DefaultTimeout bounds a call whose context has no deadline.
const DefaultTimeout = 30 * time.Second

// ErrBroken: an earlier call on this Client failed mid-exchange (canceled,
// timed out, connection lost), so its response may still be on the way;
// the connection was closed rather than let a later call read it. Dial again.
var ErrBroken = errors.New("admin connection closed after an earlier failed call")

// Client is one connection to the admin socket. Calls are serialised; safe
// for concurrent use. A call that fails while sending or receiving closes
// the connection: later calls return ErrBroken.
type Client struct {
	mu     sync.Mutex
	conn   net.Conn
	r      *bufio.Reader
	broken bool
}

// Dial connects to the admin socket at path (SocketPath). It
// returns an error matching ErrNotRunning when no server listens there.
func Dial(ctx context.Context, path string) (*Client, error) {
	var d net.Dialer
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("%w: %s", ErrNotRunning, path)
		}
		return nil, fmt.Errorf("dial admin socket: %w", err)
	}
	return &Client{conn: c, r: bufio.NewReader(c)}, nil
}

// Close closes the connection. Safe to call more than once.
func (c *Client) Close() error {
	err := c.conn.Close()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// call sends one request and reads its response. A server-side refusal is
// returned as *Error (code and printable message).
func (c *Client) call(ctx context.Context, req Request) (Response, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken {
		return Response{}, fmt.Errorf("admin %s: %w", req.Op, ErrBroken)
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(DefaultTimeout)
	}
	c.conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { c.conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	b, err := json.Marshal(req)
	if err != nil {
		return Response{}, err
	}
	if _, err := c.conn.Write(append(b, '\n')); err != nil {
		return Response{}, c.fail(ctx, req.Op, err)
	}
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		return Response{}, c.fail(ctx, req.Op, err)
	}
	var resp Response
	if err := json.Unmarshal(line, &resp); err != nil {
		return Response{}, fmt.Errorf("admin %s: bad response: %w", req.Op, err)
	}
	if resp.Error != nil {
		return Response{}, resp.Error
	}
	if !resp.OK {
		return Response{}, fmt.Errorf("admin %s: response is neither ok nor an error", req.Op)
	}
	return resp, nil
}

// fail closes the connection after an I/O error, so a response that is
// still coming is never read as the answer to a later call; c.mu is held.
func (c *Client) fail(ctx context.Context, op string, err error) error {
	c.broken = true
	c.conn.Close()
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	return fmt.Errorf("admin %s: %w", op, err)
}

// Devices lists the devices the server sees, with their binding.
func (c *Client) Devices(ctx context.Context) ([]DeviceRow, error) {
	resp, err := c.call(ctx, Request{Op: OpDevices})
	if resp.Devices == nil && err == nil {
		resp.Devices = []DeviceRow{}
	}
	return resp.Devices, err
}

// Option adjusts a request: Force.
type Option func(*Request)

// Force is the Option of Pair and Approve that acts on a device another
// channel holds (Request.Force).
func Force(r *Request) { r.Force = true }

// Pair asks for a one-time pairing code for serial; ttl 0 means the
// server's default. With Force it is issued for a device another channel
// holds.
func (c *Client) Pair(ctx context.Context, serial string, ttl time.Duration, opts ...Option) (string, error) {
	req := Request{Op: OpPair, Serial: serial}
	for _, o := range opts {
		o(&req)
	}
	if ttl != 0 {
		req.TTL = ttl.String()
	}
	resp, err := c.call(ctx, req)
	return resp.Code, err
}

// Approve answers a device_request code, binding its channel to serial or,
// when serial is empty, to any free online device. It returns the bound
// device's "endpoint/serial". With Force it takes a device another
// channel holds.
func (c *Client) Approve(ctx context.Context, code, serial string, opts ...Option) (string, error) {
	req := Request{Op: OpApprove, Code: code, Serial: serial}
	for _, o := range opts {
		o(&req)
	}
	resp, err := c.call(ctx, req)
	return resp.Device, err
}

// Unbind revokes the binding of the device with this serial and returns
// its "endpoint/serial".
func (c *Client) Unbind(ctx context.Context, serial string) (string, error) {
	resp, err := c.call(ctx, Request{Op: OpUnbind, Serial: serial})
	return resp.Device, err
}

// ClearReset drops the reset the device with this serial owes (its reset
// failed, or it was away when released), so it is handed out again; it
// returns its "endpoint/serial".
func (c *Client) ClearReset(ctx context.Context, serial string) (string, error) {
	resp, err := c.call(ctx, Request{Op: OpClearReset, Serial: serial})
	return resp.Device, err
}

// Reset starts the reset the device owes at once; it returns the device
// key without waiting for the outcome.
func (c *Client) Reset(ctx context.Context, serial string) (string, error) {
	resp, err := c.call(ctx, Request{Op: OpReset, Serial: serial})
	return resp.Device, err
}

// Questions lists the agents' open questions, oldest first.
func (c *Client) Questions(ctx context.Context) ([]Question, error) {
	resp, err := c.call(ctx, Request{Op: OpQuestions})
	if resp.Questions == nil && err == nil {
		resp.Questions = []Question{}
	}
	return resp.Questions, err
}

// Answer answers question id with text ("" none: the question expects
// done, or either); it returns the device the question was about.
func (c *Client) Answer(ctx context.Context, id, text string) (string, error) {
	resp, err := c.call(ctx, Request{Op: OpAnswer, ID: id, Text: text})
	return resp.Device, err
}

// Decline declines question id; it returns the device it was about.
func (c *Client) Decline(ctx context.Context, id string) (string, error) {
	resp, err := c.call(ctx, Request{Op: OpDecline, ID: id})
	return resp.Device, err
}
