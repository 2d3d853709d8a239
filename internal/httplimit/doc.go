// Package httplimit keeps the HTTP server of adb-connector up when clients
// hold connections open: a [Listener] caps open connections in total and per
// remote IP address, evicting the longest-idle connection first and refusing
// only when every connection is busy, and [Listener.Server] sets the
// read, write and idle timeouts of the control plane (protocol 3.0 §4).
//
// The /ws data plane and /files downloads are excepted from the write
// timeout where they manage their own deadlines: net/http clears a
// connection's deadlines when websocket.Accept hijacks it, and the download
// handler extends its write deadline per chunk (protocol 3.0 §5.2).
package httplimit
