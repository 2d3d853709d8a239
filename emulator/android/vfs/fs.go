package vfs

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/adb-connector/adb-connector/emulator/adbd"
)

// Unix st_mode type bits, as adbd.FileInfo carries them.
const (
	ModeDir  = 0o040000
	ModeFile = 0o100000
)

// FS is the device's in-memory file system. It implements adbd.FileSystem;
// the shell (redirects, cat, ls, rm, screencap, ...) sees the same files.
// Safe for concurrent use.
type FS struct {
	mu    sync.Mutex
	nodes map[string]*fsNode // cleaned absolute path -> node
	now   func() time.Time
}

type fsNode struct {
	dir   bool
	perm  uint32
	mtime time.Time
	data  []byte
}

var _ adbd.FileSystem = (*FS)(nil)

func New(now func() time.Time) *FS {
	f := &FS{nodes: map[string]*fsNode{}, now: now}
	for _, d := range []string{"/", "/sdcard", "/storage", "/storage/emulated", "/storage/self", "/mnt",
		"/data", "/data/local", "/data/local/tmp", "/system", "/system/bin", "/dev", "/proc"} {
		f.nodes[d] = f.newDir()
	}
	f.nodes["/dev/null"] = &fsNode{perm: 0o666, mtime: now()}
	return f
}

// AddInputNodes creates /dev/input and its event nodes (InputNodes),
// crw-rw---- root input, and /dev/uinput and /dev/uhid (UinputNodes),
// crw-rw---- uhid uhid (AOSP system/core rootdir/ueventd.rc). Mode bits
// let the shell write all of them; SELinux decides (package android).
func (f *FS) AddInputNodes() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nodes["/dev/input"] = &fsNode{dir: true, perm: 0o755, mtime: f.now()}
	for p := range InputNodes {
		f.nodes[p] = &fsNode{perm: 0o660, mtime: f.now()}
	}
	for p := range UinputNodes {
		f.nodes[p] = &fsNode{perm: 0o660, mtime: f.now()}
	}
}

// sdcardAliases are the paths that reach the shared storage on a phone
// (symlinks or bind mounts of /storage/emulated/0); here they all name
// /sdcard.
var sdcardAliases = []string{"/storage/emulated/0", "/storage/self/primary", "/mnt/sdcard", "/mnt/user/0/primary"}

// CleanPath makes p absolute (relative to cwd), cleans it and maps the
// shared-storage aliases to /sdcard.
func CleanPath(cwd, p string) string {
	if !strings.HasPrefix(p, "/") {
		p = cwd + "/" + p
	}
	p = path.Clean(p)
	for _, a := range sdcardAliases {
		if p == a || strings.HasPrefix(p, a+"/") {
			return "/sdcard" + p[len(a):]
		}
	}
	return p
}

func pathErr(op, p string, err error) error { return &fs.PathError{Op: op, Path: p, Err: err} }

// Stat describes path.
func (f *FS) Stat(p string) (adbd.FileInfo, error) {
	p = CleanPath("/", p)
	f.mu.Lock()
	defer f.mu.Unlock()
	n, ok := f.nodes[p]
	if !ok {
		return adbd.FileInfo{}, pathErr("stat", p, fs.ErrNotExist)
	}
	return n.info(path.Base(p)), nil
}

func (n *fsNode) info(name string) adbd.FileInfo {
	if n.dir {
		return adbd.FileInfo{Name: name, Mode: ModeDir | n.perm, Size: 4096, ModTime: n.mtime}
	}
	return adbd.FileInfo{Name: name, Mode: ModeFile | n.perm, Size: int64(len(n.data)), ModTime: n.mtime}
}

// ReadDir lists the directory at path, sorted by name.
func (f *FS) ReadDir(p string) ([]adbd.FileInfo, error) {
	p = CleanPath("/", p)
	f.mu.Lock()
	defer f.mu.Unlock()
	n, ok := f.nodes[p]
	if !ok {
		return nil, pathErr("readdir", p, fs.ErrNotExist)
	}
	if !n.dir {
		return nil, pathErr("readdir", p, ErrNotDir)
	}
	prefix := p + "/"
	if p == "/" {
		prefix = "/"
	}
	var out []adbd.FileInfo
	for name, c := range f.nodes {
		if name == p || !strings.HasPrefix(name, prefix) || strings.Contains(name[len(prefix):], "/") {
			continue
		}
		out = append(out, c.info(name[len(prefix):]))
	}
	slices.SortFunc(out, func(a, b adbd.FileInfo) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// ReadFile returns a copy of the file's content.
func (f *FS) ReadFile(p string) ([]byte, error) {
	p = CleanPath("/", p)
	f.mu.Lock()
	defer f.mu.Unlock()
	n, ok := f.nodes[p]
	if !ok {
		return nil, pathErr("open", p, fs.ErrNotExist)
	}
	if n.dir {
		return nil, pathErr("read", p, ErrIsDir)
	}
	return bytes.Clone(n.data), nil
}

// WriteFile creates or replaces path, creating parent directories.
func (f *FS) WriteFile(p string, data []byte, perm uint32, mtime time.Time) error {
	p = CleanPath("/", p)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.mkdirAllLocked(path.Dir(p)); err != nil {
		return err
	}
	if n, ok := f.nodes[p]; ok && n.dir {
		return pathErr("write", p, ErrIsDir)
	}
	if p == "/dev/null" {
		return nil
	}
	f.nodes[p] = &fsNode{perm: perm & 0o7777, mtime: mtime, data: bytes.Clone(data)}
	return nil
}

// newDir returns a new directory node: mode 0771 (as /data/local/tmp on a
// phone), modified now.
func (f *FS) newDir() *fsNode {
	return &fsNode{dir: true, perm: 0o771, mtime: f.now()}
}

func (f *FS) mkdirAllLocked(p string) error {
	if n, ok := f.nodes[p]; ok {
		if !n.dir {
			return pathErr("mkdir", p, ErrNotDir)
		}
		return nil
	}
	if err := f.mkdirAllLocked(path.Dir(p)); err != nil {
		return err
	}
	f.nodes[p] = f.newDir()
	return nil
}

// Mkdir creates one directory (parents too when all is set).
func (f *FS) Mkdir(p string, all bool) error {
	p = CleanPath("/", p)
	f.mu.Lock()
	defer f.mu.Unlock()
	if n, ok := f.nodes[p]; ok {
		if all && n.dir {
			return nil
		}
		return pathErr("mkdir", p, fs.ErrExist)
	}
	if all {
		return f.mkdirAllLocked(p)
	}
	parent, ok := f.nodes[path.Dir(p)]
	if !ok {
		return pathErr("mkdir", p, fs.ErrNotExist)
	}
	if !parent.dir {
		return pathErr("mkdir", p, ErrNotDir)
	}
	f.nodes[p] = f.newDir()
	return nil
}

// Remove removes a file, or a directory tree when recursive is set.
func (f *FS) Remove(p string, recursive bool) error {
	p = CleanPath("/", p)
	f.mu.Lock()
	defer f.mu.Unlock()
	n, ok := f.nodes[p]
	if !ok {
		return pathErr("remove", p, fs.ErrNotExist)
	}
	if n.dir && !recursive {
		return pathErr("remove", p, ErrIsDir)
	}
	if p == "/" || p == "/dev/null" {
		return pathErr("remove", p, fs.ErrPermission)
	}
	delete(f.nodes, p)
	for name := range f.nodes {
		if strings.HasPrefix(name, p+"/") {
			delete(f.nodes, name)
		}
	}
	return nil
}

// Errors without an io/fs sentinel are Linux errno values, so the sync
// service can send them as they are.
var (
	ErrIsDir  error = syscall.EISDIR
	ErrNotDir error = syscall.ENOTDIR
)

// openFile opens a virtual file for the shell (redirects). Writes are
// committed on Close.
func (f *FS) OpenFile(p string, flag int) (io.ReadWriteCloser, error) {
	if p == "/dev/null" {
		return DevNull{}, nil
	}
	f.mu.Lock()
	n, ok := f.nodes[p]
	f.mu.Unlock()
	if ok && n.dir {
		return nil, pathErr("open", p, ErrIsDir)
	}
	write := flag&(os.O_WRONLY|os.O_RDWR) != 0
	if !write {
		data, err := f.ReadFile(p)
		if err != nil {
			return nil, err
		}
		return &vfile{r: bytes.NewReader(data)}, nil
	}
	f.mu.Lock()
	parent, pok := f.nodes[path.Dir(p)]
	f.mu.Unlock()
	if !pok || !parent.dir {
		return nil, pathErr("open", p, fs.ErrNotExist)
	}
	if !ok && flag&os.O_CREATE == 0 {
		return nil, pathErr("open", p, fs.ErrNotExist)
	}
	if ok && flag&os.O_EXCL != 0 {
		return nil, pathErr("open", p, fs.ErrExist)
	}
	vf := &vfile{fs: f, path: p}
	if ok && flag&os.O_TRUNC == 0 {
		data, _ := f.ReadFile(p)
		vf.buf.Write(data)
	}
	// Create the file at once, as open(2) does.
	if err := f.WriteFile(p, vf.buf.Bytes(), 0o660, f.now()); err != nil {
		return nil, err
	}
	return vf, nil
}

type vfile struct {
	r    *bytes.Reader
	fs   *FS
	path string
	buf  bytes.Buffer
	once sync.Once
}

func (v *vfile) Read(p []byte) (int, error) {
	if v.r == nil {
		return 0, io.EOF
	}
	return v.r.Read(p)
}

func (v *vfile) Write(p []byte) (int, error) {
	if v.fs == nil {
		return 0, pathErr("write", v.path, fs.ErrPermission)
	}
	return v.buf.Write(p)
}

func (v *vfile) Close() error {
	var err error
	v.once.Do(func() {
		if v.fs != nil {
			err = v.fs.WriteFile(v.path, v.buf.Bytes(), 0o660, v.fs.now())
		}
	})
	return err
}

type DevNull struct{}

func (DevNull) Read([]byte) (int, error)    { return 0, io.EOF }
func (DevNull) Write(p []byte) (int, error) { return len(p), nil }
func (DevNull) Close() error                { return nil }
