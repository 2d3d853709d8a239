package adb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// silentServer accepts connections and never answers: a hung adb server.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	})
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return ln.Addr().String()
}

// gadb defect: one package-global read deadline (in seconds, overflowing
// when set to 10*time.Second), no dial timeout. Here each call has its own
// context deadline, including against a server that accepts and never
// answers.
func TestPerCallDeadlineOnHungServer(t *testing.T) {
	addr := silentServer(t)
	c := newTestClient(t, Config{NoTracking: true, Endpoints: []string{addr}})
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.Devices(ctx); !errors.Is(err, ErrTimeout) {
		t.Fatalf("Devices: %v, want ErrTimeout", err)
	}
	ctx2, cancel2 := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel2()
	if _, err := shellKey(ctx2, c, DeviceKey(addr, "x"), "true"); !errors.Is(err, ErrTimeout) {
		t.Fatalf("Shell: %v, want ErrTimeout", err)
	}
}

// Concurrent commands with different deadlines do not affect each other.
func TestConcurrentShellsIndependentDeadlines(t *testing.T) {
	_, td, d := shellEnv(t)
	td.backend.setHandler(func(ctx context.Context, cmdline string, stdout, stderr io.Writer) int {
		if cmdline == "block" {
			<-ctx.Done()
			return 1
		}
		fmt.Fprint(stdout, cmdline)
		return 0
	})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 3 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
			defer cancel()
			if _, err := d.Shell(ctx, "block"); !errors.Is(err, ErrTimeout) {
				errs <- fmt.Errorf("blocked shell %d: %v", i, err)
			}
		})
	}
	for i := range 8 {
		wg.Go(func() {
			res, err := d.Shell(t.Context(), "echo", fmt.Sprint(i))
			if err != nil || string(res.Stdout) != fmt.Sprintf("echo %d", i) {
				errs <- fmt.Errorf("shell %d: %q %v", i, res.Stdout, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// An adb server that accepts the tracking connection but never answers
// host:track-devices-l is a server down: its devices are reported offline
// (ServerDown) instead of the tracker waiting on the handshake for ever.
func TestTrackHungServerHandshake(t *testing.T) {
	addr := silentServer(t)
	c := newTestClient(t, Config{NoTracking: true, Endpoints: []string{addr}})
	c.tracker.apply(addr, []DeviceInfo{{Key: DeviceKey(addr, "A"), Endpoint: addr, Serial: "A", State: StateDevice}})
	ch := c.Watch(t.Context())
	nextEvent(t, ch, "replay", func(ev Event) bool { return ev.Type == Appeared })
	c.wg.Go(func() { c.tracker.run(c.ctx, addr) })
	nextEvent(t, ch, "server down", func(ev Event) bool {
		return ev.Type == StateChanged && ev.ServerDown && ev.Device.State == StateOffline
	})
}
