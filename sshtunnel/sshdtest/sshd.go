// Package sshdtest runs Debian's real OpenSSH server (/usr/sbin/sshd) on
// loopback for tests and benchmarks: its own host key, one authorized
// user key made for the run, the current user as the login. Nothing is
// mocked: the SSH path under test is the one a lab host serves.
package sshdtest

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Binary is Debian's sshd.
const Binary = "/usr/sbin/sshd"

// InstallHint is the failure when sshd is missing.
const InstallHint = "sshd not found at " + Binary + ": install it with `apt-get install -y openssh-server` (make test-deps runs scripts/ensure-sshd.sh)"

// Options configures a Server. The zero value allows forwarding anywhere.
type Options struct {
	// Config are sshd_config lines placed before the defaults (sshd keeps
	// the first value of a keyword), e.g. "AllowTcpForwarding no" or
	// "PermitOpen none".
	Config []string
	// Dir holds the keys and config. Default: a new temporary directory
	// (removed by Close).
	Dir string
}

// Server is one running sshd.
type Server struct {
	// Addr is "127.0.0.1:PORT"; Port its port; User the login (the
	// current user).
	Addr string
	Port int
	User string
	// KeyFile is the authorized private key; KnownHosts a known_hosts
	// file holding this server's host key.
	KeyFile    string
	KnownHosts string
	// HostKey is the server's public host key.
	HostKey ssh.PublicKey

	dir, conf string
	ownDir    bool
	mu        sync.Mutex
	cmd       *exec.Cmd
	done      chan struct{}
	log       bytes.Buffer // sshd's stderr (-e), all runs
}

// Start starts sshd on a free loopback port and waits until it listens.
func Start(opts Options) (*Server, error) {
	if _, err := os.Stat(Binary); err != nil {
		return nil, errors.New(InstallHint)
	}
	u, err := user.Current()
	if err != nil {
		return nil, err
	}
	s := &Server{User: u.Username, dir: opts.Dir}
	if s.dir == "" {
		if s.dir, err = os.MkdirTemp("", "sshdtest-"); err != nil {
			return nil, err
		}
		s.ownDir = true
	}
	fail := func(err error) (*Server, error) {
		s.Close()
		return nil, err
	}
	// sshd's privilege separation directory (Debian creates it at boot
	// through systemd-tmpfiles; a container has none).
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		return fail(fmt.Errorf("sshd needs /run/sshd: %w", err))
	}
	hostPriv, err := WriteKey(filepath.Join(s.dir, "host_ed25519"))
	if err != nil {
		return fail(err)
	}
	if s.HostKey, err = ssh.NewPublicKey(hostPriv.Public()); err != nil {
		return fail(err)
	}
	s.KeyFile = filepath.Join(s.dir, "id_ed25519")
	userPriv, err := WriteKey(s.KeyFile)
	if err != nil {
		return fail(err)
	}
	userPub, err := ssh.NewPublicKey(userPriv.Public())
	if err != nil {
		return fail(err)
	}
	if err := os.WriteFile(filepath.Join(s.dir, "authorized_keys"), ssh.MarshalAuthorizedKey(userPub), 0o600); err != nil {
		return fail(err)
	}
	if s.Port, err = freePort(); err != nil {
		return fail(err)
	}
	s.Addr = "127.0.0.1:" + strconv.Itoa(s.Port)
	s.KnownHosts = filepath.Join(s.dir, "known_hosts")
	if err := os.WriteFile(s.KnownHosts, []byte(KnownHostsLine(s.Addr, s.HostKey)), 0o600); err != nil {
		return fail(err)
	}
	s.conf = filepath.Join(s.dir, "sshd_config")
	lines := append(append([]string(nil), opts.Config...),
		"Port "+strconv.Itoa(s.Port),
		"ListenAddress 127.0.0.1",
		"HostKey "+filepath.Join(s.dir, "host_ed25519"),
		"PidFile none",
		"AuthorizedKeysFile "+filepath.Join(s.dir, "authorized_keys"),
		"AuthenticationMethods publickey",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"PermitRootLogin prohibit-password",
		"StrictModes no",
		"UsePAM no",
		"PermitTTY no",
		"X11Forwarding no",
		"AllowAgentForwarding no",
		"AllowTcpForwarding local",
		"MaxStartups 64:30:256",
		"LogLevel VERBOSE",
	)
	if err := os.WriteFile(s.conf, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		return fail(err)
	}
	if err := s.start(); err != nil {
		return fail(err)
	}
	return s, nil
}

// StartT starts a Server for t (failing it with InstallHint when sshd is
// missing) and closes it in t.Cleanup.
func StartT(t testing.TB, opts Options) *Server {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	s, err := Start(opts)
	if err != nil {
		t.Fatalf("sshdtest: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// URL is the --adb value reaching adb (an adb server's "host:port" as
// this machine sees it) through this sshd.
func (s *Server) URL(adb string) string {
	return "ssh://" + s.User + "@" + s.Addr + "/" + adb
}

// start runs sshd -D -e and waits for "Server listening".
func (s *Server) start() error {
	cmd := exec.Command(Binary, "-D", "-e", "-f", s.conf)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start sshd: %w", err)
	}
	done := make(chan struct{})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		once := false
		for sc.Scan() {
			s.mu.Lock()
			s.log.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			if !once && strings.Contains(sc.Text(), "Server listening") {
				once = true
				close(ready)
			}
		}
		_ = cmd.Wait()
		close(done)
	}()
	s.mu.Lock()
	s.cmd, s.done = cmd, done
	s.mu.Unlock()
	select {
	case <-ready:
		return nil
	case <-done:
		return fmt.Errorf("sshd exited: %s", s.Log())
	case <-time.After(20 * time.Second):
		s.Kill()
		return fmt.Errorf("sshd not listening within 20 s: %s", s.Log())
	}
}

// Log is what sshd wrote so far (all runs).
func (s *Server) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// Kill kills sshd and every process it forked for a connection (those
// start sessions of their own, sshd(8), so a process group kill misses
// them): the connections it carried drop at once, as when a lab host
// goes down. It waits for the listener to exit.
func (s *Server) Kill() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	for _, pid := range descendants(cmd.Process.Pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	_ = cmd.Process.Kill()
	<-done
}

// Pids are sshd's listener and the processes it forked for connections
// (for CPU accounting).
func (s *Server) Pids() []int {
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	if cmd == nil {
		return nil
	}
	return append([]int{cmd.Process.Pid}, descendants(cmd.Process.Pid)...)
}

// Restart starts sshd again on the same port, with the same keys.
func (s *Server) Restart() error {
	s.Kill()
	return s.start()
}

// Close kills sshd and removes its directory if Start made it.
func (s *Server) Close() {
	s.Kill()
	if s.ownDir {
		_ = os.RemoveAll(s.dir)
	}
}

// descendants lists the processes under pid (children first found in
// /proc, then theirs).
func descendants(pid int) []int {
	parent := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after ')'.
		i := bytes.LastIndexByte(b, ')')
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		parent[p] = pp
	}
	var out []int
	want := map[int]bool{pid: true}
	for changed := true; changed; {
		changed = false
		for p, pp := range parent {
			if want[pp] && !want[p] {
				want[p] = true
				out = append(out, p)
				changed = true
			}
		}
	}
	return out
}

// WriteKey makes a new ed25519 key and writes it to path (OpenSSH format,
// 0600) and its public key to path.pub.
func WriteKey(path string) (ed25519.PrivateKey, error) {
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		return nil, err
	}
	blk, err := ssh.MarshalPrivateKey(priv, "sshdtest")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(blk), 0o600); err != nil {
		return nil, err
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		return nil, err
	}
	return priv, os.WriteFile(path+".pub", ssh.MarshalAuthorizedKey(sp), 0o644)
}

// SecretLines are the body lines of this server's private keys (the
// authorized user key and the host key), for tests that scan logs, errors
// and frames for key material.
func (s *Server) SecretLines() []string {
	var out []string
	for _, f := range []string{s.KeyFile, filepath.Join(s.dir, "host_ed25519")} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			if len(l) >= 16 && !strings.HasPrefix(l, "-----") {
				out = append(out, l)
			}
		}
	}
	return out
}

// KnownHostsLine is addr's known_hosts line for key.
func KnownHostsLine(addr string, key ssh.PublicKey) string {
	return knownhosts.Line([]string{knownhosts.Normalize(addr)}, key) + "\n"
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
