package sshdtest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// StartAgentT runs OpenSSH's ssh-agent on a socket of its own holding the
// keys of keyFiles (ssh-add), and returns the socket; the agent is killed
// in t.Cleanup.
func StartAgentT(t testing.TB, keyFiles ...string) string {
	t.Helper()
	bin, err := exec.LookPath("ssh-agent")
	if err != nil {
		t.Fatal("ssh-agent not found: install it with `apt-get install -y openssh-client`")
	}
	sock := filepath.Join(t.TempDir(), "agent.sock")
	cmd := exec.Command(bin, "-D", "-a", sock)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("ssh-agent: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	// ssh-agent -D prints its environment lines once the socket listens.
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		once := false
		for sc.Scan() {
			if !once && strings.Contains(sc.Text(), "SSH_AUTH_SOCK") {
				once = true
				close(ready)
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("ssh-agent did not start within 10 s")
	}
	for _, f := range keyFiles {
		add := exec.Command("ssh-add", f)
		add.Env = append(os.Environ(), "SSH_AUTH_SOCK="+sock)
		if b, err := add.CombinedOutput(); err != nil {
			t.Fatalf("ssh-add: %v: %s", err, b)
		}
	}
	return sock
}
