package adb

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// DefaultEndpoint is the local adb server's usual address.
const DefaultEndpoint = "127.0.0.1:5037"

// normalizeEndpoint turns "host" or "host:port" into "host:port" (port 5037
// by default).
func normalizeEndpoint(ep string) (string, error) {
	ep = strings.TrimSpace(ep)
	if ep == "" {
		return DefaultEndpoint, nil
	}
	if strings.Contains(ep, "/") {
		return "", fmt.Errorf("adb endpoint %q: must be host:port", ep)
	}
	host, port, err := net.SplitHostPort(ep)
	if err != nil {
		host, port = ep, "5037"
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if p, err := strconv.Atoi(port); err != nil || p <= 0 || p > 65535 {
		return "", fmt.Errorf("adb endpoint %q: bad port", ep)
	}
	return net.JoinHostPort(host, port), nil
}

// checkEndpointName checks the name of an endpoint with a dialer of its
// own (Config.Dialers): it starts device keys, "NAME/SERIAL".
func checkEndpointName(name string) error {
	if strings.TrimSpace(name) != name || name == "" || strings.Contains(name, "/") {
		return fmt.Errorf("adb endpoint %q: a dialer's name must be non-empty, without spaces around or \"/\"", name)
	}
	return nil
}

// isLoopback reports whether endpoint's host is this machine.
func isLoopback(endpoint string) bool {
	host, _, err := net.SplitHostPort(endpoint)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// startable reports whether ep's adb server is this machine's, which
// StartLocalServer may start: a loopback address dialled over TCP.
func (c *Client) startable(ep string) bool {
	return c.cfg.Dialers[ep] == nil && isLoopback(ep)
}

// ServerVersion returns the adb server's host protocol version
// (host:version, e.g. 41). Default timeout: 5 s.
func (c *Client) ServerVersion(ctx context.Context, endpoint string) (int, error) {
	ctx, cancel := withDefaultTimeout(ctx, 5*time.Second)
	defer cancel()
	s, err := c.hostQuery(ctx, endpoint, "host:version")
	if err != nil {
		return 0, fmt.Errorf("adb version %s: %w", endpoint, err)
	}
	v, err := strconv.ParseInt(s, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("adb version %s: %w: %q", endpoint, ErrProtocol, s)
	}
	return int(v), nil
}

// ensureLocalServer starts the adb server for a loopback endpoint (New
// calls it for those only) that does not answer, using
// `adb -P PORT start-server`.
func (c *Client) ensureLocalServer(ctx context.Context, endpoint string) error {
	if _, err := c.ServerVersion(ctx, endpoint); err == nil {
		return nil
	} else if !errors.Is(err, ErrServerUnavailable) {
		return err
	}
	bin := c.cfg.ADBPath
	if bin == "" {
		bin = "adb"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return fmt.Errorf("adb server at %s is not running and %q is not on PATH: install it (apt-get install -y adb)", endpoint, bin)
	}
	_, port, _ := net.SplitHostPort(endpoint)
	ctx, cancel := withDefaultTimeout(ctx, 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "-P", port, "start-server")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("start adb server on %s: %w: %s", endpoint, err, strings.TrimSpace(string(out)))
	}
	c.log.Info("started local adb server", "endpoint", endpoint)
	_, err = c.ServerVersion(ctx, endpoint)
	return err
}

// withDefaultTimeout applies d when ctx has no deadline of its own.
func withDefaultTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok || d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// Connect asks the adb server at endpoint to connect to a network device
// ("host:port", as `adb connect`). Default timeout: 10 s.
func (c *Client) Connect(ctx context.Context, endpoint, addr string) error {
	return c.netDeviceQuery(ctx, endpoint, "connect", addr, "connected to", "already connected to")
}

// Disconnect asks the adb server at endpoint to drop a network device (as
// `adb disconnect`), which KeepConnected then no longer keeps. Default
// timeout: 10 s.
func (c *Client) Disconnect(ctx context.Context, endpoint, addr string) error {
	c.unkeep(endpoint, addr)
	return c.netDeviceQuery(ctx, endpoint, "disconnect", addr, "disconnected")
}

// netDeviceQuery sends host:<op>:<addr> to the adb server at endpoint
// (default timeout 10 s) and succeeds when the reply starts with one of
// okPrefixes; any other reply is a *FailError. Errors are wrapped "<op> <addr>".
func (c *Client) netDeviceQuery(ctx context.Context, endpoint, op, addr string, okPrefixes ...string) error {
	ctx, cancel := withDefaultTimeout(ctx, 10*time.Second)
	defer cancel()
	s, err := c.hostQuery(ctx, endpoint, "host:"+op+":"+addr)
	if err != nil {
		return fmt.Errorf("%s %s: %w", op, addr, err)
	}
	for _, p := range okPrefixes {
		if strings.HasPrefix(s, p) {
			return nil
		}
	}
	return fmt.Errorf("%s %s: %w", op, addr, &FailError{Message: s})
}
