package operator

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/internal/testkit"
)

// startAdmin serves the API over env on a socket in its data dir.
func startAdmin(t *testing.T, e *testEnv) string {
	t.Helper()
	path := admin.SocketPath(e.dir)
	closeFn, err := admin.Serve(context.Background(), path, e.api(), admin.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := closeFn(); err != nil {
			t.Errorf("close: %v", err)
		}
		if err := closeFn(); err != nil {
			t.Errorf("second close: %v", err)
		}
		if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("socket left behind: %v", err)
		}
	})
	return path
}

type rawConn struct {
	c net.Conn
	r *bufio.Reader
}

func dialRaw(t *testing.T, path string) *rawConn {
	t.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{c, bufio.NewReader(c)}
}

func (rc *rawConn) roundTrip(t *testing.T, line string) admin.Response {
	t.Helper()
	if _, err := rc.c.Write([]byte(line + "\n")); err != nil {
		t.Fatal(err)
	}
	b, err := rc.r.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var resp admin.Response
	if err := json.Unmarshal(b, &resp); err != nil {
		t.Fatalf("response %q: %v", b, err)
	}
	return resp
}

func TestAdminSocketFlows(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	ctx := context.Background()
	e.setDevices(dev("127.0.0.1:5037", "S1", "device"), dev("127.0.0.1:5037", "S2", "unauthorized"))
	path := startAdmin(t, e)
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket mode = %v, %v; want a 0600 socket", fi.Mode(), err)
	}
	if left, _ := filepath.Glob(filepath.Join(e.dir, ".admin-*")); len(left) != 0 {
		t.Errorf("temp dirs left: %v", left)
	}
	rc := dialRaw(t, path)

	resp := rc.roundTrip(t, `{"op":"pair","serial":"S1","ttl":"5m"}`)
	if !resp.OK || resp.Code == "" {
		t.Fatalf("pair = %+v", resp)
	}
	if _, err := e.pairing.RedeemPairing(ctx, "chA", "S1", resp.Code); err != nil {
		t.Fatalf("redeem the code from the socket: %v", err)
	}
	s, err := e.requests.StartRequest(ctx, "chB")
	if err != nil {
		t.Fatal(err)
	}
	resp = rc.roundTrip(t, `{"op":"approve","code":"`+strings.ToLower(s.Code)+`","serial":"S2"}`)
	if !resp.OK || resp.Device != "127.0.0.1:5037/S2" {
		t.Fatalf("approve = %+v", resp)
	}
	resp = rc.roundTrip(t, `{"op":"devices"}`)
	want := []admin.DeviceRow{
		{Serial: "S1", Endpoint: "127.0.0.1:5037", State: "device", Model: "Pixel 7", Bound: true,
			Holder: &admin.Holder{Channel: "chA", ChannelID: "chA", BoundSince: e.clock.Now()}},
		{Serial: "S2", Endpoint: "127.0.0.1:5037", State: "unauthorized", Model: "Pixel 7", Bound: true,
			Holder: &admin.Holder{Channel: "chB", ChannelID: "chB", BoundSince: e.clock.Now()}},
	}
	if diff := cmp.Diff(want, resp.Devices); diff != "" || !resp.OK {
		t.Fatalf("devices (-want +got):\n%s", diff)
	}
	resp = rc.roundTrip(t, `{"op":"unbind","serial":"S1"}`)
	if !resp.OK || resp.Device != "127.0.0.1:5037/S1" {
		t.Fatalf("unbind = %+v", resp)
	}
	if bd, err := e.bindings.ByChannel(ctx, "chA"); err != nil || bd.State != binding.Revoked {
		t.Fatalf("after unbind chA = %+v, %v; want revoked", bd, err)
	}
	// A bound device adb no longer sees is still listed, as offline.
	e.setDevices()
	resp = rc.roundTrip(t, `{"op":"devices"}`)
	if diff := cmp.Diff([]admin.DeviceRow{{Serial: "S2", Endpoint: "127.0.0.1:5037", State: "offline", Bound: true,
		Holder: &admin.Holder{Channel: "chB", ChannelID: "chB", BoundSince: e.clock.Now()}}}, resp.Devices); diff != "" {
		t.Fatalf("devices with S2 gone (-want +got):\n%s", diff)
	}
}

func TestAdminLogsNoSecrets(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	ctx := context.Background()
	e.setDevices(dev("127.0.0.1:5037", "S1", "device"))
	var logBuf testkit.LogBuffer
	log := logBuf.TextLogger()
	path := filepath.Join(e.dir, "logged.sock")
	closeFn, err := admin.Serve(ctx, path, e.api(), admin.Options{Log: log})
	if err != nil {
		t.Fatal(err)
	}
	rc := dialRaw(t, path)
	pair := rc.roundTrip(t, `{"op":"pair","serial":"S1"}`)
	s, err := e.requests.StartRequest(ctx, "ch")
	if err != nil {
		t.Fatal(err)
	}
	rc.roundTrip(t, `{"op":"approve","code":"`+s.Code+`","serial":"NOPE"}`) // refused, logged at Debug
	rc.roundTrip(t, `{"op":"approve","code":"`+s.Code+`","serial":"S1"}`)
	rc.roundTrip(t, `{"op":"pair","serial":"S1","ttl":"x`+pair.Code+`"}`)
	if err := closeFn(); err != nil {
		t.Fatal(err)
	}
	out := logBuf.String()
	if !strings.Contains(out, "refused") {
		t.Fatalf("expected Debug lines for refusals, log:\n%s", out)
	}
	for _, secret := range []string{pair.Code, s.Code, strings.ReplaceAll(pair.Code, "-", ""), strings.ReplaceAll(s.Code, "-", "")} {
		if strings.Contains(out, secret) {
			t.Fatalf("log holds a code %q:\n%s", secret, out)
		}
	}
}

func TestAdminSocketErrors(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.setDevices(dev("e1", "S1", "device"), dev("e2", "S1", "device"))
	rc := dialRaw(t, startAdmin(t, e))
	for _, tt := range []struct{ line, code string }{
		{`not json`, "invalid_argument"},
		{`{"op":"reboot"}`, "invalid_argument"},
		{`{"op":"pair"}`, "invalid_argument"},
		{`{"op":"pair","serial":"S1","ttl":"soon"}`, "invalid_argument"},
		{`{"op":"pair","serial":"e1/S1","ttl":"72h"}`, "invalid_argument"},
		{`{"op":"pair","serial":"S1"}`, "ambiguous_serial"},
		{`{"op":"pair","serial":"NOPE"}`, "unknown_device"},
		{`{"op":"approve"}`, "invalid_argument"},
		{`{"op":"approve","code":"AAA-AAA"}`, "invalid_code"},
		{`{"op":"unbind","serial":"S1"}`, "not_bound"},
	} {
		t.Run(tt.line, func(t *testing.T) {
			resp := rc.roundTrip(t, tt.line)
			if resp.OK || resp.Error == nil || resp.Error.Code != tt.code || resp.Error.Message == "" {
				t.Fatalf("%s -> %+v, want error %s", tt.line, resp, tt.code)
			}
		})
	}
}

// TestOperandsChecked: the API checks every device or code an operator
// names, once, for the socket and the console alike: missing or too long
// is invalid_argument saying which, before any table is read.
func TestOperandsChecked(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.setDevices(dev("e1", "S1", "device"))
	api := e.api()
	rc := dialRaw(t, startAdmin(t, e))
	long := strings.Repeat("S", admin.MaxSerialLen+1)
	for _, tt := range []struct {
		line string
		call func() error
		msg  string
	}{
		{`{"op":"pair"}`, func() error { _, err := api.Pair(t.Context(), "", 0, false); return err }, "invalid argument: pair needs a serial"},
		{`{"op":"unbind"}`, func() error { _, err := api.Unbind(t.Context(), ""); return err }, "invalid argument: unbind needs a serial"},
		{`{"op":"clear_reset"}`, func() error { _, err := api.ClearReset(t.Context(), ""); return err }, "invalid argument: clear_reset needs a serial"},
		{`{"op":"reset"}`, func() error { _, err := api.Reset(t.Context(), ""); return err }, "invalid argument: reset needs a serial"},
		{`{"op":"approve"}`, func() error { _, err := api.Approve(t.Context(), "", "", false); return err }, "invalid argument: approve needs a code"},
		{`{"op":"pair","serial":"` + long + `"}`, func() error { _, err := api.Pair(t.Context(), long, 0, false); return err }, "invalid argument: serial too long"},
		{`{"op":"approve","code":"` + strings.Repeat("C", admin.MaxCodeLen+1) + `"}`,
			func() error {
				_, err := api.Approve(t.Context(), strings.Repeat("C", admin.MaxCodeLen+1), "", false)
				return err
			}, "invalid argument: code too long"},
		{`{"op":"approve","code":"AAA-AAA","serial":"` + long + `"}`,
			func() error { _, err := api.Approve(t.Context(), "AAA-AAA", long, false); return err }, "invalid argument: serial too long"},
	} {
		resp := rc.roundTrip(t, tt.line)
		if resp.Error == nil || resp.Error.Code != admin.CodeInvalidArgument || resp.Error.Message != tt.msg {
			t.Errorf("socket %.40s -> %+v, want %q", tt.line, resp.Error, tt.msg)
		}
		var ae *admin.Error
		if err := tt.call(); !errors.As(err, &ae) || ae.Code != admin.CodeInvalidArgument || ae.Message != tt.msg {
			t.Errorf("in process %.40s -> %v, want %q", tt.line, err, tt.msg)
		}
	}
	if resp := rc.roundTrip(t, `{"op":"reset","serial":"S1"}`); resp.Error == nil || resp.Error.Code != admin.CodeNoReset {
		t.Errorf("reset of a device that owes none -> %+v, want no_reset", resp.Error)
	}
}
