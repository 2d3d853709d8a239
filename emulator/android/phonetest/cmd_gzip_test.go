package phonetest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android"
)

// gunzip inflates b, which must be one gzip member.
func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The pipe the host's compressed capture runs: the raw frame, deflated,
// with zlib's gzdopen header, and the deflate charged per byte read on
// top of the capture.
func TestGzipScreencapPipe(t *testing.T) {
	t.Parallel()
	prof := &android.Profile{Name: "test-gzip", CaptureBase: time.Millisecond, DeflatePerMB: time.Millisecond}
	d := newDevice(t, android.Config{Timing: prof})
	raw := mustRun(t, d, "screencap")
	d.ClearCommands()
	out := mustRun(t, d, "screencap | gzip -1")
	if !bytes.Equal(gunzip(t, []byte(out)), []byte(raw)) {
		t.Fatal("inflated frame differs from raw screencap")
	}
	if len(out) > len(raw)/10 {
		t.Errorf("deflated %d of %d bytes: a flat screen should shrink tenfold", len(out), len(raw))
	}
	if out[9] != 3 {
		t.Errorf("header OS byte %d, want 3 (zlib's Unix)", out[9])
	}
	w, h := int(binary.LittleEndian.Uint32([]byte(raw))), int(binary.LittleEndian.Uint32([]byte(raw[4:])))
	want := prof.CaptureCost(w, h, false) + prof.DeflateCost(int64(len(raw)), 1)
	if cmds := d.Commands(); len(cmds) != 1 || cmds[0].Charged != want {
		t.Fatalf("commands %+v, want one charged %v", cmds, want)
	}
}

func TestGzipCommand(t *testing.T) {
	t.Parallel()
	d := newDevice(t, android.Config{})
	mustRun(t, d, "echo hello > /data/local/tmp/a.txt")
	tests := []struct {
		line, stdout, stderr string
		status               int
	}{
		{"echo hello | gzip | gzip -d", "hello\n", "", 0},
		{"echo hello | gzip -9 | zcat", "hello\n", "", 0},
		{"echo hello | gzip -1n -c - | gunzip -c", "hello\n", "", 0},
		{"echo plain | gzip -d", "plain\n", "", 0}, // gzread passes non-gzip input through
		{"printf '\\037\\213\\010\\000\\000\\000\\000\\000\\000\\003xx' | gzip -d", "", "gzip: gzread: unexpected end of file\n", 1},
		{"gzip -x", "", "gzip: Unknown option 'x' (see \"gzip --help\")\n", 1},
		{"gzip /data/local/tmp/none", "", "gzip: /data/local/tmp/none: No such file or directory\n", 1},
		{"gzip -k /data/local/tmp/a.txt && zcat /data/local/tmp/a.txt.gz", "hello\n", "", 0},
		{"gzip -k /data/local/tmp/a.txt", "", "gzip: /data/local/tmp/a.txt.gz: File exists\n", 1},
		{"gzip -f /data/local/tmp/a.txt && ls /data/local/tmp", "a.txt.gz\n", "", 0},
		{"gunzip /data/local/tmp/a.txt.gz && cat /data/local/tmp/a.txt", "hello\n", "", 0},
		{"gunzip /data/local/tmp/a.txt", "", "gunzip: no .gz: /data/local/tmp/a.txt\n", 1},
		{"which gzip zcat", "/system/bin/gzip\n/system/bin/zcat\n", "", 0},
	}
	for _, tt := range tests {
		o, e, st := run(t, d, tt.line)
		if o != tt.stdout || e != tt.stderr || st != tt.status {
			t.Errorf("%q = %q, %q, %d; want %q, %q, %d", tt.line, o, e, st, tt.stdout, tt.stderr, tt.status)
		}
	}
}

// A phone before Android 9 (or with NoGzip) has no gzip: the shell says
// so with status 127, and nothing reaches stdout.
func TestGzipAbsent(t *testing.T) {
	t.Parallel()
	for _, cfg := range []android.Config{{NoGzip: true}, {SDK: 27, Release: "8.1.0"}} {
		d := newDevice(t, cfg)
		o, e, st := run(t, d, "screencap | gzip -1")
		if o != "" || e != "/system/bin/sh: gzip: inaccessible or not found\n" || st != 127 {
			t.Errorf("SDK %d: = %d bytes, %q, %d", cfg.SDK, len(o), e, st)
		}
		if o, _, st := run(t, d, "command -v gzip; which zcat"); o != "" || st != 1 {
			t.Errorf("SDK %d: lookups found %q (status %d)", cfg.SDK, o, st)
		}
	}
	if o := mustRun(t, newDevice(t, android.Config{}), "command -v gzip"); o != "/system/bin/gzip\n" {
		t.Errorf("command -v gzip = %q", o)
	}
}

// A host that stops reading ends the pipe: gzip stops too.
func TestGzipCanceled(t *testing.T) {
	t.Parallel()
	d := newDevice(t, android.Config{Timing: &android.Profile{Name: "slow-deflate", DeflatePerMB: time.Hour}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var o bytes.Buffer
	if st := d.Run(ctx, "screencap | gzip -1", strings.NewReader(""), &o, io.Discard); st == 0 {
		t.Fatalf("canceled pipe exit %d", st)
	}
}
