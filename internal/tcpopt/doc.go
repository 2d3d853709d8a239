// Package tcpopt holds TCP socket options the adb client and the SSH
// tunnel share.
//
// A long-lived TCP connection leaves Linux's initial quick-ack mode and
// has its acknowledgements delayed (up to 40 ms). A peer that writes
// small packets as they come without TCP_NODELAY (the adb server on its
// local socket; OpenSSH's sshd on a connection with no interactive
// session, which alone sets TCP_NODELAY, sshd(8) / packet.c
// ssh_packet_set_interactive) then has Nagle hold its second small packet
// until the first is acknowledged: every exchange of two packets waits for
// the delayed ACK. A new connection never waits so: it is still
// quick-acking. The mode does not stick (tcp(7): "not permanent"), so
// Reader sets it before every read.
package tcpopt

import "net"

// Reader reads Conn with QuickAck re-armed before every read.
type Reader struct{ Conn net.Conn }

func (r Reader) Read(p []byte) (int, error) {
	QuickAck(r.Conn)
	return r.Conn.Read(p)
}

// Conn is a net.Conn whose reads re-arm QuickAck first.
type Conn struct{ net.Conn }

func (c Conn) Read(p []byte) (int, error) {
	QuickAck(c.Conn)
	return c.Conn.Read(p)
}
