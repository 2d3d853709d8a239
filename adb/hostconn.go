package adb

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// defaultDialTimeout bounds connecting to an adb server when the context
// allows longer.
const defaultDialTimeout = 3 * time.Second

// maxHostPayload is the largest request or length-prefixed reply the host
// protocol can carry (4 hex digits).
const maxHostPayload = 0xffff

// hostConn is one connection to an adb server speaking the host protocol:
// requests are a 4-hex-digit length and the payload, answers are OKAY or
// FAIL followed by a length-prefixed message. It is not safe for concurrent
// use; a cancelled or expired context closes it at once.
type hostConn struct {
	// tid is the adb server's transport id of the device this connection
	// was switched to (openService), 0 if unknown.
	tid  int64
	nc   net.Conn
	br   *bufio.Reader
	ctx  context.Context
	stop func() bool
}

// dialHost connects to the adb server of endpoint ep: through its
// Config.Dialers entry when it has one, else over TCP to ep. The dial takes
// at most Config.DialTimeout; the connection is closed when ctx is done.
func (c *Client) dialHost(ctx context.Context, ep string) (*hostConn, error) {
	var nc net.Conn
	var err error
	if dial := c.cfg.Dialers[ep]; dial != nil {
		dctx, cancel := context.WithTimeout(ctx, c.cfg.DialTimeout)
		nc, err = dial(dctx)
		cancel()
	} else {
		d := net.Dialer{Timeout: c.cfg.DialTimeout}
		nc, err = d.DialContext(ctx, "tcp", ep)
	}
	if err != nil {
		if cerr := ctxError(ctx, "dial "+ep, nil); cerr != nil {
			return nil, cerr
		}
		return nil, fmt.Errorf("dial %s: %w: %w", ep, ErrServerUnavailable, err)
	}
	hc := &hostConn{nc: nc, br: bufio.NewReaderSize(nc, 64<<10), ctx: ctx}
	hc.stop = context.AfterFunc(ctx, func() { _ = nc.Close() })
	return hc, nil
}

// Close closes the connection; it is safe to call more than once.
func (c *hostConn) Close() error {
	c.stop()
	return c.nc.Close()
}

// fail wraps an I/O error with op, preferring the context's reason when the
// context is what closed the connection.
func (c *hostConn) fail(op string, err error) error {
	if cerr := ctxError(c.ctx, op, err); cerr != err {
		return cerr
	}
	return fmt.Errorf("%s: %w", op, err)
}

// send writes one framed request.
func (c *hostConn) send(req string) error {
	if len(req) > maxHostPayload {
		return fmt.Errorf("adb request too long (%d bytes)", len(req))
	}
	buf := make([]byte, 0, 4+len(req))
	buf = fmt.Appendf(buf, "%04x", len(req))
	buf = append(buf, req...)
	if _, err := c.nc.Write(buf); err != nil {
		return c.fail("send", err)
	}
	return nil
}

// status reads OKAY, or FAIL and its message mapped to a typed error.
func (c *hostConn) status() error {
	var st [4]byte
	if _, err := io.ReadFull(c.br, st[:]); err != nil {
		return c.fail("read status", err)
	}
	switch string(st[:]) {
	case "OKAY":
		return nil
	case "FAIL":
		msg, err := c.readHex()
		if err != nil {
			return err
		}
		return failToError(msg)
	}
	return fmt.Errorf("%w: unexpected status %q", ErrProtocol, st[:])
}

// readHex reads one length-prefixed string.
func (c *hostConn) readHex() (string, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(c.br, hdr[:]); err != nil {
		return "", c.fail("read length", err)
	}
	n, err := parseHexLen(hdr[:])
	if err != nil {
		return "", err
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(c.br, buf); err != nil {
		return "", c.fail("read payload", err)
	}
	return string(buf), nil
}

// parseHexLen decodes the 4-hex-digit length prefix of the host protocol.
func parseHexLen(hdr []byte) (int, error) {
	if len(hdr) != 4 {
		return 0, fmt.Errorf("%w: length prefix %q", ErrProtocol, hdr)
	}
	n, err := strconv.ParseUint(string(hdr), 16, 16)
	if err != nil {
		return 0, fmt.Errorf("%w: length prefix %q", ErrProtocol, hdr)
	}
	return int(n), nil
}

// request sends req and checks the answer.
func (c *hostConn) request(req string) error {
	if err := c.send(req); err != nil {
		return err
	}
	return c.status()
}

// hostQuery runs a host service that answers with one length-prefixed string
// (host:version, host:devices-l, host-serial:S:features, ...).
func (cl *Client) hostQuery(ctx context.Context, ep, req string) (string, error) {
	c, err := cl.dialHost(ctx, ep)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if err := c.request(req); err != nil {
		return "", err
	}
	return c.readHex()
}

// openService connects to serial's transport on the adb server of ep and
// opens service on the device. The returned connection carries the
// service's raw stream and knows the transport id (host:tport:serial:,
// adb 1.0.41+; host:transport: on older servers), so a device that dropped
// and reconnected during the stream is told apart from one that stayed.
func (cl *Client) openService(ctx context.Context, ep, serial, service string) (*hostConn, error) {
	c, err := cl.dialHost(ctx, ep)
	if err != nil {
		return nil, err
	}
	err = c.request("host:tport:serial:" + serial)
	if err == nil {
		var id [8]byte
		if _, err = io.ReadFull(c.br, id[:]); err != nil {
			c.Close()
			return nil, c.fail("read transport id", err)
		}
		c.tid = int64(binary.LittleEndian.Uint64(id[:]))
	} else if fe := (*FailError)(nil); errors.As(err, &fe) && strings.Contains(fe.Message, "unknown host service") {
		c.Close()
		if c, err = cl.dialHost(ctx, ep); err != nil {
			return nil, err
		}
		err = c.request("host:transport:" + serial)
	}
	if err != nil {
		c.Close()
		return nil, transportError(err)
	}
	if err := c.request(service); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// transportError is a failure to select a device's transport. The adb
// server's FAIL message names the device ("device 'SERIAL' not found"),
// which the caller knows already (DeviceError.Key) and may not show, so a
// classified failure is its bare sentinel.
func transportError(err error) error {
	for _, s := range []error{ErrUnauthorized, ErrDeviceOffline, ErrDeviceNotFound} {
		if errors.Is(err, s) {
			return s
		}
	}
	return err
}

// isDrop reports whether err means the peer went away: end of stream,
// reset, or a closed connection.
func isDrop(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE)
}
