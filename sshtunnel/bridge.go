package sshtunnel

import (
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
)

// An SSH channel is no socket: x/crypto/ssh's direct-tcpip conn refuses
// deadlines, and nothing can peek at it without reading. The adb client
// needs both (a hung server's handshake deadline, an idle session's
// liveness peek, a touch stream's write deadline), so each channel is
// bridged to one end of a Unix socket pair (socketpair(2)); the adb client
// gets the other end, a real socket. The cost is two goroutines, two FDs
// and one more copy per byte, in exchange for the adb client keeping one
// code path for every endpoint.

// bridgeBuf is each copy's buffer: an SSH channel delivers at most one
// packet (32 KiB of data, RFC 4254 section 5.2 with OpenSSH's default
// window) per Read.
const bridgeBuf = 32 << 10

// bridges tracks the live bridges of a Tunnel, so Close ends them all.
type bridges struct {
	mu   sync.Mutex
	live map[*bridge]struct{}
	wg   sync.WaitGroup
	done bool
}

type bridge struct {
	rw    io.ReadWriteCloser // the channel
	local *net.UnixConn      // our end of the pair
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, bridgeBuf); return &b }}

// bridge connects ch to a new socket pair and returns the adb client's end.
func (bs *bridges) bridge(ch net.Conn) (net.Conn, error) {
	// SOCK_CLOEXEC is Linux's and a release also builds for macOS: the
	// fds are marked close-on-exec under syscall.ForkLock, as package net
	// does, so an adb server serve starts never inherits one.
	syscall.ForkLock.RLock()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, fmt.Errorf("socketpair: %w", err)
	}
	theirs, err := fileConn(fds[0], "adb")
	if err != nil {
		syscall.Close(fds[1])
		return nil, err
	}
	ours, err := fileConn(fds[1], "ssh")
	if err != nil {
		theirs.Close()
		return nil, err
	}
	b := &bridge{rw: ch, local: ours.(*net.UnixConn)}
	bs.mu.Lock()
	if bs.done {
		bs.mu.Unlock()
		theirs.Close()
		ours.Close()
		return nil, ErrClosed
	}
	if bs.live == nil {
		bs.live = map[*bridge]struct{}{}
	}
	bs.live[b] = struct{}{}
	bs.wg.Add(2)
	bs.mu.Unlock()
	// Lab host to adb client: the channel's end (the adb server closed,
	// or the SSH connection dropped) is passed on as end of stream after
	// the bytes before it.
	go func() {
		defer bs.wg.Done()
		copyBuf(b.local, ch)
		_ = b.local.CloseWrite()
		_ = ch.Close()
	}()
	// adb client to lab host: the adb client never half-closes, so its
	// end of stream (or a write failing on a dropped channel) ends both.
	go func() {
		defer bs.wg.Done()
		copyBuf(ch, b.local)
		_ = ch.Close()
		_ = b.local.Close()
		bs.mu.Lock()
		delete(bs.live, b)
		bs.mu.Unlock()
	}()
	return theirs, nil
}

func copyBuf(dst io.Writer, src io.Reader) {
	bp := bufPool.Get().(*[]byte)
	_, _ = io.CopyBuffer(dst, src, *bp)
	bufPool.Put(bp)
}

// fileConn makes a net.Conn of a socket fd (closing fd either way).
func fileConn(fd int, name string) (net.Conn, error) {
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	c, err := net.FileConn(f)
	if err != nil {
		return nil, fmt.Errorf("socketpair conn: %w", err)
	}
	return c, nil
}

// closeAll ends every bridge and waits for their goroutines.
func (bs *bridges) closeAll() {
	bs.mu.Lock()
	bs.done = true
	for b := range bs.live {
		_ = b.rw.Close()
		_ = b.local.Close()
	}
	bs.mu.Unlock()
	bs.wg.Wait()
}
