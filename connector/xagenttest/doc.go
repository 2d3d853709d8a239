// Package xagenttest is a small xAgent-like data-plane client for tests: it
// dials /ws with the API key and subprotocol, says hello, opens channels,
// sends requests and waits for their acks or for pushes, and validates EVERY
// packet it receives (and every connection_descriptor inside) against the
// public JSON Schemas in testdata/schemas. Other packages' end-to-end tests
// and bench/wsping reuse it.
package xagenttest
