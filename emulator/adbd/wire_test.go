package adbd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// hostConn is a minimal Go adb host for wire-level tests.
type hostConn struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

func startFake(t *testing.T, opts Options) (*Server, *fakeBackend) {
	t.Helper()
	fb := newFake()
	srv, err := Listen(context.Background(), fb, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, fb
}

// dialHost connects and, when maxData > 0, completes the CNXN handshake.
func dialHost(t *testing.T, addr string, maxData uint32) (*hostConn, message) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	// A failsafe so a broken device fails the test instead of hanging it.
	c.SetDeadline(time.Now().Add(30 * time.Second))
	h := &hostConn{t: t, c: c, r: bufio.NewReader(c)}
	if maxData == 0 {
		return h, message{}
	}
	h.send(cmdCNXN, protocolVersion, maxData, []byte("host::features=shell_v2,cmd,stat_v2,ls_v2\x00"))
	return h, h.recv()
}

func (h *hostConn) send(cmd, a0, a1 uint32, data []byte) {
	h.t.Helper()
	if _, err := h.c.Write(appendMessage(nil, message{command: cmd, arg0: a0, arg1: a1, data: data})); err != nil {
		h.t.Fatalf("send %s: %v", commandName(cmd), err)
	}
}

func (h *hostConn) recv() message {
	h.t.Helper()
	m, err := readMessage(h.r, 1<<24)
	if err != nil {
		h.t.Fatalf("recv: %v", err)
	}
	return m
}

// open opens service as host stream id and returns the device's id.
func (h *hostConn) open(id uint32, service string) uint32 {
	h.t.Helper()
	h.send(cmdOPEN, id, 0, []byte(service+"\x00"))
	m := h.recv()
	if m.command != cmdOKAY || m.arg1 != id {
		h.t.Fatalf("open %q: got %s(%d,%d)", service, commandName(m.command), m.arg0, m.arg1)
	}
	return m.arg0
}

// drain reads stream output, acknowledging each WRTE, until CLSE.
func (h *hostConn) drain(id uint32) []byte {
	h.t.Helper()
	var out []byte
	for {
		m := h.recv()
		if m.arg1 != id {
			h.t.Fatalf("message %s for stream %d, want %d", commandName(m.command), m.arg1, id)
		}
		switch m.command {
		case cmdWRTE:
			out = append(out, m.data...)
			h.send(cmdOKAY, id, m.arg0, nil)
		case cmdCLSE:
			return out
		default:
			h.t.Fatalf("unexpected %s", commandName(m.command))
		}
	}
}

func TestHandshake(t *testing.T) {
	tests := []struct {
		name    string
		hostMax uint32
		wantMax uint32
	}{
		{"host 1MiB", 1 << 20, 1 << 20},
		{"host 4KiB", 4096, 4096},
		{"host 16MiB", 16 << 20, 1 << 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := startFake(t, Options{})
			_, m := dialHost(t, srv.Addr(), tc.hostMax)
			got := []any{commandName(m.command), m.arg0, m.arg1, string(m.data)}
			want := []any{"CNXN", uint32(protocolVersion), tc.wantMax,
				"device::ro.product.name=fakeprod;ro.product.model=Fake_Model;ro.product.device=fakedev;features=shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir"}
			if d := cmp.Diff(want, got); d != "" {
				t.Error(d)
			}
		})
	}
}

func TestServicesRefused(t *testing.T) {
	for _, svc := range []string{"reboot:", "tcpip:5555", "jdwp:1", "nonsense", "framebuffer:"} {
		t.Run(svc, func(t *testing.T) {
			srv, _ := startFake(t, Options{})
			h, _ := dialHost(t, srv.Addr(), 1<<20)
			h.send(cmdOPEN, 7, 0, []byte(svc+"\x00"))
			m := h.recv()
			if m.command != cmdCLSE || m.arg0 != 0 || m.arg1 != 7 {
				t.Errorf("got %s(%d,%d), want CLSE(0,7)", commandName(m.command), m.arg0, m.arg1)
			}
		})
	}
}

func TestNothingBeforeCNXN(t *testing.T) {
	srv, _ := startFake(t, Options{})
	h, _ := dialHost(t, srv.Addr(), 0)
	h.send(cmdOPEN, 1, 0, []byte("shell:echo hi\x00")) // ignored
	h.send(cmdCNXN, protocolVersion, 1<<20, []byte("host::\x00"))
	if m := h.recv(); m.command != cmdCNXN {
		t.Fatalf("got %s, want CNXN", commandName(m.command))
	}
	id := h.open(2, "shell:echo hi")
	if got := string(h.drain(2)); got != "hi\n" {
		t.Errorf("output %q (device stream %d)", got, id)
	}
}

// TestFlowControl checks one WRTE in flight per stream: with stream 1's
// first WRTE unacknowledged, a whole second stream runs and closes while
// stream 1 sends nothing more; then stream 1 completes.
func TestFlowControl(t *testing.T) {
	srv, _ := startFake(t, Options{})
	h, _ := dialHost(t, srv.Addr(), 4096)
	dev1 := h.open(1, "exec:bytes 20000")
	first := h.recv()
	if first.command != cmdWRTE || len(first.data) != 4096 {
		t.Fatalf("first: %s len %d", commandName(first.command), len(first.data))
	}
	dev2 := h.open(2, "shell:echo other")
	if m := h.recv(); m.command != cmdWRTE || m.arg1 != 2 || string(m.data) != "other\n" {
		t.Fatalf("stream 2: %s to %d %q (stream 1 sent again before OKAY?)", commandName(m.command), m.arg1, m.data)
	}
	h.send(cmdOKAY, 2, dev2, nil)
	if m := h.recv(); m.command != cmdCLSE || m.arg1 != 2 {
		t.Fatalf("stream 2 end: %s to %d", commandName(m.command), m.arg1)
	}
	h.send(cmdOKAY, 1, dev1, nil)
	rest := h.drain(1)
	if got := append(first.data, rest...); !bytes.Equal(got, pattern(20000)) {
		t.Errorf("stream 1: %d bytes, differ", len(got))
	}
}

// TestHostWrites checks the device acknowledges each host WRTE and that
// shell v2 stdin, close-stdin and exit packets work. Empty stdin packets
// (a relay's nudge) are no input, as on adbd.
func TestHostWrites(t *testing.T) {
	srv, _ := startFake(t, Options{})
	h, _ := dialHost(t, srv.Addr(), 1<<20)
	dev := h.open(1, "shell,v2,raw:cat")
	input := strings.Repeat("abcdefgh", 5000)
	pkts := shellPacket(shellStdin, nil)
	pkts = append(pkts, shellPacket(shellStdin, []byte(input[:100]))...)
	pkts = append(pkts, shellPacket(shellStdin, nil)...)
	pkts = append(pkts, shellPacket(shellStdin, []byte(input[100:]))...)
	pkts = append(pkts, shellPacket(shellCloseStdin, nil)...)
	// Send in 1000-byte WRTEs, each only after the device's OKAY. Output
	// may interleave: collect it.
	var out []byte
	ack := func(m message) bool {
		switch m.command {
		case cmdOKAY:
			return true
		case cmdWRTE:
			out = append(out, m.data...)
			h.send(cmdOKAY, 1, dev, nil)
		default:
			t.Fatalf("unexpected %s", commandName(m.command))
		}
		return false
	}
	for len(pkts) > 0 {
		n := min(len(pkts), 1000)
		h.send(cmdWRTE, 1, dev, pkts[:n])
		pkts = pkts[n:]
		for !ack(h.recv()) {
		}
	}
	out = append(out, h.drain(1)...)
	var stdout []byte
	exit := -1
	r := bytes.NewReader(out)
	for r.Len() > 0 {
		id, data, err := readShellPacket(r, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		switch id {
		case shellStdout:
			stdout = append(stdout, data...)
		case shellExit:
			exit = int(data[0])
		}
	}
	if string(stdout) != input || exit != 0 {
		t.Errorf("stdout %d bytes (want %d), exit %d", len(stdout), len(input), exit)
	}
}

// TestHostVanishes checks that a host that disappears cancels running
// commands and ends every goroutine (goleak in TestMain checks the rest).
func TestHostVanishes(t *testing.T) {
	srv, fb := startFake(t, Options{})
	h, _ := dialHost(t, srv.Addr(), 1<<20)
	h.open(1, "shell,v2,raw:block")
	h.open(2, "exec:block")
	h.c.Close()
	srv.Close()
	if got := fb.commands(); len(got) != 2 {
		t.Errorf("commands %q", got)
	}
	if n := srv.Connections(); n != 0 {
		t.Errorf("%d connections left", n)
	}
}

func TestSyncSplitWrites(t *testing.T) {
	srv, fb := startFake(t, Options{})
	fb.fs.WriteFile("/sdcard/a.txt", []byte("hello"), 0o644, time.Unix(1700000000, 0))
	h, _ := dialHost(t, srv.Addr(), 1<<20)
	dev := h.open(1, "sync:")
	var req []byte
	req = binary.LittleEndian.AppendUint32(req, syncRECV)
	req = binary.LittleEndian.AppendUint32(req, uint32(len("/sdcard/a.txt")))
	req = append(req, "/sdcard/a.txt"...)
	req = binary.LittleEndian.AppendUint32(req, syncQUIT)
	req = binary.LittleEndian.AppendUint32(req, 0)
	for i := range req { // one byte per WRTE
		h.send(cmdWRTE, 1, dev, req[i:i+1])
		if m := h.recv(); m.command == cmdWRTE {
			// The reply may come before the last OKAY.
			h.send(cmdOKAY, 1, dev, nil)
			if string(m.data) != "DATA\x05\x00\x00\x00helloDONE\x00\x00\x00\x00" {
				t.Errorf("reply %q", m.data)
			}
			if m := h.recv(); m.command != cmdOKAY {
				t.Fatalf("got %s, want OKAY", commandName(m.command))
			}
		} else if m.command != cmdOKAY {
			t.Fatalf("got %s, want OKAY", commandName(m.command))
		}
	}
	if m := h.recv(); m.command != cmdCLSE {
		t.Errorf("got %s after QUIT, want CLSE", commandName(m.command))
	}
}

// TestManyStreams runs 40 streams at once on one connection, acknowledging
// their WRTEs as they interleave.
func TestManyStreams(t *testing.T) {
	srv, _ := startFake(t, Options{})
	h, _ := dialHost(t, srv.Addr(), 8192)
	const n = 40
	want := map[uint32][]byte{}
	for i := uint32(1); i <= n; i++ {
		size := 10000 + int(i)*997
		h.send(cmdOPEN, i, 0, []byte("exec:bytes "+strconv.Itoa(size)+"\x00"))
		want[i] = pattern(size)
	}
	got := map[uint32][]byte{}
	open, closed := 0, 0
	for closed < n {
		m := h.recv()
		switch m.command {
		case cmdOKAY:
			open++
		case cmdWRTE:
			got[m.arg1] = append(got[m.arg1], m.data...)
			h.send(cmdOKAY, m.arg1, m.arg0, nil)
		case cmdCLSE:
			closed++
		}
	}
	if open != n {
		t.Errorf("%d streams opened, want %d", open, n)
	}
	for id, w := range want {
		if !bytes.Equal(got[id], w) {
			t.Errorf("stream %d: %d bytes, want %d", id, len(got[id]), len(w))
		}
	}
}

// TestTinyHostMaxData checks a host that offers a payload limit smaller
// than a shell v2 packet header still gets its output (split over WRTEs)
// instead of crashing the device.
func TestTinyHostMaxData(t *testing.T) {
	for _, hostMax := range []uint32{1, 4, 5, 6} {
		t.Run(strconv.Itoa(int(hostMax)), func(t *testing.T) {
			srv, _ := startFake(t, Options{})
			h, m := dialHost(t, srv.Addr(), hostMax)
			if m.arg1 != hostMax {
				t.Fatalf("CNXN maxdata %d, want %d", m.arg1, hostMax)
			}
			h.open(1, "shell,v2,raw:echo hi")
			var got []string
			r := bytes.NewReader(h.drain(1))
			for r.Len() > 0 {
				id, data, err := readShellPacket(r, 1<<20)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, fmt.Sprintf("%d:%q", id, data))
			}
			want := []string{`1:"hi\n"`, `3:"\x00"`}
			if hostMax == 6 { // one byte of data per packet
				want = []string{`1:"h"`, `1:"i"`, `1:"\n"`, `3:"\x00"`}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("shell packets (-want +got):\n%s", d)
			}
		})
	}
}
