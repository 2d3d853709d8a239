package adbd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"testing"
	"time"
)

func TestReadMessage(t *testing.T) {
	valid := appendMessage(nil, message{command: cmdOPEN, arg0: 1, data: []byte("shell:ls\x00")})
	noSum := bytes.Clone(valid)
	binary.LittleEndian.PutUint32(noSum[16:], 0)
	badSum := bytes.Clone(valid)
	badSum[16]++
	badMagic := bytes.Clone(valid)
	badMagic[20]++
	long := appendMessage(nil, message{command: cmdWRTE, data: make([]byte, 100)})
	tests := []struct {
		name    string
		in      []byte
		wantErr bool
	}{
		{"valid", valid, false},
		{"zero checksum", noSum, false},
		{"bad checksum", badSum, true},
		{"bad magic", badMagic, true},
		{"too long", long, true},
		{"short header", valid[:10], true},
		{"short payload", valid[:30], true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := readMessage(bytes.NewReader(tc.in), 64)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if err == nil && string(m.data) != "shell:ls\x00" {
				t.Errorf("data %q", m.data)
			}
		})
	}
}

func FuzzReadMessage(f *testing.F) {
	f.Add(appendMessage(nil, message{command: cmdCNXN, arg0: protocolVersion, arg1: 1 << 20, data: []byte("host::\x00")}))
	f.Add(appendMessage(nil, message{command: cmdWRTE, arg0: 1, arg1: 2, data: []byte("hello")}))
	f.Add(appendMessage(nil, message{command: cmdCLSE}))
	f.Add([]byte("CNXN"))
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := readMessage(bytes.NewReader(in), 4096)
		if err != nil {
			return
		}
		// A decoded message re-encodes to the bytes it came from (up to the
		// optional checksum).
		out := appendMessage(nil, m)
		if !bytes.Equal(out[:16], in[:16]) || !bytes.Equal(out[20:], in[20:len(out)]) {
			t.Errorf("round trip differs:\n in %x\nout %x", in[:len(out)], out)
		}
	})
}

// syncReq encodes one sync request.
func syncReq(id uint32, arg string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, id)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(arg)))
	return append(b, arg...)
}

func syncData(id, n uint32, data string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, id)
	b = binary.LittleEndian.AppendUint32(b, n)
	return append(b, data...)
}

// syncCases are table cases for the sync session, also the fuzz seeds.
var syncCases = []struct {
	name string
	in   []byte
	want string // hex-free: a prefix of the reply, as a Go string
}{
	{"stat v1 missing", syncReq(syncSTAT, "/nope"), "STAT\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"},
	{"sta2 missing", syncReq(syncSTA2, "/nope"), "STA2\x02\x00\x00\x00"},
	{"stat dir", syncReq(syncSTAT, "/sdcard"), "STAT\xf9\x41\x00\x00"},
	{"push", bytes.Join([][]byte{syncReq(syncSEND, "/sdcard/f,33188"), syncData(syncDATA, 3, "abc"), syncData(syncDONE, 1700000000, "")}, nil), "OKAY\x00\x00\x00\x00"},
	{"push bad mode", syncReq(syncSEND, "/sdcard/f,xx"), "FAIL"},
	{"push bad chunk", bytes.Join([][]byte{syncReq(syncSEND, "/sdcard/f,420"), syncData(syncSTAT, 0, "")}, nil), "FAIL"},
	{"recv missing", syncReq(syncRECV, "/nope"), "FAIL&\x00\x00\x00open failed: No such file or directory"},
	{"list", syncReq(syncLIST, "/data/local"), "DENT"},
	{"lis2 missing", syncReq(syncLIS2, "/nope"), "DONE"},
	{"unknown", syncReq(0x58585858, "x"), "FAIL"},
	{"path too long", syncReq(syncSTAT, string(make([]byte, 2000))), "FAIL"},
	{"quit", syncReq(syncQUIT, ""), ""},
}

func runSyncBytes(in []byte) []byte {
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	fsys := newMemFS()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	runSync(ctx, bytes.NewReader(in), w, fsys)
	w.Flush()
	return out.Bytes()
}

func TestSyncSession(t *testing.T) {
	for _, tc := range syncCases {
		t.Run(tc.name, func(t *testing.T) {
			out := runSyncBytes(tc.in)
			if !bytes.HasPrefix(out, []byte(tc.want)) {
				t.Errorf("reply %q, want prefix %q", out, tc.want)
			}
		})
	}
	t.Run("sta2 size", func(t *testing.T) {
		if out := runSyncBytes(syncReq(syncSTA2, "/sdcard")); len(out) != syncStatV2Size {
			t.Errorf("STA2 reply %d bytes, want %d", len(out), syncStatV2Size)
		}
	})
	t.Run("lis2 done size", func(t *testing.T) {
		if out := runSyncBytes(syncReq(syncLIS2, "/nope")); len(out) != syncDentV2Size {
			t.Errorf("LIS2 DONE %d bytes, want %d", len(out), syncDentV2Size)
		}
	})
	t.Run("push then recv", func(t *testing.T) {
		in := bytes.Join([][]byte{syncReq(syncSEND, "/sdcard/d/f,33188"), syncData(syncDATA, 3, "abc"),
			syncData(syncDONE, 1700000000, ""), syncReq(syncRECV, "/sdcard/d/f")}, nil)
		want := "OKAY\x00\x00\x00\x00DATA\x03\x00\x00\x00abcDONE\x00\x00\x00\x00"
		if out := runSyncBytes(in); string(out) != want {
			t.Errorf("got %q, want %q", out, want)
		}
	})
}

func FuzzSync(f *testing.F) {
	for _, tc := range syncCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		runSyncBytes(in)
		readSyncRequest(bytes.NewReader(in))
		readShellPacket(bytes.NewReader(in), 1<<16)
		copyShellStdin(io.Discard, bytes.NewReader(in))
	})
}
