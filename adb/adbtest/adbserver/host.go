package adbserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// ErrFail is a FAIL reply of the adb server; the error text carries its
// message.
var ErrFail = errors.New("adb server: FAIL")

// Dial opens a host-protocol connection to the adb server at addr; ctx
// bounds the dial and, through a deadline, the connection's use.
func Dial(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	context.AfterFunc(ctx, func() { c.SetDeadline(time.Unix(1, 0)) })
	return c, nil
}

// Request sends one host request ("%04x" length prefix) and reads the
// OKAY/FAIL status.
func Request(c net.Conn, req string) error {
	if _, err := fmt.Fprintf(c, "%04x%s", len(req), req); err != nil {
		return err
	}
	var st [4]byte
	if _, err := io.ReadFull(c, st[:]); err != nil {
		return err
	}
	switch string(st[:]) {
	case "OKAY":
		return nil
	case "FAIL":
		msg, err := ReadHex(c)
		if err != nil {
			return err
		}
		return fmt.Errorf("%w: %s", ErrFail, msg)
	}
	return fmt.Errorf("adb server: bad status %q", st[:])
}

// ReadHex reads a "%04x"-prefixed string.
func ReadHex(r io.Reader) (string, error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return "", err
	}
	n, err := strconv.ParseUint(string(h[:]), 16, 16)
	if err != nil {
		return "", fmt.Errorf("adb server: bad length %q", h[:])
	}
	b := make([]byte, n)
	_, err = io.ReadFull(r, b)
	return string(b), err
}

// Query sends a host request that answers one hex-prefixed string
// (host:version, host:devices, host:devices-l) and returns it.
func Query(ctx context.Context, addr, req string) (string, error) {
	c, err := Dial(ctx, addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if err := Request(c, req); err != nil {
		return "", err
	}
	return ReadHex(c)
}

// State returns serial's state in `host:devices` ("device", "offline",
// "unauthorized", ...) or "" when it is not listed.
func State(ctx context.Context, addr, serial string) (string, error) {
	list, err := Query(ctx, addr, "host:devices")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(list, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == serial {
			return f[1], nil
		}
	}
	return "", nil
}

// WaitState polls host:devices every 20 ms until serial is in state want
// ("" = gone) or ctx ends; it returns the last state seen with ctx's error.
func WaitState(ctx context.Context, addr, serial, want string) (string, error) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	last := "?"
	for {
		qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		st, err := State(qctx, addr, serial)
		cancel()
		if err == nil {
			last = st
			if st == want {
				return st, nil
			}
		}
		select {
		case <-ctx.Done():
			return last, fmt.Errorf("%s: state %q, want %q: %w", serial, last, want, ctx.Err())
		case <-tick.C:
		}
	}
}

// Connect runs the host request host:connect:ADDR and returns its text
// ("connected to ...", "already connected to ...", or a failure: the
// request's status is OKAY either way, as with `adb connect`).
func Connect(ctx context.Context, server, device string) (string, error) {
	return Query(ctx, server, "host:connect:"+device)
}
