package adb

import (
	"strings"
	"testing"

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
