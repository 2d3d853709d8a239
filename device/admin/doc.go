// Package admin is the operator's admin socket: a Unix socket in the data
// directory (mode 0600: file permissions are the access control) over
// which `adb-connector devices | pair | approve | unbind | reset |
// requests | answer | decline` reach the running server, the only writer
// of its database. protocol.go is the wire format (one JSON object per
// line each way), server.go the server side (Serve, answered by a Handler,
// the operator API), client.go the CLI's side. It imports nothing of the
// Profile, adb or SQLite, so the CLI stays small.
package admin
