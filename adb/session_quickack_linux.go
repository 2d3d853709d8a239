package adb

import (
	"net"
	"syscall"
)

// quickAck asks the kernel to acknowledge what conn receives next at
// once (TCP_QUICKACK, tcp(7)). A session is a long-lived connection, so
// Linux leaves its initial quick-ack mode and delays acknowledgements (up
// to 40 ms); the adb server writes each shell packet to its local socket
// as it comes, without TCP_NODELAY, so Nagle holds a second small packet
// (the stderr marker after stdout's) until the first is acknowledged. A
// stream of its own never waits so: it is new, and still quick-acking.
// The mode does not stick (tcp(7): "not permanent"), so it is set before
// every read.
func quickAck(conn net.Conn) {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return
	}
	if rc, err := sc.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) {
			_ = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_QUICKACK, 1)
		})
	}
}
