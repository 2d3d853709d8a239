package adb

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest/adbserver"
	"github.com/adb-connector/adb-connector/emulator/adbd"
	"github.com/google/go-cmp/cmp"
)

// fakeBackend is a tiny scripted device for adbd: shell commands are
// answered by handler, files live in memory.
type fakeBackend struct {
	mu      sync.Mutex
	handler func(ctx context.Context, cmdline string, stdout, stderr io.Writer) int
	files   map[string]fakeFile
	// deafShell: a shell without a command ignores its input.
	deafShell bool
}

type fakeFile struct {
	data  []byte
	mode  uint32
	mtime time.Time
}

func newFakeBackend() *fakeBackend {
	return &fakeBackend{files: map[string]fakeFile{
		"/sdcard":     {mode: 0o040771},
		"/data/local": {mode: 0o040751},
	}}
}

func (b *fakeBackend) setHandler(h func(ctx context.Context, cmdline string, stdout, stderr io.Writer) int) {
	b.mu.Lock()
	b.handler = h
	b.mu.Unlock()
}

func (b *fakeBackend) Identity() adbd.Identity {
	return adbd.Identity{Product: "fakeprod", Model: "Fake_Model", Device: "fakedev"}
}

func (b *fakeBackend) Run(ctx context.Context, cmdline string, stdin io.Reader, stdout, stderr io.Writer) int {
	if cmdline == "" {
		b.mu.Lock()
		deaf := b.deafShell
		b.mu.Unlock()
		if deaf {
			<-ctx.Done() // a shell that never runs what it reads
			return exitCanceledFake
		}
		return b.session(ctx, stdin, stdout, stderr)
	}
	b.mu.Lock()
	h := b.handler
	b.mu.Unlock()
	if h == nil {
		if cmdline == "true" {
			return 0
		}
		fmt.Fprintf(stderr, "sh: %s: not found\n", cmdline)
		return 127
	}
	return h(ctx, cmdline, stdout, stderr)
}

// session is the shell a raw stream without a command starts: it reads the
// lines Device.sessionRun writes, runs each command with Run and prints
// the markers, as the device's shell would.
func (b *fakeBackend) session(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) int {
	br := bufio.NewReader(stdin)
	var cmd strings.Builder
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return 0
		}
		rest, ok := strings.CutPrefix(line, ") </dev/null; echo ")
		if !ok {
			cmd.WriteString(line)
			continue
		}
		mark, _, _ := strings.Cut(rest, ":")
		code := b.Run(ctx, strings.TrimSuffix(strings.TrimPrefix(cmd.String(), "("), "\n"), strings.NewReader(""), stdout, stderr)
		cmd.Reset()
		if ctx.Err() != nil {
			return exitCanceledFake
		}
		fmt.Fprintf(stdout, "%s:%d\n", mark, code)
		fmt.Fprintf(stderr, "%s\n", mark)
		if f, ok := stdout.(interface{ Flush() error }); ok {
			f.Flush()
		}
		if f, ok := stderr.(interface{ Flush() error }); ok {
			f.Flush()
		}
	}
}

// exitCanceledFake is what the fake shell ends with when its stream closes.
const exitCanceledFake = 130

func (b *fakeBackend) Files() adbd.FileSystem { return (*fakeFS)(b) }

type fakeFS fakeBackend

func (f *fakeFS) Stat(p string) (adbd.FileInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ff, ok := f.files[path.Clean(p)]
	if !ok {
		return adbd.FileInfo{}, fs.ErrNotExist
	}
	return adbd.FileInfo{Name: path.Base(p), Mode: ff.mode, Size: int64(len(ff.data)), ModTime: ff.mtime}, nil
}

func (f *fakeFS) ReadDir(p string) ([]adbd.FileInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p = path.Clean(p)
	if ff, ok := f.files[p]; !ok || ff.mode&0o170000 != 0o040000 {
		return nil, fs.ErrNotExist
	}
	var out []adbd.FileInfo
	for name, ff := range f.files {
		if path.Dir(name) == p && name != p {
			out = append(out, adbd.FileInfo{Name: path.Base(name), Mode: ff.mode, Size: int64(len(ff.data)), ModTime: ff.mtime})
		}
	}
	return out, nil
}

func (f *fakeFS) ReadFile(p string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ff, ok := f.files[path.Clean(p)]
	if !ok || ff.mode&0o170000 == 0o040000 {
		return nil, fs.ErrNotExist
	}
	return bytes.Clone(ff.data), nil
}

func (f *fakeFS) WriteFile(p string, data []byte, perm uint32, mtime time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[path.Clean(p)] = fakeFile{data: bytes.Clone(data), mode: 0o100000 | perm&0o777, mtime: mtime}
	return nil
}

// testDevice is one virtual device connected to a private adb server.
type testDevice struct {
	srv     *adbd.Server
	backend *fakeBackend
	Key     string
}

// startDevice starts a virtual device, connects adb to it and waits until
// it is listed in state "device".
func startDevice(t *testing.T, c *Client, adb *adbserver.Server) *testDevice {
	t.Helper()
	be := newFakeBackend()
	return startBackend(t, c, adb, be, be)
}

// startBackend is startDevice with the device served by run (which may
// wrap be, the scripted part).
func startBackend(t *testing.T, c *Client, adb *adbserver.Server, be *fakeBackend, run adbd.Backend) *testDevice {
	t.Helper()
	ctx := t.Context()
	srv, err := adbd.Listen(ctx, run, adbd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	td := &testDevice{srv: srv, backend: be, Key: DeviceKey(adb.Addr, srv.Addr())}
	if err := c.Connect(ctx, adb.Addr, srv.Addr()); err != nil {
		t.Fatal(err)
	}
	waitState(t, c, td.Key, StateDevice)
	return td
}

// waitState polls the adb server (host:devices-l) until key is in state st.
func waitState(t *testing.T, c *Client, key string, st State) DeviceInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var last DeviceInfo
	for {
		d, err := c.DeviceInfo(ctx, key)
		if err == nil && d.State == st {
			return d
		}
		last = d
		select {
		case <-ctx.Done():
			t.Fatalf("device %s not %s (last %+v)", key, st, last)
		case <-time.After(20 * time.Millisecond): // polling the real adb server
		}
	}
}

// nextEvent waits for the next event on ch matching fn.
func nextEvent(t *testing.T, ch <-chan Event, what string, fn func(Event) bool) Event {
	t.Helper()
	timeout := time.NewTimer(20 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("watch closed waiting for %s", what)
			}
			t.Logf("event %s %s %s down=%v", ev.Type, ev.Device.Key, ev.Device.State, ev.ServerDown)
			if fn(ev) {
				return ev
			}
		case <-timeout.C:
			t.Fatalf("no event: %s", what)
		}
	}
}

func newTestClient(t *testing.T, cfg Config, servers ...*adbserver.Server) *Client {
	t.Helper()
	for _, s := range servers {
		cfg.Endpoints = append(cfg.Endpoints, s.Addr)
	}
	c, err := New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

var cmpIgnoreTransportID = cmp.FilterPath(func(p cmp.Path) bool {
	return p.Last().String() == ".TransportID"
}, cmp.Ignore())

var timeZero = time.Unix(0, 0)

// shellKey runs argv on the device with key, through Client.Device.
func shellKey(ctx context.Context, c *Client, key string, argv ...string) (Result, error) {
	d, err := c.Device(key)
	if err != nil {
		return Result{}, err
	}
	return d.Shell(ctx, argv...)
}
