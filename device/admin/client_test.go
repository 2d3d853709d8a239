package admin_test

import (
	"bufio"
	"context"
	"errors"
	"net"
	"path/filepath"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/adb-connector/adb-connector/device/admin"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// fakeServer answers each request line with the next canned reply; a reply
// of "" means: read the request, signal got, and never answer.
func fakeServer(t *testing.T, replies ...string) (path string, got <-chan string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "admin.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan string, len(replies))
	var wg sync.WaitGroup
	var conn net.Conn
	var mu sync.Mutex
	wg.Go(func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		mu.Lock()
		conn = c
		mu.Unlock()
		r := bufio.NewReader(c)
		for _, reply := range replies {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			ch <- line
			if reply == "" {
				r.ReadString('\n') // until the client goes away
				return
			}
			c.Write([]byte(reply + "\n"))
		}
	})
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		if conn != nil {
			conn.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return path, ch
}

func TestDialNotRunning(t *testing.T) {
	dir := t.TempDir()
	if _, err := admin.Dial(context.Background(), filepath.Join(dir, "admin.sock")); !errors.Is(err, admin.ErrNotRunning) {
		t.Fatalf("missing socket: %v", err)
	}
	stale := filepath.Join(dir, "stale.sock")
	ln, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if _, err := admin.Dial(context.Background(), stale); !errors.Is(err, admin.ErrNotRunning) {
		t.Fatalf("stale socket: %v", err)
	}
}

func TestCalls(t *testing.T) {
	path, got := fakeServer(t,
		`{"ok":true}`,
		`{"ok":true,"code":"7K3M-Q9XD"}`,
		`{"error":{"code":"device_in_use","message":"device is in use by another channel"}}`,
		`{}`,
		`not json`,
	)
	ctx := context.Background()
	c, err := admin.Dial(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rows, err := c.Devices(ctx)
	if err != nil || rows == nil || len(rows) != 0 {
		t.Fatalf("Devices = %v, %v; want an empty, non-nil list", rows, err)
	}
	if line := <-got; line != `{"op":"devices"}`+"\n" {
		t.Errorf("request line %q", line)
	}
	code, err := c.Pair(ctx, "S1", 0)
	if err != nil || code != "7K3M-Q9XD" {
		t.Fatalf("Pair = %q, %v", code, err)
	}
	if line := <-got; line != `{"op":"pair","serial":"S1"}`+"\n" {
		t.Errorf("request line %q", line)
	}
	_, err = c.Approve(ctx, "K7Q-M2X", "")
	var ae *admin.Error
	if !errors.As(err, &ae) || ae.Code != "device_in_use" || err.Error() != "device is in use by another channel" {
		t.Fatalf("Approve err = %v", err)
	}
	<-got
	if _, err := c.Unbind(ctx, "S1"); err == nil {
		t.Fatal("a reply neither ok nor error was accepted")
	}
	<-got
	if _, err := c.Devices(ctx); err == nil {
		t.Fatal("a non-JSON reply was accepted")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestCallCanceled(t *testing.T) {
	path, got := fakeServer(t, "")
	ctx, cancel := context.WithCancel(context.Background())
	c, err := admin.Dial(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() {
		<-got // the request arrived; the server will never answer
		cancel()
	}()
	if _, err := c.Devices(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Devices err = %v, want context.Canceled", err)
	}
}

// TestCallAfterCanceledCall: a response that arrives after its call gave up
// must not be read as the answer to the next call.
func TestCallAfterCanceledCall(t *testing.T) {
	path := filepath.Join(t.TempDir(), "admin.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	got, release := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		r := bufio.NewReader(c)
		if _, err := r.ReadString('\n'); err != nil {
			return
		}
		close(got)
		<-release
		c.Write([]byte(`{"ok":true,"code":"STALE-CODE"}` + "\n"))
		if _, err := r.ReadString('\n'); err != nil {
			return
		}
		c.Write([]byte(`{"ok":true,"code":"FRESH-CODE"}` + "\n"))
	})
	t.Cleanup(func() { ln.Close(); wg.Wait() })

	c, err := admin.Dial(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-got; cancel() }()
	if _, err := c.Pair(ctx, "S1", 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("first Pair err = %v, want context.Canceled", err)
	}
	close(release)
	code, err := c.Pair(t.Context(), "S2", 0)
	if code != "" || !errors.Is(err, admin.ErrBroken) {
		t.Fatalf("second Pair = %q, %v; want ErrBroken, not the first call's late answer", code, err)
	}
}
