package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/connector/xagenttest"
	"github.com/adb-connector/adb-connector/internal/testkit"
)

const testKey = "sk-serve-test-0123456789abcdefSECRET"

func TestLoadAPIKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good", testKey+"\n")
	empty := write("empty", " \n")
	multi := write("multi", "a\nb\n")
	unreadable := write("unreadable", testKey)
	os.Chmod(unreadable, 0)
	cases := []struct {
		name, file, env, want string
		wantErr               bool
	}{
		{"none: open server", "", "", "", false},
		{"env", "", testKey, testKey, false},
		{"file", good, "", testKey, false},
		{"both", good, testKey, "", true},
		{"missing file", filepath.Join(dir, "nope"), "", "", true},
		{"empty file", empty, "", "", true},
		{"two lines", multi, "", "", true},
		{"unreadable", unreadable, "", "", os.Getuid() != 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := loadAPIKey(tc.file, tc.env)
			if (err != nil) != tc.wantErr {
				t.Fatalf("loadAPIKey err = %v, wantErr %v", err, tc.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), testKey) {
				t.Error("error quotes the key")
			}
			if err == nil && tc.name != "unreadable" && got != tc.want {
				t.Errorf("key = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestServeRefusesBadKeyFile(t *testing.T) {
	t.Parallel()
	err := runServe([]string{"--api-key-file", filepath.Join(t.TempDir(), "missing"), "--data-dir", t.TempDir()}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "API key file") {
		t.Fatalf("runServe = %v, want a clear API key file error", err)
	}
}

// binary builds the real adb-connector into the test's temp dir, built as
// the test binary was, so the build is a link.
func binary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "adb-connector")
	if out, err := testkit.GoBuild(".", ".", bin).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

type proc struct {
	cmd  *exec.Cmd
	addr string
	logs testkit.LogBuffer
	done chan struct{}
}

var listenRe = regexp.MustCompile(`msg=listening addr=(\S+)`)

// start runs `adb-connector serve` on a free loopback port with dataDir.
func start(t *testing.T, bin, dataDir string, extra ...string) *proc {
	t.Helper()
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--log-level", "debug"}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "ADB_CONNECTOR_API_KEY="+testKey)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			io.WriteString(&p.logs, line+"\n")
			if m := listenRe.FindStringSubmatch(line); m != nil {
				addr <- m[1]
			}
		}
		cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.done
		if strings.Contains(p.Logs(), testKey) {
			t.Error("API key in the server's logs")
		}
	})
	select {
	case p.addr = <-addr:
	case <-p.done:
		t.Fatalf("serve exited early:\n%s", p.Logs())
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not start:\n%s", p.Logs())
	}
	return p
}

func (p *proc) Logs() string { return p.logs.String() }

// privateADB returns serve's --adb flag for a private adb server with no
// devices, stopped at cleanup. Without it serve would start (and leave
// running) the default adb server on 127.0.0.1:5037.
func privateADB(t *testing.T) []string {
	env := adbtest.Start(t, adbtest.Options{Devices: -1})
	return []string{"--adb", env.ServerAddr}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestServeKill9Restart: connector_id and channel survive kill -9 of the real binary.
func TestServeKill9Restart(t *testing.T) {
	t.Parallel()
	dir, bin := t.TempDir(), binary(t)
	adbArg := privateADB(t)
	p := start(t, bin, dir, adbArg...)
	ctx := testCtx(t)
	c := xagenttest.New(t, "http://"+p.addr, xagenttest.Options{APIKey: testKey})
	id, err := c.Hello(ctx, "device.adb", "")
	if err != nil {
		t.Fatal(err)
	}
	ch, _, err := c.OpenChannel(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	<-c.Done()

	p2 := start(t, bin, dir, adbArg...)
	c2 := xagenttest.New(t, "http://"+p2.addr, xagenttest.Options{APIKey: testKey})
	id2, err := c2.Hello(ctx, "device.adb", id)
	if err != nil {
		t.Fatal(err)
	}
	if id2 != id {
		t.Fatalf("after kill -9: connector_id %q, want %q", id2, id)
	}
	got, _, err := c2.OpenChannel(ctx, ch)
	if err != nil || got != ch {
		t.Fatalf("after kill -9: channel %q %v, want %q", got, err, ch)
	}
}

// TestServeSIGTERM: SIGTERM closes sockets with 1001 and exits 0.
func TestServeSIGTERM(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	p := start(t, binary(t), dir, privateADB(t)...)
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("data dir not created 0700: %v %v", st, err)
	}
	ctx := testCtx(t)
	c := xagenttest.New(t, "http://"+p.addr, xagenttest.Options{APIKey: testKey})
	if _, err := c.Hello(ctx, "device.adb", ""); err != nil {
		t.Fatal(err)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if got := c.CloseStatus(); got != websocket.StatusGoingAway {
		t.Errorf("close status = %v, want 1001", got)
	}
	<-p.done
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d after SIGTERM\n%s", code, p.Logs())
	}
}
