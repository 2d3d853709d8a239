package adb

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adb-connector/adb-connector/adb/adbtest/adbserver"
)

func TestServerVersionAndEmptyList(t *testing.T) {
	adb := adbserver.Start(t)
	c := newTestClient(t, Config{}, adb)
	v, err := c.ServerVersion(t.Context(), adb.Addr)
	if err != nil {
		t.Fatal(err)
	}
	if v < 30 {
		t.Errorf("version %d", v)
	}
	list, err := c.Devices(t.Context())
	if err != nil || len(list) != 0 {
		t.Fatalf("Devices = %v, %v", list, err)
	}
}

func TestDevicesListsConnectedDevice(t *testing.T) {
	adb := adbserver.Start(t)
	c := newTestClient(t, Config{NoTracking: true}, adb)
	td := startDevice(t, c, adb)
	list, err := c.Devices(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []DeviceInfo{{
		Key: td.Key, Endpoint: adb.Addr, Serial: td.srv.Addr(), State: StateDevice,
		Model: "Fake_Model", Product: "fakeprod", Device: "fakedev", Transport: TransportTCP,
	}}
	if diff := cmp.Diff(want, list, cmpIgnoreTransportID); diff != "" {
		t.Errorf("Devices (-want +got):\n%s", diff)
	}
}

func TestTwoServersFormOneList(t *testing.T) {
	a, b := adbserver.Start(t), adbserver.Start(t)
	c := newTestClient(t, Config{NoTracking: true}, a, b)
	d1 := startDevice(t, c, a)
	d2 := startDevice(t, c, b)
	list, err := c.Devices(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, d := range list {
		keys = append(keys, d.Key)
	}
	want := []string{d1.Key, d2.Key}
	if want[0] > want[1] {
		want[0], want[1] = want[1], want[0]
	}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
}

func TestDevicesPartialWhenOneServerDown(t *testing.T) {
	a, b := adbserver.Start(t), adbserver.Start(t)
	c := newTestClient(t, Config{NoTracking: true}, a, b)
	d1 := startDevice(t, c, a)
	b.Kill()
	list, err := c.Devices(t.Context())
	if !errors.Is(err, ErrServerUnavailable) {
		t.Fatalf("err = %v, want ErrServerUnavailable", err)
	}
	if len(list) != 1 || list[0].Key != d1.Key {
		t.Fatalf("list = %+v", list)
	}
}

func TestStartLocalServer(t *testing.T) {
	port := adbserver.FreePort(t)
	ep := "127.0.0.1:" + strconv.Itoa(port)
	c, err := New(t.Context(), Config{Endpoints: []string{ep}, StartLocalServer: true, NoTracking: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The started server is a daemon: stop it through the protocol.
		if hc, err := c.dialHost(context.Background(), ep); err == nil {
			_ = hc.send("host:kill")
			_, _ = hc.br.ReadByte()
			hc.Close()
		}
	})
	defer c.Close()
	if _, err := c.ServerVersion(t.Context(), ep); err != nil {
		t.Fatal(err)
	}
}

func TestStartLocalServerWithoutADB(t *testing.T) {
	port := adbserver.FreePort(t)
	_, err := New(t.Context(), Config{
		Endpoints: []string{"127.0.0.1:" + strconv.Itoa(port)}, StartLocalServer: true,
		ADBPath: "adb-not-installed-here", NoTracking: true,
	})
	if err == nil || !strings.Contains(err.Error(), "apt-get install -y adb") {
		t.Fatalf("err = %v", err)
	}
}

func TestCloseIdempotent(t *testing.T) {
	c, err := New(t.Context(), Config{Endpoints: []string{"127.0.0.1:" + strconv.Itoa(adbserver.FreePort(t))}})
	if err != nil {
		t.Fatal(err)
	}
	ch := c.Watch(t.Context())
	c.Close()
	c.Close()
	if _, ok := <-ch; ok {
		t.Fatal("watch channel open after Close")
	}
	if _, err := c.Devices(t.Context()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Devices after Close: %v", err)
	}
}

// Connect and Disconnect turn the server's refusals into errors naming the
// operation and address.
func TestConnectDisconnectRefused(t *testing.T) {
	adb := adbserver.Start(t)
	c := newTestClient(t, Config{NoTracking: true}, adb)
	nobody := "127.0.0.1:" + strconv.Itoa(adbserver.FreePort(t))
	for _, tt := range []struct {
		name string
		call func(ctx context.Context, endpoint, addr string) error
	}{
		{"connect", c.Connect},
		{"disconnect", c.Disconnect},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call(t.Context(), adb.Addr, nobody)
			if err == nil || !strings.HasPrefix(err.Error(), tt.name+" "+nobody+": ") {
				t.Fatalf("err = %v, want it to start %q", err, tt.name+" "+nobody+": ")
			}
			var fe *FailError
			if !errors.As(err, &fe) || fe.Message == "" {
				t.Errorf("err = %#v, want a *FailError with the server's message", err)
			}
		})
	}
}
