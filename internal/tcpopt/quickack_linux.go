package tcpopt

import (
	"net"
	"syscall"
)

// QuickAck asks the kernel to acknowledge what conn receives next at
// once (TCP_QUICKACK, tcp(7)); a conn that is no TCP socket is left alone.
func QuickAck(conn net.Conn) {
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
