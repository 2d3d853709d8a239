//go:build !unix

package adb

import "net"

// readable cannot look without reading on this platform: an idle session
// is taken as alive, and a dead one fails its next command.
func readable(net.Conn) bool { return false }
