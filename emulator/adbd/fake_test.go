package adbd

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// fakeBackend is a tiny device for transport tests: a handful of commands
// and an in-memory file system.
type fakeBackend struct {
	fs  *memFS
	mu  sync.Mutex
	ran []string
}

func newFake() *fakeBackend { return &fakeBackend{fs: newMemFS()} }

func (f *fakeBackend) Identity() Identity {
	return Identity{Product: "fakeprod", Model: "Fake_Model", Device: "fakedev"}
}

func (f *fakeBackend) Files() FileSystem { return f.fs }

func (f *fakeBackend) commands() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.ran...)
}

// Run knows: echo ARGS, exit N, cat (stdin), err MSG (stderr), bytes N
// (N bytes of a pattern), block (until ctx ends), and nothing else (127).
// Single quotes around words are removed (exec: sends 'quoted' args).
func (f *fakeBackend) Run(ctx context.Context, cmdline string, stdin io.Reader, stdout, stderr io.Writer) int {
	f.mu.Lock()
	f.ran = append(f.ran, cmdline)
	f.mu.Unlock()
	argv := strings.Fields(strings.ReplaceAll(cmdline, "'", ""))
	if len(argv) == 0 {
		fmt.Fprintln(stderr, "interactive shell not supported")
		return 1
	}
	switch argv[0] {
	case "echo":
		fmt.Fprintln(stdout, strings.Join(argv[1:], " "))
		return 0
	case "exit":
		n, _ := strconv.Atoi(argv[1])
		return n
	case "cat":
		io.Copy(stdout, stdin)
		return 0
	case "err":
		fmt.Fprintln(stderr, strings.Join(argv[1:], " "))
		return 2
	case "bytes":
		n, _ := strconv.Atoi(argv[1])
		stdout.Write(pattern(n))
		return 0
	case "block":
		<-ctx.Done()
		return 130
	}
	fmt.Fprintf(stderr, "/system/bin/sh: %s: inaccessible or not found\n", argv[0])
	return 127
}

// pattern returns n bytes of a non-repeating-ish binary pattern.
func pattern(n int) []byte {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

type memFile struct {
	data  []byte
	mode  uint32
	mtime time.Time
}

// memFS is a flat map of path to file; directories are implied by paths
// and the dirs set.
type memFS struct {
	mu    sync.Mutex
	files map[string]memFile
	dirs  map[string]bool
}

func newMemFS() *memFS {
	return &memFS{files: map[string]memFile{}, dirs: map[string]bool{"/": true, "/sdcard": true, "/data": true, "/data/local": true, "/data/local/tmp": true}}
}

func (m *memFS) Stat(p string) (FileInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p = path.Clean(p)
	if m.dirs[p] {
		return FileInfo{Name: path.Base(p), Mode: 0o040771, ModTime: time.Unix(1700000000, 0)}, nil
	}
	if f, ok := m.files[p]; ok {
		return FileInfo{Name: path.Base(p), Mode: 0o100000 | f.mode, Size: int64(len(f.data)), ModTime: f.mtime}, nil
	}
	return FileInfo{}, fmt.Errorf("stat %s: %w", p, fs.ErrNotExist)
}

func (m *memFS) ReadDir(p string) ([]FileInfo, error) {
	p = path.Clean(p)
	m.mu.Lock()
	if !m.dirs[p] {
		m.mu.Unlock()
		return nil, fmt.Errorf("readdir %s: %w", p, fs.ErrNotExist)
	}
	var names []string
	for d := range m.dirs {
		if d != p && path.Dir(d) == p {
			names = append(names, d)
		}
	}
	for f := range m.files {
		if path.Dir(f) == p {
			names = append(names, f)
		}
	}
	m.mu.Unlock()
	sort.Strings(names)
	var out []FileInfo
	for _, n := range names {
		fi, err := m.Stat(n)
		if err == nil {
			out = append(out, fi)
		}
	}
	return out, nil
}

func (m *memFS) ReadFile(p string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p = path.Clean(p)
	f, ok := m.files[p]
	if !ok {
		return nil, fmt.Errorf("read %s: %w", p, fs.ErrNotExist)
	}
	return f.data, nil
}

func (m *memFS) WriteFile(p string, data []byte, perm uint32, mtime time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p = path.Clean(p)
	if m.dirs[p] {
		return fmt.Errorf("write %s: %w", p, fs.ErrExist)
	}
	for d := path.Dir(p); !m.dirs[d]; d = path.Dir(d) {
		m.dirs[d] = true
	}
	m.files[p] = memFile{data: append([]byte(nil), data...), mode: perm, mtime: mtime}
	return nil
}
