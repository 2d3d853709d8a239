package adbserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/internal/testkit"
)

// InstallHint is printed when the adb binary is missing.
const InstallHint = "adb not found in PATH: install it with `apt-get install -y adb` (Debian's adb 1:29.0.6)"

// Server is one adb server child process on a private port. Methods are
// safe for concurrent use.
type Server struct {
	// Port is the server's TCP port on 127.0.0.1; Addr is "127.0.0.1:Port".
	Port int
	Addr string

	t   testing.TB
	bin string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has been waited for
	log  *testkit.LogBuffer
}

// Binary returns the adb path or fails t with InstallHint.
func Binary(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("adb")
	if err != nil {
		t.Fatal(InstallHint)
	}
	return bin
}

// Start runs `adb -P PORT nodaemon server` on a free port and waits until
// it answers host:version. t.Cleanup stops it (kill-server, then kill) and
// waits for the process.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{t: t, bin: Binary(t), Port: FreePort(t)}
	s.Addr = "127.0.0.1:" + strconv.Itoa(s.Port)
	t.Cleanup(s.Kill)
	if err := s.start(); err != nil {
		t.Fatalf("start adb server: %v", err)
	}
	return s
}

// Restart starts the server again on the same port after Kill.
func (s *Server) Restart() {
	s.t.Helper()
	s.Kill()
	if err := s.start(); err != nil {
		s.t.Fatalf("restart adb server: %v", err)
	}
}

// Resume starts the server again on the same port after Kill, leaving the
// caller to observe the time it was down.
func (s *Server) Resume() {
	s.t.Helper()
	if err := s.start(); err != nil {
		s.t.Fatalf("resume adb server: %v", err)
	}
}

func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return errors.New("already running")
	}
	cmd := exec.Command(s.bin, "-P", strconv.Itoa(s.Port), "nodaemon", "server")
	// If the test binary dies without cleanup, the server dies with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	s.log = &testkit.LogBuffer{}
	cmd.Stdout = s.log
	cmd.Stderr = s.log
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	s.cmd, s.done = cmd, done
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := Query(ctx, s.Addr, "host:version"); err == nil {
			return nil
		}
		select {
		case <-done:
			return fmt.Errorf("adb server exited: %s", s.log.String())
		case <-ctx.Done():
			return fmt.Errorf("adb server not answering on %s: %s", s.Addr, s.log.String())
		case <-tick.C:
		}
	}
}

// Kill stops the server: `adb kill-server`, then SIGKILL if it is still
// alive after 5 s; it waits for the process. When stopped, it stops any
// adb server that another party started on the port meanwhile (the daemon
// `adb start-server` forks, as a Client with StartLocalServer runs), so
// the cleanup leaves no stray. Safe to call when stopped.
func (s *Server) Kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if s.cmd == nil {
		s.killDaemon(ctx)
		return
	}
	exec.CommandContext(ctx, s.bin, "-P", strconv.Itoa(s.Port), "kill-server").Run()
	select {
	case <-s.done:
	case <-ctx.Done():
		s.cmd.Process.Kill()
		<-s.done
	}
	s.cmd, s.done = nil, nil
}

// killDaemon stops an adb server on s.Port that is not s's child and
// waits (polling /proc every 20 ms, the process not being ours to wait
// for) until no adb process is left on the port; after ctx it kills them.
func (s *Server) killDaemon(ctx context.Context) {
	if len(Processes(s.Port)) == 0 {
		return
	}
	exec.CommandContext(ctx, s.bin, "-P", strconv.Itoa(s.Port), "kill-server").Run()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		pids := Processes(s.Port)
		if len(pids) == 0 {
			return
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			return
		}
	}
}

// Log returns what the server process printed.
func (s *Server) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.log == nil {
		return ""
	}
	return s.log.String()
}

// Adb runs the adb CLI against this server (`adb -P PORT args...`) with a
// 60 s deadline and returns its combined output. A non-zero exit is an
// *exec.ExitError.
func (s *Server) Adb(args ...string) (string, error) {
	return s.AdbContext(context.Background(), args...)
}

// AdbContext is Adb bounded by ctx (plus the 60 s default deadline).
func (s *Server) AdbContext(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := withAdbDeadline(ctx)
	defer cancel()
	out, err := s.AdbCmd(ctx, args...).CombinedOutput()
	return string(out), err
}

// AdbCmd returns the unstarted command `adb -P PORT args...` (stdin is
// empty); its deadline is ctx's or 60 s (then released in t.Cleanup).
func (s *Server) AdbCmd(ctx context.Context, args ...string) *exec.Cmd {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = withAdbDeadline(ctx)
		s.t.Cleanup(cancel)
	}
	return exec.CommandContext(ctx, s.bin, append([]string{"-P", strconv.Itoa(s.Port)}, args...)...)
}

// withAdbDeadline gives ctx the 60 s default deadline of an adb CLI run
// when it has none.
func withAdbDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, 60*time.Second)
}

// FreePort returns a free TCP port on 127.0.0.1 outside 5554-5585 (the
// range the adb server scans for emulators).
func FreePort(t testing.TB) int {
	t.Helper()
	for range 50 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("free port: %v", err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if port < 5554 || port > 5585 {
			return port
		}
	}
	t.Fatal("free port: none found")
	return 0
}

// FreePortRange returns a port p such that p..p+n-1 were all free a moment
// ago (and outside the emulator scan range), for callers that take
// consecutive ports such as `emulator --base-port`.
func FreePortRange(t testing.TB, n int) int {
	t.Helper()
	for range 50 {
		base := FreePort(t)
		if base+n-1 >= 5554 && base <= 5585 || base+n-1 > 65535 {
			continue
		}
		var held []net.Listener
		ok := true
		for i := range n {
			ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(base+i))
			if err != nil {
				ok = false
				break
			}
			held = append(held, ln)
		}
		for _, ln := range held {
			ln.Close()
		}
		if ok {
			return base
		}
	}
	t.Fatalf("free port range of %d: none found", n)
	return 0
}

// Processes returns the pids of adb processes whose command line names
// port with -P, or with -L tcp:PORT as the daemon `adb start-server`
// forks does (strays, once the server was killed).
func Processes(port int) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	want := "\x00-P\x00" + strconv.Itoa(port) + "\x00"
	daemon := "\x00-L\x00tcp:" + strconv.Itoa(port) + "\x00"
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(b, []byte("adb")) {
			continue
		}
		if cl := "\x00" + string(b); strings.Contains(cl, want) || strings.Contains(cl, daemon) {
			pids = append(pids, pid)
		}
	}
	return pids
}
