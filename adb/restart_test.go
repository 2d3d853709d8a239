package adb

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest/adbserver"
	"github.com/adb-connector/adb-connector/internal/testkit"
)

// TestTrackRestartsLocalServer: with StartLocalServer, a loopback adb
// server that dies while the Client runs is started again by tracking
// (one Warn for the outage, Info once started). The new server does not
// know the TCP device: it is reported Gone. Once the cleanups ran, no adb
// process is left on the port.
func TestTrackRestartsLocalServer(t *testing.T) {
	var port int
	t.Run("restart", func(t *testing.T) {
		adb := adbserver.Start(t)
		port = adb.Port
		testTrackRestartsLocalServer(t, adb)
	})
	if pids := adbserver.Processes(port); len(pids) > 0 {
		t.Errorf("stray adb processes for port %d: %v", port, pids)
	}
}

func testTrackRestartsLocalServer(t *testing.T, adb *adbserver.Server) {
	logs := &testkit.LogBuffer{}
	c := newTestClient(t, Config{StartLocalServer: true, Logger: logs.TextLogger()}, adb)
	ch := c.Watch(t.Context())
	td := startDevice(t, c, adb)
	nextEvent(t, ch, "device", func(ev Event) bool { return ev.Device.Key == td.Key && ev.Device.State == StateDevice })

	// adb kill-server: nobody but the Client starts it again. The server
	// it starts is a daemon, which adb's cleanup (after the Client's) stops.
	adb.Kill()
	nextEvent(t, ch, "server down", func(ev Event) bool { return ev.Device.Key == td.Key && ev.ServerDown })
	nextEvent(t, ch, "gone on the started server", func(ev Event) bool { return ev.Device.Key == td.Key && ev.Type == Gone })
	if _, err := c.ServerVersion(t.Context(), adb.Addr); err != nil {
		t.Fatalf("server not started again: %v", err)
	}
	out := logs.String()
	if n := strings.Count(out, "is down; starting it"); n != 1 {
		t.Errorf("%d warnings that the server is down, want 1:\n%s", n, out)
	}
	for _, want := range []string{`level=WARN msg="adb server at ` + adb.Addr + ` is down; starting it"`,
		`level=INFO msg="started local adb server"`} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s:\n%s", want, out)
		}
	}
}

// TestKeepConnected: a device kept with KeepConnected is attached again to
// an adb server that restarted (started by the Client with
// StartLocalServer, or by someone else) and reported device again, in
// tracking and in the server's own list; Disconnect ends the keeping.
func TestKeepConnected(t *testing.T) {
	for _, startLocal := range []bool{true, false} {
		name := "started by the Client"
		if !startLocal {
			name = "restarted by someone else"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var port int
			t.Run("keep", func(t *testing.T) {
				adb := adbserver.Start(t)
				port = adb.Port
				testKeepConnected(t, adb, startLocal)
			})
			if pids := adbserver.Processes(port); len(pids) > 0 {
				t.Errorf("stray adb processes for port %d: %v", port, pids)
			}
		})
	}
}

func testKeepConnected(t *testing.T, adb *adbserver.Server, startLocal bool) {
	logs := &testkit.LogBuffer{}
	c := newTestClient(t, Config{StartLocalServer: startLocal, Logger: logs.TextLogger()}, adb)
	ch := c.Watch(t.Context())
	td := startDevice(t, c, adb)
	if err := c.KeepConnected(t.Context(), adb.Addr, td.srv.Addr()); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, ch, "device", func(ev Event) bool { return ev.Device.Key == td.Key && ev.Device.State == StateDevice })

	adb.Kill()
	nextEvent(t, ch, "server down", func(ev Event) bool { return ev.Device.Key == td.Key && ev.ServerDown })
	if !startLocal {
		adb.Resume()
	}
	nextEvent(t, ch, "device on the new server", func(ev Event) bool {
		return ev.Device.Key == td.Key && ev.Device.State == StateDevice && !ev.ServerDown
	})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if st, err := adbserver.State(ctx, adb.Addr, td.srv.Addr()); err != nil || st != "device" {
		t.Errorf("the new server lists %s as %q (%v), want device", td.srv.Addr(), st, err)
	}
	// The record follows the connect, which the list may show first.
	waitLog(t, logs, `level=INFO msg="re-attached devices to adb server" endpoint=`+adb.Addr)

	if err := c.Disconnect(t.Context(), adb.Addr, td.srv.Addr()); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, ch, "gone", func(ev Event) bool { return ev.Device.Key == td.Key && ev.Type == Gone })
	c.mu.Lock()
	kept := len(c.keep[adb.Addr])
	c.mu.Unlock()
	if kept != 0 {
		t.Errorf("%d devices still kept after Disconnect", kept)
	}
}

// waitLog polls logs every 20 ms (at most 20 s) until they contain want.
func waitLog(t *testing.T, logs *testkit.LogBuffer, want string) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(20 * time.Second)
	for !strings.Contains(logs.String(), want) {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("log lacks %s:\n%s", want, logs.String())
		}
	}
}
