package sshtunnel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/adb-connector/adb-connector/internal/tcpopt"
	"golang.org/x/crypto/ssh"
)

// Config configures the Tunnels of a server. The zero value offers the
// SSH agent's keys (else ~/.ssh/id_ed25519 and id_rsa) and checks host
// keys against ~/.ssh/known_hosts.
type Config struct {
	// KeyFiles are private key files to offer (unencrypted). Default: the
	// agent at SSH_AUTH_SOCK, else ~/.ssh/id_ed25519 and ~/.ssh/id_rsa.
	KeyFiles []string
	// AgentSocket is the SSH agent's socket. Default $SSH_AUTH_SOCK.
	AgentSocket string
	// KnownHosts is the known_hosts file host keys are checked against.
	// Default ~/.ssh/known_hosts.
	KnownHosts string
	// KeepAlive is the interval of keepalive@openssh.com requests on an
	// idle connection (ssh_config(5) ServerAliveInterval); one left
	// unanswered for as long again closes the connection, and with it the
	// host's adb connections. Default 15 s.
	KeepAlive time.Duration
	// Logger receives Debug/Info/Warn records. Default: discard.
	Logger *slog.Logger
}

// DefaultKeepAlive is Config.KeepAlive's default.
const DefaultKeepAlive = 15 * time.Second

func (cfg Config) withDefaults() Config {
	if cfg.KeepAlive <= 0 {
		cfg.KeepAlive = DefaultKeepAlive
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return cfg
}

// Tunnel is one lab host: at most one SSH connection to it, opened at the
// first Dial and again at the first Dial after it drops, and the adb
// connections carried as its channels. It is safe for concurrent use.
type Tunnel struct {
	t   Target
	cfg Config
	log *slog.Logger

	dialSem chan struct{} // one handshake at a time
	done    chan struct{} // closed by Close

	mu     sync.Mutex
	conn   *ssh.Client
	closed bool
	wg     sync.WaitGroup
	br     bridges
}

// New returns the Tunnel to t; it connects at the first Dial.
func New(t Target, cfg Config) *Tunnel {
	cfg = cfg.withDefaults()
	return &Tunnel{t: t, cfg: cfg, log: cfg.Logger.With("endpoint", t.Name()),
		dialSem: make(chan struct{}, 1), done: make(chan struct{})}
}

// Target is the endpoint this Tunnel reaches.
func (tu *Tunnel) Target() Target { return tu.t }

// ErrClosed is returned by a Dial after Close.
var ErrClosed = errors.New("ssh tunnel closed")

// Dial opens one connection to the lab host's adb server: a direct-tcpip
// channel (RFC 4254 section 7.2) on the host's SSH connection, which it
// opens first when there is none. ctx bounds the SSH handshake and the
// channel's opening. The connection is a local socket bridged to the
// channel (bridge.go), so it has deadlines and a non-blocking peek like a
// TCP connection. It has the signature of adb.DialFunc.
func (tu *Tunnel) Dial(ctx context.Context) (net.Conn, error) {
	cl, err := tu.client(ctx)
	if err != nil {
		return nil, err
	}
	ch, err := cl.DialContext(ctx, "tcp", tu.t.ADB)
	if err != nil {
		var oe *ssh.OpenChannelError
		if errors.As(err, &oe) {
			switch oe.Reason {
			case ssh.Prohibited:
				return nil, fmt.Errorf("ssh %s: %w to %s (%s): allow it in the lab host's sshd_config (AllowTcpForwarding yes, PermitOpen %s)",
					tu.t.Name(), ErrForwardRefused, tu.t.ADB, oe.Message, tu.t.ADB)
			case ssh.ConnectionFailed:
				return nil, fmt.Errorf("ssh %s: the lab host's adb server at %s does not answer (%s): start it there (adb start-server)",
					tu.t.Name(), tu.t.ADB, oe.Message)
			}
			return nil, fmt.Errorf("ssh %s: open channel to %s: %w", tu.t.Name(), tu.t.ADB, err)
		}
		// Anything else is the connection failing: the next Dial redials.
		tu.drop(cl, err)
		return nil, fmt.Errorf("ssh %s: open channel to %s: %w", tu.t.Name(), tu.t.ADB, err)
	}
	nc, err := tu.br.bridge(ch)
	if err != nil {
		_ = ch.Close()
		return nil, fmt.Errorf("ssh %s: %w", tu.t.Name(), err)
	}
	return nc, nil
}

// Check connects (if not connected) and reports whether the SSH side is
// sound: the host is reachable, its key known, one of our keys accepted.
// The doctor runs it before asking the adb server through the tunnel.
func (tu *Tunnel) Check(ctx context.Context) error {
	_, err := tu.client(ctx)
	return err
}

// client returns the live SSH connection, dialling it when there is none.
func (tu *Tunnel) client(ctx context.Context) (*ssh.Client, error) {
	if c, err := tu.current(); c != nil || err != nil {
		return c, err
	}
	select {
	case tu.dialSem <- struct{}{}:
		defer func() { <-tu.dialSem }()
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-tu.done:
		return nil, ErrClosed
	}
	// Another Dial may have connected while this one waited.
	if c, err := tu.current(); c != nil || err != nil {
		return c, err
	}
	c, err := tu.connect(ctx)
	if err != nil {
		return nil, err
	}
	tu.mu.Lock()
	if tu.closed {
		tu.mu.Unlock()
		_ = c.Close()
		return nil, ErrClosed
	}
	tu.conn = c
	tu.wg.Add(2)
	tu.mu.Unlock()
	tu.log.Info("ssh connected", "addr", tu.t.Addr)
	go tu.watch(c)
	go tu.keepAlive(c)
	return c, nil
}

func (tu *Tunnel) current() (*ssh.Client, error) {
	tu.mu.Lock()
	defer tu.mu.Unlock()
	if tu.closed {
		return nil, ErrClosed
	}
	return tu.conn, nil
}

// connect dials the SSH server and runs the handshake within ctx.
func (tu *Tunnel) connect(ctx context.Context) (*ssh.Client, error) {
	name := tu.t.Name()
	check, algos, err := tu.cfg.hostKeyCheck(tu.t.Addr)
	if err != nil {
		return nil, fmt.Errorf("ssh %s: %w", name, err)
	}
	keys, authDone, err := tu.cfg.auth()
	if err != nil {
		return nil, fmt.Errorf("ssh %s: %w", name, err)
	}
	defer authDone()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", tu.t.Addr)
	if err != nil {
		return nil, fmt.Errorf("ssh %s: %w", name, err)
	}
	stop := context.AfterFunc(ctx, func() { _ = nc.Close() })
	defer stop()
	var keyErr error
	authed := false // the host key passed and our keys were offered
	offer := ssh.PublicKeysCallback(func() ([]ssh.Signer, error) {
		authed = true
		return keys, nil
	})
	// sshd sets TCP_NODELAY only for interactive sessions, and a tunnel
	// has none: acknowledging at once keeps its Nagle from holding every
	// second small packet for our delayed ACK (package tcpopt).
	cc, chans, reqs, err := ssh.NewClientConn(tcpopt.Conn{Conn: nc}, tu.t.Addr, &ssh.ClientConfig{
		User: tu.t.User, Auth: []ssh.AuthMethod{offer}, HostKeyAlgorithms: algos,
		HostKeyCallback: func(host string, remote net.Addr, key ssh.PublicKey) error {
			keyErr = check(host, remote, key)
			return keyErr
		},
	})
	if err != nil {
		_ = nc.Close()
		switch {
		case keyErr != nil:
			return nil, fmt.Errorf("ssh %s: %w", name, keyErr)
		case ctx.Err() != nil:
			return nil, fmt.Errorf("ssh %s: handshake: %w", name, ctx.Err())
		case authed:
			// x/crypto/ssh has no sentinel for "unable to authenticate";
			// a handshake that got to our keys and failed was refused them.
			return nil, fmt.Errorf("ssh %s: %w: the lab host accepted none of our keys for user %s (add our public key to its authorized_keys)",
				name, ErrAuth, tu.t.User)
		}
		return nil, fmt.Errorf("ssh %s: handshake: %w", name, err)
	}
	return ssh.NewClient(cc, chans, reqs), nil
}

// watch forgets c once it ends, so the next Dial redials; its channels end
// with it, which the adb client sees as its server going down.
func (tu *Tunnel) watch(c *ssh.Client) {
	defer tu.wg.Done()
	err := c.Wait()
	tu.drop(c, err)
}

// drop forgets c (if still current) and closes it.
func (tu *Tunnel) drop(c *ssh.Client, err error) {
	tu.mu.Lock()
	was := tu.conn == c
	if was {
		tu.conn = nil
	}
	closed := tu.closed
	tu.mu.Unlock()
	_ = c.Close()
	if was && !closed {
		tu.log.Warn("ssh connection lost", "addr", tu.t.Addr, "err", err)
	}
}

// keepAlive sends keepalive@openssh.com every KeepAlive; an answer (even
// a refusal) proves the peer alive, none within KeepAlive closes c.
func (tu *Tunnel) keepAlive(c *ssh.Client) {
	defer tu.wg.Done()
	tick := time.NewTicker(tu.cfg.KeepAlive)
	defer tick.Stop()
	for {
		select {
		case <-tu.done:
			return
		case <-tick.C:
		}
		dead := time.AfterFunc(tu.cfg.KeepAlive, func() { tu.drop(c, errors.New("keepalive unanswered")) })
		_, _, err := c.SendRequest("keepalive@openssh.com", true, nil)
		dead.Stop()
		if err != nil {
			return
		}
	}
}

// Close closes the SSH connection and every connection bridged through it,
// and waits for the Tunnel's goroutines. It is idempotent.
func (tu *Tunnel) Close() error {
	tu.mu.Lock()
	if tu.closed {
		tu.mu.Unlock()
		return nil
	}
	tu.closed = true
	c := tu.conn
	tu.conn = nil
	close(tu.done)
	tu.mu.Unlock()
	if c != nil {
		_ = c.Close()
	}
	tu.br.closeAll()
	tu.wg.Wait()
	return nil
}
