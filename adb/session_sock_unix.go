//go:build unix

package adb

import (
	"errors"
	"net"
	"syscall"
)

// readable reports whether conn has data or its end waiting, without
// consuming or waiting for anything: a non-blocking MSG_PEEK (recv(2)). A
// read deadline in the past would not do: Go fails such a read before it
// asks the kernel.
func readable(conn net.Conn) bool {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	var buf [1]byte
	var rerr error
	if err := rc.Read(func(fd uintptr) bool {
		_, _, rerr = syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return true
	}); err != nil {
		return true
	}
	// Anything but "nothing yet" (data, the end of the stream, an error)
	// means the idle session has something to say: it is no longer usable.
	return !errors.Is(rerr, syscall.EAGAIN) && !errors.Is(rerr, syscall.EWOULDBLOCK) && !errors.Is(rerr, syscall.EINTR)
}
