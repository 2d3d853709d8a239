package adb

import (
	"context"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest/adbserver"
)

func forKey(key string, typ EventType, st State) func(Event) bool {
	return func(ev Event) bool { return ev.Device.Key == key && ev.Type == typ && ev.Device.State == st }
}

func TestTrackLifecycle(t *testing.T) {
	adb := adbserver.Start(t)
	c := newTestClient(t, Config{}, adb)
	ch := c.Watch(t.Context())
	td := startDevice(t, c, adb)

	nextEvent(t, ch, "appeared", func(ev Event) bool { return ev.Device.Key == td.Key && ev.Type == Appeared })
	ev := nextEvent(t, ch, "device", func(ev Event) bool { return ev.Device.Key == td.Key && ev.Device.State == StateDevice })
	if ev.Device.Model != "Fake_Model" || ev.Device.Transport != TransportTCP {
		t.Errorf("device info = %+v", ev.Device)
	}

	// A late watcher first gets the current devices.
	late := c.Watch(t.Context())
	nextEvent(t, late, "snapshot", forKey(td.Key, Appeared, StateDevice))

	td.srv.SetUnauthorized(true)
	nextEvent(t, ch, "unauthorized", forKey(td.Key, StateChanged, StateUnauthorized))
	td.srv.SetUnauthorized(false)
	nextEvent(t, ch, "authorized again", forKey(td.Key, StateChanged, StateDevice))

	// gadb defect: offline devices vanished from the list. Here they stay.
	if err := td.srv.Vanish(time.Hour); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, ch, "offline", forKey(td.Key, StateChanged, StateOffline))
	list, err := c.Devices(t.Context())
	if err != nil || len(list) != 1 || list[0].State != StateOffline {
		t.Fatalf("Devices while offline = %+v, %v", list, err)
	}
	if tr := c.Tracked(); len(tr) != 1 || tr[0].State != StateOffline {
		t.Fatalf("Tracked while offline = %+v", tr)
	}

	if err := c.Disconnect(t.Context(), adb.Addr, td.srv.Addr()); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, ch, "gone", func(ev Event) bool { return ev.Device.Key == td.Key && ev.Type == Gone })
}

func TestTrackServerRestart(t *testing.T) {
	adb := adbserver.Start(t)
	c := newTestClient(t, Config{}, adb)
	ch := c.Watch(t.Context())
	td := startDevice(t, c, adb)
	nextEvent(t, ch, "device", func(ev Event) bool { return ev.Device.Key == td.Key && ev.Device.State == StateDevice })

	adb.Kill()
	ev := nextEvent(t, ch, "server down", forKey(td.Key, StateChanged, StateOffline))
	if !ev.ServerDown {
		t.Errorf("ServerDown not set: %+v", ev)
	}
	if tr := c.Tracked(); len(tr) != 1 {
		t.Fatalf("device dropped while its server is down: %+v", tr)
	}

	adb.Resume()
	// The new server does not know the TCP device: reported Gone.
	nextEvent(t, ch, "gone after restart", func(ev Event) bool { return ev.Device.Key == td.Key && ev.Type == Gone })
	if err := c.Connect(t.Context(), adb.Addr, td.srv.Addr()); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, ch, "back", func(ev Event) bool { return ev.Device.Key == td.Key && ev.Device.State == StateDevice })
}

func TestTrackTwoServers(t *testing.T) {
	a, b := adbserver.Start(t), adbserver.Start(t)
	c := newTestClient(t, Config{}, a, b)
	ch := c.Watch(t.Context())
	d1 := startDevice(t, c, a)
	d2 := startDevice(t, c, b)
	nextEvent(t, ch, "d1", func(ev Event) bool { return ev.Device.Key == d1.Key && ev.Device.State == StateDevice })
	nextEvent(t, ch, "d2", func(ev Event) bool { return ev.Device.Key == d2.Key && ev.Device.State == StateDevice })
}

func TestWatchStopsWithContext(t *testing.T) {
	adb := adbserver.Start(t)
	c := newTestClient(t, Config{}, adb)
	ctx, cancel := context.WithCancel(t.Context())
	ch := c.Watch(ctx)
	cancel()
	for range ch {
	}
}
