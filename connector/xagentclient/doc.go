// Package xagentclient is a small xAgent-side data-plane client (xAgent
// Connector protocol 3.0, §6-§8): it dials /ws with the API key and
// subprotocol, says hello, opens channels, sends requests and waits for
// their acks or for pushes. `adb-connector try` is an agent through it;
// package xagenttest wraps it for tests, validating every packet against
// the public JSON Schemas.
package xagentclient
