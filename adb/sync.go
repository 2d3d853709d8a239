package adb

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"
)

// DefaultTransferTimeout bounds Push, Pull, Stat and List.
const DefaultTransferTimeout = 120 * time.Second

// syncChunk is the largest DATA chunk of the sync protocol.
const syncChunk = 64 << 10

// FileMode is a raw Unix st_mode as the device reports it (type bits and
// permissions). Use its methods, or FS for an io/fs.FileMode.
type FileMode uint32

// Unix file type bits.
const (
	modeTypeMask FileMode = 0o170000
	modeDir      FileMode = 0o040000
	modeRegular  FileMode = 0o100000
	modeSymlink  FileMode = 0o120000
)

// IsDir reports a directory.
func (m FileMode) IsDir() bool { return m&modeTypeMask == modeDir }

// IsRegular reports a regular file.
func (m FileMode) IsRegular() bool { return m&modeTypeMask == modeRegular }

// IsSymlink reports a symbolic link.
func (m FileMode) IsSymlink() bool { return m&modeTypeMask == modeSymlink }

// Perm returns the permission bits (0o777).
func (m FileMode) Perm() FileMode { return m & 0o777 }

// FS converts to an io/fs.FileMode (type and permission bits).
func (m FileMode) FS() fs.FileMode {
	f := fs.FileMode(m.Perm())
	switch m & modeTypeMask {
	case modeDir:
		f |= fs.ModeDir
	case modeSymlink:
		f |= fs.ModeSymlink
	case modeRegular:
	case 0o010000:
		f |= fs.ModeNamedPipe
	case 0o140000:
		f |= fs.ModeSocket
	case 0o020000:
		f |= fs.ModeDevice | fs.ModeCharDevice
	case 0o060000:
		f |= fs.ModeDevice
	default:
		f |= fs.ModeIrregular
	}
	return f
}

func (m FileMode) String() string { return m.FS().String() }

// FileInfo describes a remote file.
type FileInfo struct {
	Name    string // base name (List) or the path asked for (Stat)
	Mode    FileMode
	Size    int64
	ModTime time.Time
}

// syncConn is an open sync: service.
type syncConn struct {
	*hostConn
}

func (d *Device) openSync(ctx context.Context) (*syncConn, error) {
	hc, err := d.open(ctx, "sync:")
	if err != nil {
		return nil, err
	}
	return &syncConn{hc}, nil
}

func (s *syncConn) req(id string, arg string) error {
	buf := make([]byte, 8, 8+len(arg))
	copy(buf, id)
	binary.LittleEndian.PutUint32(buf[4:], uint32(len(arg)))
	buf = append(buf, arg...)
	if _, err := s.nc.Write(buf); err != nil {
		return s.fail("sync "+id, err)
	}
	return nil
}

// readHeader reads a 4-byte id and a little-endian uint32.
func (s *syncConn) readHeader() (string, uint32, error) {
	var hdr [8]byte
	if _, err := io.ReadFull(s.br, hdr[:]); err != nil {
		return "", 0, err
	}
	return string(hdr[:4]), binary.LittleEndian.Uint32(hdr[4:]), nil
}

// readFail reads the message of a FAIL answer of n bytes.
func (s *syncConn) readFail(n uint32) error {
	if n > 4096 {
		return fmt.Errorf("%w: sync FAIL of %d bytes", ErrProtocol, n)
	}
	msg := make([]byte, n)
	if _, err := io.ReadFull(s.br, msg); err != nil {
		return err
	}
	m := string(msg)
	if strings.Contains(strings.ToLower(m), "no such file") {
		return fmt.Errorf("%w: %s", ErrNotExist, m)
	}
	return &FailError{Message: m}
}

// syncOp runs fn on a fresh sync connection under the read limiter and the
// default transfer timeout, classifying stream errors.
func (d *Device) syncOp(ctx context.Context, op string, fn func(*syncConn) error) error {
	ctx, cancel := withDefaultTimeout(ctx, DefaultTransferTimeout)
	defer cancel()
	release, err := d.lim.acquire(ctx, opRead)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer release()
	s, err := d.openSync(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer s.Close()
	if err := fn(s); err != nil {
		if isDrop(err) || ctx.Err() != nil {
			return d.streamError(ctx, s.hostConn, op, err)
		}
		return fmt.Errorf("%s: %w", op, err)
	}
	_ = s.req("QUIT", "")
	return nil
}

// Stat describes remotePath. A missing path gives ErrNotExist. Default
// timeout: DefaultTransferTimeout.
func (d *Device) Stat(ctx context.Context, remotePath string) (FileInfo, error) {
	var fi FileInfo
	err := d.syncOp(ctx, "stat "+remotePath, func(s *syncConn) error {
		var err error
		fi, err = s.stat(remotePath)
		return err
	})
	return fi, err
}

func (s *syncConn) stat(p string) (FileInfo, error) {
	if err := s.req("STAT", p); err != nil {
		return FileInfo{}, err
	}
	var buf [16]byte
	if _, err := io.ReadFull(s.br, buf[:]); err != nil {
		return FileInfo{}, err
	}
	if string(buf[:4]) != "STAT" {
		return FileInfo{}, fmt.Errorf("%w: STAT answered %q", ErrProtocol, buf[:4])
	}
	mode := binary.LittleEndian.Uint32(buf[4:])
	size := binary.LittleEndian.Uint32(buf[8:])
	mtime := binary.LittleEndian.Uint32(buf[12:])
	if mode == 0 && size == 0 && mtime == 0 {
		return FileInfo{}, ErrNotExist
	}
	return FileInfo{Name: p, Mode: FileMode(mode), Size: int64(size), ModTime: time.Unix(int64(mtime), 0)}, nil
}

// List lists a remote directory (without "." and ".."). Unlike gadb, a
// missing directory is ErrNotExist and a non-directory is an error. Default
// timeout: DefaultTransferTimeout.
func (d *Device) List(ctx context.Context, remoteDir string) ([]FileInfo, error) {
	var out []FileInfo
	err := d.syncOp(ctx, "list "+remoteDir, func(s *syncConn) error {
		fi, err := s.stat(remoteDir)
		if err != nil {
			return err
		}
		if !fi.Mode.IsDir() {
			return fmt.Errorf("not a directory (%s)", fi.Mode)
		}
		if err := s.req("LIST", remoteDir); err != nil {
			return err
		}
		out, err = readDents(s.br)
		return err
	})
	return out, err
}

// readDents decodes LIST answers: DENT mode size mtime namelen name, ...,
// then DONE with 16 bytes.
func readDents(r io.Reader) ([]FileInfo, error) {
	var out []FileInfo
	for {
		var buf [20]byte
		if _, err := io.ReadFull(r, buf[:]); err != nil {
			return nil, err
		}
		switch string(buf[:4]) {
		case "DONE":
			return out, nil
		case "DENT":
		default:
			return nil, fmt.Errorf("%w: LIST answered %q", ErrProtocol, buf[:4])
		}
		n := binary.LittleEndian.Uint32(buf[16:])
		if n > 4096 {
			return nil, fmt.Errorf("%w: dirent name of %d bytes", ErrProtocol, n)
		}
		name := make([]byte, n)
		if _, err := io.ReadFull(r, name); err != nil {
			return nil, err
		}
		if s := string(name); s == "." || s == ".." {
			continue
		}
		out = append(out, FileInfo{
			Name:    string(name),
			Mode:    FileMode(binary.LittleEndian.Uint32(buf[4:])),
			Size:    int64(binary.LittleEndian.Uint32(buf[8:])),
			ModTime: time.Unix(int64(binary.LittleEndian.Uint32(buf[12:])), 0),
		})
	}
}

// Push writes everything r yields (including bytes returned together with
// io.EOF) to remotePath with permission bits perm (e.g. 0o644). Default
// timeout: DefaultTransferTimeout.
func (d *Device) Push(ctx context.Context, r io.Reader, remotePath string, perm FileMode) error {
	if strings.Contains(remotePath, ",") {
		return fmt.Errorf("push %s: path must not contain a comma", remotePath)
	}
	return d.syncOp(ctx, "push "+remotePath, func(s *syncConn) error {
		if err := s.req("SEND", fmt.Sprintf("%s,%d", remotePath, uint32(modeRegular|perm.Perm()))); err != nil {
			return err
		}
		buf := make([]byte, 8+syncChunk)
		for {
			n, rerr := r.Read(buf[8:])
			if n > 0 {
				copy(buf, "DATA")
				binary.LittleEndian.PutUint32(buf[4:], uint32(n))
				if _, err := s.nc.Write(buf[:8+n]); err != nil {
					return err
				}
			}
			if errors.Is(rerr, io.EOF) {
				break
			}
			if rerr != nil {
				return fmt.Errorf("read source: %w", rerr)
			}
		}
		var done [8]byte
		copy(done[:], "DONE")
		binary.LittleEndian.PutUint32(done[4:], uint32(time.Now().Unix()))
		if _, err := s.nc.Write(done[:]); err != nil {
			return err
		}
		id, n, err := s.readHeader()
		if err != nil {
			return err
		}
		switch id {
		case "OKAY":
			return nil
		case "FAIL":
			return s.readFail(n)
		}
		return fmt.Errorf("%w: SEND answered %q", ErrProtocol, id)
	})
}

// Pull copies remotePath into w. A missing file gives ErrNotExist; a device
// dropping mid-transfer gives ErrDeviceOffline. Default timeout:
// DefaultTransferTimeout.
func (d *Device) Pull(ctx context.Context, remotePath string, w io.Writer) error {
	return d.syncOp(ctx, "pull "+remotePath, func(s *syncConn) error {
		if err := s.req("RECV", remotePath); err != nil {
			return err
		}
		return readRecv(s.br, w, s.readFail)
	})
}

// readRecv decodes RECV answers (DATA chunks, then DONE, or FAIL) into w.
func readRecv(r io.Reader, w io.Writer, fail func(uint32) error) error {
	var hdr [8]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return err
		}
		n := binary.LittleEndian.Uint32(hdr[4:])
		switch string(hdr[:4]) {
		case "DATA":
			if n > syncChunk {
				return fmt.Errorf("%w: DATA chunk of %d bytes", ErrProtocol, n)
			}
			if _, err := io.CopyN(w, r, int64(n)); err != nil {
				if errors.Is(err, io.EOF) {
					return io.ErrUnexpectedEOF
				}
				return err
			}
		case "DONE":
			return nil
		case "FAIL":
			return fail(n)
		default:
			return fmt.Errorf("%w: RECV answered %q", ErrProtocol, hdr[:4])
		}
	}
}
