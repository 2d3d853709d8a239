package adb

import (
	"testing"

	"github.com/adb-connector/adb-connector/adb/adbtest/adbserver"
)

// TestServersUp: ServersUp says true once an adb server's device list
// arrives, false from the moment tracking loses it (its devices reported
// offline), and true again once it answers; every endpoint is listed.
func TestServersUp(t *testing.T) {
	t.Parallel()
	adb := adbserver.Start(t)
	c := newTestClient(t, Config{}, adb)
	ch := c.Watch(t.Context())
	td := startDevice(t, c, adb)
	nextEvent(t, ch, "device", func(ev Event) bool { return ev.Device.Key == td.Key && ev.Device.State == StateDevice })
	if up := c.ServersUp(); len(up) != 1 || !up[adb.Addr] {
		t.Fatalf("ServersUp %v, want %s up", up, adb.Addr)
	}

	adb.Kill()
	nextEvent(t, ch, "server down", func(ev Event) bool { return ev.Device.Key == td.Key && ev.ServerDown })
	if up := c.ServersUp(); up[adb.Addr] {
		t.Fatalf("ServersUp %v after the server was killed, want down", up)
	}

	adb.Restart()
	// The new server does not know the TCP device: Gone comes with its
	// first list.
	nextEvent(t, ch, "gone on the new server", func(ev Event) bool { return ev.Device.Key == td.Key && ev.Type == Gone })
	if up := c.ServersUp(); !up[adb.Addr] {
		t.Fatalf("ServersUp %v after the server came back, want up", up)
	}
}
