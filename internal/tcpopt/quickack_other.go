//go:build !linux

package tcpopt

import "net"

// QuickAck has no portable equivalent of Linux's TCP_QUICKACK: a reader
// there may wait for the peer's delayed acknowledgement.
func QuickAck(net.Conn) {}
