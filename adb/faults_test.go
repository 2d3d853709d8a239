package adb

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest"
)

// The same faults as in shell_test.go and track_test.go, through adbtest's
// virtual phone (android backend) instead of the scripted one.
func TestFaultsOnVirtualPhone(t *testing.T) {
	env := adbtest.Start(t, adbtest.Options{Devices: 2})
	c := newTestClient(t, Config{Endpoints: []string{env.ServerAddr}})
	ch := c.Watch(t.Context())
	keys := []string{DeviceKey(env.ServerAddr, env.Devices[0].Serial()), DeviceKey(env.ServerAddr, env.Devices[1].Serial())}
	waitAllReady(t, ch, keys)

	t.Run("drop mid-command", func(t *testing.T) {
		d, _ := c.Device(keys[0])
		done := make(chan error, 1)
		go func() {
			ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
			defer cancel()
			_, err := d.shellScript(ctx, opRead, "echo > /data/local/tmp/started; sleep 100")
			done <- err
		}()
		// Wait until the command runs on the device, then pull the cable.
		fs := env.Devices[0].Android().Files()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			if _, err := fs.Stat("/data/local/tmp/started"); err == nil {
				break
			}
			<-tick.C
		}
		env.Devices[0].DropLink()
		if err := <-done; !errors.Is(err, ErrDeviceOffline) {
			t.Fatalf("err = %v, want ErrDeviceOffline", err)
		}
		env.WaitState(env.Devices[0], "device")
	})

	t.Run("unauthorized reported", func(t *testing.T) {
		env.Devices[1].SetUnauthorized(true)
		nextEvent(t, ch, "unauthorized", forKey(keys[1], StateChanged, StateUnauthorized))
		d, _ := c.Device(keys[1])
		if _, err := d.Shell(t.Context(), "true"); !errors.Is(err, ErrUnauthorized) {
			t.Errorf("shell on unauthorized: %v", err)
		}
		env.Devices[1].SetUnauthorized(false)
		nextEvent(t, ch, "authorized", forKey(keys[1], StateChanged, StateDevice))
	})

	t.Run("server restart", func(t *testing.T) {
		env.RestartServer()
		nextEvent(t, ch, "server down", func(ev Event) bool { return ev.ServerDown && ev.Device.Key == keys[0] })
		waitAllReady(t, ch, keys)
		if _, err := shellKey(t.Context(), c, keys[0], "true"); err != nil {
			t.Fatal(err)
		}
	})
}

// waitAllReady waits until every key has been reported in state device,
// in any order.
func waitAllReady(t *testing.T, ch <-chan Event, keys []string) {
	t.Helper()
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	for len(want) > 0 {
		nextEvent(t, ch, "ready", func(ev Event) bool {
			if ev.Device.State == StateDevice && want[ev.Device.Key] {
				delete(want, ev.Device.Key)
				return true
			}
			return false
		})
	}
}
