package benchtb

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/adb-connector/adb-connector/internal/testkit"
)

// ModuleRoot returns the directory of this module's go.mod, so the bench
// programs find ./cmd/adb-connector and bench/results from any working
// directory inside the module.
func ModuleRoot() (string, error) {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	p := strings.TrimSpace(string(gomod))
	if p == "" || p == os.DevNull {
		return "", fmt.Errorf("not inside the adb-connector module")
	}
	return filepath.Dir(p), nil
}

// Build compiles ./cmd/adb-connector of this module into dir, as this
// program was built, and returns the binary's path.
func Build(dir string) (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "adb-connector")
	if out, err := testkit.GoBuild(root, "./cmd/adb-connector", bin).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/adb-connector: %v\n%s", err, out)
	}
	return bin, nil
}

// Serve is a running `adb-connector serve` child process on loopback with a
// random API key. Its methods are safe for concurrent use.
type Serve struct {
	URL     string // http://127.0.0.1:PORT
	DataDir string
	APIKey  string
	// HTTP is a client for the server (downloads, /metrics).
	HTTP *http.Client

	cmd  *exec.Cmd
	done chan struct{}
}

// ServeOptions configures StartServe.
type ServeOptions struct {
	// Bin is the adb-connector binary (see Build).
	Bin string
	// DataDir is serve's --data-dir.
	DataDir string
	// Args are further serve flags (--adb, --virtual-devices, ...).
	Args []string
	// Log receives serve's stderr, line by line. Default: discarded.
	Log io.Writer
}

var listenRe = regexp.MustCompile(`msg=listening addr=(\S+)`)

// StartServe runs `serve --listen 127.0.0.1:0` with opts and a fresh random
// API key (in the environment, never a flag) and waits until it listens
// (at most 60 s: virtual phones are attached first).
func StartServe(ctx context.Context, opts ServeOptions) (*Serve, error) {
	key := make([]byte, 16)
	rand.Read(key)
	s := &Serve{DataDir: opts.DataDir, APIKey: "sk-bench-" + hex.EncodeToString(key), done: make(chan struct{}),
		HTTP: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}}
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--data-dir", opts.DataDir, "--log-level", "info"}, opts.Args...)
	s.cmd = exec.Command(opts.Bin, args...)
	s.cmd.Env = append(os.Environ(), "ADB_CONNECTOR_API_KEY="+s.APIKey)
	// If the bench program dies without its cleanup, serve dies with it.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	logw := opts.Log
	if logw == nil {
		logw = io.Discard
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			fmt.Fprintln(logw, sc.Text())
			if m := listenRe.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
		s.cmd.Wait()
		close(s.done)
	}()
	select {
	case a := <-addr:
		s.URL = "http://" + a
		return s, nil
	case <-s.done:
		return nil, fmt.Errorf("adb-connector serve exited: %v", s.cmd.ProcessState)
	case <-time.After(60 * time.Second):
		s.Stop()
		return nil, fmt.Errorf("adb-connector serve did not listen within 60 s")
	case <-ctx.Done():
		s.Stop()
		return nil, ctx.Err()
	}
}

// Pid is the serve process id (for /proc).
func (s *Serve) Pid() int { return s.cmd.Process.Pid }

// Done is closed once the serve process has exited.
func (s *Serve) Done() <-chan struct{} { return s.done }

// Stop sends SIGINT and waits (SIGKILL after 20 s, a drain being at most
// 15 s). Idempotent.
func (s *Serve) Stop() {
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
	s.HTTP.CloseIdleConnections()
}

// Download GETs a download_url and checks its length.
func (s *Serve) Download(ctx context.Context, path string, size int64) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
	if err != nil {
		return err
	}
	resp, err := s.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || n != size {
		return &DownloadError{Path: path, Status: resp.StatusCode, Got: n, Want: size}
	}
	return nil
}

// DownloadError is a download that answered other than 200 with the
// announced size.
type DownloadError struct {
	Path      string
	Status    int
	Got, Want int64
}

func (e *DownloadError) Error() string {
	return fmt.Sprintf("GET %s: %d, %d bytes (want %d)", e.Path, e.Status, e.Got, e.Want)
}

// Metrics GETs /metrics with the API key and returns the body.
func (s *Serve) Metrics(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/metrics", nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+s.APIKey)
	resp, err := s.HTTP.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	return string(b), nil
}
