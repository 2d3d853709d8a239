package admin

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// stubHandler answers every request with nothing: these tests are about
// the socket, not the operations (the Profile's tests drive those).
type stubHandler struct{}

func (stubHandler) Devices(context.Context) ([]DeviceRow, error) { return nil, nil }
func (stubHandler) Pair(context.Context, string, time.Duration, bool) (string, error) {
	return "", &Error{Code: CodeUnknownDevice, Message: "unknown device"}
}
func (stubHandler) Approve(context.Context, string, string, bool) (string, error) {
	return "", errors.New("boom")
}
func (stubHandler) Unbind(context.Context, string) (string, error) { return "", nil }
func (stubHandler) ClearReset(context.Context, string) (string, error) {
	return "", nil
}
func (stubHandler) Reset(context.Context, string) (string, error) { return "", nil }
func (stubHandler) Questions(context.Context) ([]Question, error) { return nil, nil }
func (stubHandler) Answer(context.Context, string, string) (string, error) {
	return "", &Error{Code: CodeUnknownQuestion, Message: "unknown question"}
}
func (stubHandler) Decline(context.Context, string) (string, error) { return "", nil }

// startStub serves stubHandler on a socket in a temp dir until cleanup.
func startStub(t *testing.T) string {
	t.Helper()
	path := SocketPath(t.TempDir())
	closeFn, err := Serve(context.Background(), path, stubHandler{}, Options{})
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

// TestErrorsOnTheWire: a Handler's *Error is sent as it is, any other
// error as "internal" with no detail; a bad line never reaches the Handler
// (operands are the Handler's to check: package operator's tests).
func TestErrorsOnTheWire(t *testing.T) {
	t.Parallel()
	rc := dialRaw(t, startStub(t))
	for _, tt := range []struct{ line, code, msg string }{
		{`not json`, CodeInvalidArgument, "invalid argument: request is not a JSON object"},
		{`{"op":"reboot"}`, CodeInvalidArgument, "invalid argument: unknown op"},
		{`{"op":"pair","serial":"S1","ttl":"soon"}`, CodeInvalidArgument, "invalid argument: ttl must be a positive duration such as 15m"},
		{`{"op":"pair","serial":"S1"}`, CodeUnknownDevice, "unknown device"},
		{`{"op":"approve","code":"AAA-AAA"}`, CodeInternal, "internal error, see the server log"},
		{`{"op":"answer","id":"q9","text":"x"}`, CodeUnknownQuestion, "unknown question"},
	} {
		resp := rc.roundTrip(t, tt.line)
		if resp.OK || resp.Error == nil || resp.Error.Code != tt.code || resp.Error.Message != tt.msg {
			t.Errorf("%s -> %+v, want %s %q", tt.line, resp.Error, tt.code, tt.msg)
		}
	}
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

func (rc *rawConn) roundTrip(t *testing.T, line string) Response {
	t.Helper()
	if _, err := rc.c.Write([]byte(line + "\n")); err != nil {
		t.Fatal(err)
	}
	b, err := rc.r.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var resp Response
	if err := json.Unmarshal(b, &resp); err != nil {
		t.Fatalf("response %q: %v", b, err)
	}
	return resp
}

func TestServeAdminRefusesLiveAndReplacesStale(t *testing.T) {
	t.Parallel()
	path := startStub(t)
	if _, err := Serve(context.Background(), path, stubHandler{}, Options{}); !errors.Is(err, ErrSocketInUse) {
		t.Fatalf("second server on a live socket: %v", err)
	}

	dir := t.TempDir()
	stale := filepath.Join(dir, SocketName)
	ln, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close() // leaves a dead socket file behind, like a crashed server
	ctx, cancel := context.WithCancel(context.Background())
	closeFn, err := Serve(ctx, stale, stubHandler{}, Options{})
	if err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	rc := dialRaw(t, stale)
	if resp := rc.roundTrip(t, `{"op":"devices"}`); !resp.OK || resp.Devices != nil {
		t.Fatalf("devices = %+v", resp)
	}
	cancel() // the context ends the server
	if err := closeFn(); err != nil {
		t.Fatal(err)
	}
	if _, err := rc.r.ReadByte(); err == nil {
		t.Fatal("connection still open after close")
	}

	notSock := filepath.Join(dir, "file.sock")
	if err := os.WriteFile(notSock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Serve(context.Background(), notSock, stubHandler{}, Options{}); err == nil {
		t.Fatal("served over a regular file")
	}
}

func TestAdminIdleConnectionClosed(t *testing.T) {
	t.Parallel()
	path := SocketPath(t.TempDir())
	closeFn, err := Serve(context.Background(), path, stubHandler{}, Options{IdleTimeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeFn() })
	rc := dialRaw(t, path)
	rc.c.SetReadDeadline(time.Now().Add(time.Minute))
	if _, err := rc.r.ReadByte(); err == nil {
		t.Fatal("idle connection got data instead of being closed")
	}
}

var requestCases = []string{
	`{"op":"devices"}`,
	`{"op":"pair","serial":"R58M123ABC","ttl":"15m"}`,
	`{"op":"approve","code":"K7Q-M2X","serial":""}`,
	`{"op":"unbind","serial":"127.0.0.1:5037/R58M"}`,
	`{"op":"clear_reset","serial":"R58M"}`,
	`{"op":"clear_reset"}`,
	`{"op":"pair","serial":"S","ttl":"-1s"}`,
	`{"op":"questions"}`,
	`{"op":"answer","id":"q3","text":"482913"}`,
	`{"op":"decline","id":"q3"}`,
	`[]`, `null`, `{"op":7}`,
}

func FuzzDecodeRequest(f *testing.F) {
	for _, c := range requestCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		req, ttl, err := DecodeRequest(line)
		if err != nil {
			var ae *Error
			if !errors.As(err, &ae) || ae.Code != CodeInvalidArgument {
				t.Fatalf("error %v is not invalid_argument", err)
			}
			return
		}
		if ttl < 0 || ttl > 0 && req.Op != OpPair {
			t.Fatalf("accepted %+v ttl %v", req, ttl)
		}
		switch req.Op {
		case OpDevices, OpPair, OpApprove, OpUnbind, OpClearReset, OpReset, OpQuestions, OpAnswer, OpDecline:
		default:
			t.Fatalf("accepted op %q", req.Op)
		}
	})
}
