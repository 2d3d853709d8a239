package adbd

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"path"
	"strconv"
	"strings"
	"time"
)

// syncMaxFile caps a pushed file's size: the device keeps files in memory.
const syncMaxFile = 512 << 20

// serveSync runs the "sync:" service (AOSP SYNC.TXT) over the stream, read
// as a byte stream: requests may be split across WRTEs or share one.
func serveSync(ctx context.Context, srv *Server, st *stream, _ string) {
	var rw io.ReadWriter = st
	if f := srv.takeTransferFault(); f != nil {
		rw = &faultyStream{rw: st, srv: srv, f: f}
	}
	r := bufio.NewReaderSize(rw, 64<<10)
	w := bufio.NewWriterSize(rw, st.maxData)
	if err := runSync(ctx, r, w, srv.backend.Files()); err != nil {
		srv.log.Debug("adbd: sync ended", "err", err)
	}
}

// runSync serves sync requests from r until QUIT, end of input or an error.
// Replies are flushed after each request.
func runSync(ctx context.Context, r io.Reader, w *bufio.Writer, fsys FileSystem) error {
	var b []byte
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		req, err := readSyncRequest(r)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			if errors.Is(err, ErrProtocol) {
				w.Write(appendFail(nil, strings.TrimPrefix(err.Error(), ErrProtocol.Error()+": ")))
				w.Flush()
			}
			return err
		}
		b = b[:0]
		switch req.id {
		case syncQUIT:
			return nil
		case syncSTAT:
			fi, err := fsys.Stat(req.path)
			b = appendStatV1(b, fi, err)
		case syncSTA2, syncLST2:
			fi, err := fsys.Stat(req.path)
			b = appendStatV2(b, req.id, fi, err, inode(req.path))
		case syncLIST, syncLIS2:
			if err := syncList(w, fsys, req); err != nil {
				return err
			}
		case syncRECV:
			if err := syncRecv(w, fsys, req.path); err != nil {
				return err
			}
		case syncSEND:
			if err := syncSend(r, w, fsys, req.path); err != nil {
				return err
			}
		}
		if len(b) > 0 {
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
}

// inode gives a stable fake inode number for a path.
func inode(p string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(p))
	return h.Sum64() & 0xffffffff
}

// syncList answers LIST (DENT entries) or LIS2 (DNT2 entries), then DONE.
// A missing directory yields an empty listing, as adbd does.
func syncList(w *bufio.Writer, fsys FileSystem, req syncRequest) error {
	entries, err := fsys.ReadDir(req.path)
	if err == nil {
		// readdir on Linux yields "." and ".." too; adb's pull skips them.
		self, _ := fsys.Stat(req.path)
		parent, perr := fsys.Stat(path.Dir(path.Clean(req.path)))
		if perr != nil {
			parent = self
		}
		self.Name, parent.Name = ".", ".."
		entries = append([]FileInfo{self, parent}, entries...)
	}
	var b []byte
	for _, e := range entries {
		b = b[:0]
		if req.id == syncLIST {
			b = putU32(b, syncDENT)
			b = putU32(b, e.Mode)
			b = putU32(b, uint32(e.Size))
			b = putU32(b, uint32(unixTime(e.ModTime)))
		} else {
			b = putU32(b, syncDNT2)
			b = putU32(b, 0)
			b = appendStatV2Body(b, e, inode(path.Join(req.path, e.Name)))
		}
		b = putU32(b, uint32(len(e.Name)))
		b = append(b, e.Name...)
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	size := syncDentV1Size
	if req.id == syncLIS2 {
		size = syncDentV2Size
	}
	b = putU32(b[:0], syncDONE)
	b = append(b, make([]byte, size-4)...)
	_, err = w.Write(b)
	return err
}

// syncRecv answers RECV: the file in DATA chunks, then DONE; FAIL when it
// cannot be read (the session then ends, as in adbd).
func syncRecv(w *bufio.Writer, fsys FileSystem, p string) error {
	data, err := fsys.ReadFile(p)
	if err != nil {
		w.Write(appendFail(nil, "open failed: "+errnoText(errno(err))))
		w.Flush()
		return fmt.Errorf("recv: %w", err)
	}
	var h []byte
	for len(data) > 0 {
		n := min(len(data), syncMaxChunk)
		h = putU32(putU32(h[:0], syncDATA), uint32(n))
		w.Write(h)
		if _, err := w.Write(data[:n]); err != nil {
			return err
		}
		data = data[n:]
	}
	_, err = w.Write(putU32(putU32(h[:0], syncDONE), 0))
	return err
}

// syncSend answers SEND "path,mode": DATA chunks until DONE (whose argument
// is the mtime), then OKAY, or FAIL (ending the session).
func syncSend(r io.Reader, w *bufio.Writer, fsys FileSystem, spec string) error {
	p, mode := spec, uint64(0o100644)
	if i := strings.LastIndexByte(spec, ','); i >= 0 {
		p = spec[:i]
		m, err := strconv.ParseUint(spec[i+1:], 10, 32)
		if err != nil {
			return syncFail(w, "invalid SEND mode")
		}
		mode = m
	}
	var buf bytes.Buffer
	for {
		id, n, err := readSyncHeader(r)
		if err != nil {
			return io.ErrUnexpectedEOF
		}
		switch id {
		case syncDATA:
			if n > syncMaxChunk {
				return syncFail(w, "data chunk too large")
			}
			if buf.Len()+int(n) > syncMaxFile {
				return syncFail(w, "file too large")
			}
			if _, err := io.CopyN(&buf, r, int64(n)); err != nil {
				return io.ErrUnexpectedEOF
			}
		case syncDONE:
			mtime := time.Unix(int64(n), 0)
			if err := fsys.WriteFile(p, buf.Bytes(), uint32(mode)&0o7777, mtime); err != nil {
				return syncFail(w, "couldn't create file: "+errnoText(errno(err)))
			}
			_, err := w.Write(putU32(putU32(nil, syncOKAY), 0))
			return err
		default:
			return syncFail(w, "invalid data message")
		}
	}
}

// syncFail sends FAIL msg and returns an error ending the session.
func syncFail(w *bufio.Writer, msg string) error {
	w.Write(appendFail(nil, msg))
	w.Flush()
	return errors.New("sync: " + msg)
}
