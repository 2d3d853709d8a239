//go:build !linux

package adb

import "net"

// quickAck has no portable equivalent of Linux's TCP_QUICKACK: a session
// there may wait for the peer's delayed acknowledgement.
func quickAck(net.Conn) {}
