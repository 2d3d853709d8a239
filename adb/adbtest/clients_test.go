package adbtest_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/adb/adbtest/adbserver"
	"github.com/adb-connector/adb-connector/adb/parse"
	"github.com/electricbubble/gadb"
)

// TestGadbClient runs the device operations of gadb, an adb client library
// written elsewhere (the one package adb wraps), against virtual phones
// through Debian's adb server: what a third-party tool pointed at the
// virtual phone does. gadb v0.1.0's known defects (listed in package adb's
// doc) are tested around where an operation meets one, each saying so.
func TestGadbClient(t *testing.T) {
	env := adbtest.Start(t, adbtest.Options{Devices: 2})
	c, err := gadb.NewClientWith("127.0.0.1", env.Port)
	if err != nil {
		t.Fatal(err)
	}
	var dev gadb.Device

	t.Run("devices", func(t *testing.T) {
		v, err := c.ServerVersion()
		if err != nil || v < 39 { // Debian's adb 29 speaks host protocol version 41
			t.Errorf("server version %d, %v", v, err)
		}
		serials, err := c.DeviceSerialList()
		if err != nil || len(serials) != 2 {
			t.Fatalf("serial list %v, %v", serials, err)
		}
		devs, err := c.DeviceList()
		if err != nil || len(devs) != 2 {
			t.Fatalf("device list %v, %v", devs, err)
		}
		for _, d := range devs {
			if d.Serial() == env.Devices[0].Serial() {
				dev = d
			}
		}
		if dev.Serial() == "" {
			t.Fatalf("%s not in %v", env.Devices[0].Serial(), serials)
		}
		if st, err := dev.State(); err != nil || st != gadb.StateOnline {
			t.Errorf("state %q, %v", st, err)
		}
		// gadb reads product/model/transport_id from `devices -l`.
		model, err := dev.Model()
		want, _ := env.Adb("-s", dev.Serial(), "shell", "getprop", "ro.product.model")
		if err != nil || model == "" || strings.ReplaceAll(model, "_", " ") != strings.TrimSpace(want) {
			t.Errorf("model %q (%v), getprop says %q", model, err, want)
		}
	})
	if dev.Serial() == "" {
		t.FailNow()
	}

	t.Run("shell", func(t *testing.T) {
		out, err := dev.RunShellCommand("echo", "hi", "there")
		if err != nil || out != "hi there\n" {
			t.Errorf("echo: %q %v", out, err)
		}
		out, err = dev.RunShellCommand("getprop", "ro.serialno")
		if err != nil || strings.TrimSpace(out) == "" {
			t.Errorf("getprop: %q %v", out, err)
		}
		// gadb opens the legacy "shell:" service: no exit status, stderr
		// merged into stdout. A failing command is a nil error with the
		// message in the output (package adb uses shell v2 instead).
		out, err = dev.RunShellCommand("ls", "/no/such/dir")
		if err != nil || !strings.Contains(out, "No such file or directory") {
			t.Errorf("failing ls: %q %v", out, err)
		}
	})

	data := bytes.Repeat([]byte("0123456789abcdef"), 200_000) // 3.2 MB: many sync DATA chunks
	mtime := time.Unix(1700000000, 0)
	t.Run("push pull", func(t *testing.T) {
		if err := dev.Push(bytes.NewReader(data), "/sdcard/g.bin", mtime); err != nil {
			t.Fatalf("push: %v", err)
		}
		var got bytes.Buffer
		if err := dev.Pull("/sdcard/g.bin", &got); err != nil || !bytes.Equal(got.Bytes(), data) {
			t.Errorf("pull: %d bytes, err %v", got.Len(), err)
		}
		// The other phone did not get it.
		out, _ := env.Adb("-s", env.Devices[1].Serial(), "shell", "ls", "/sdcard/g.bin")
		if !strings.Contains(out, "No such file") {
			t.Errorf("second phone: %q", out)
		}
		// Pulling a missing file is an error (the sync FAIL message).
		if err := dev.Pull("/sdcard/missing.bin", io.Discard); err == nil {
			t.Error("pull of a missing file: no error")
		}
	})

	t.Run("stat list", func(t *testing.T) {
		// gadb has no STAT request: its stat is the entry of List(dir).
		files, err := dev.List("/sdcard")
		if err != nil {
			t.Fatal(err)
		}
		var entry *gadb.DeviceFileInfo
		for i := range files {
			if files[i].Name == "g.bin" {
				entry = &files[i]
			}
		}
		if entry == nil {
			t.Fatalf("g.bin not in %v", files)
		}
		// DeviceFileInfo.Mode holds the raw Unix st_mode, not Go's
		// os.FileMode bits: use gadb's IsDir and the permission bits.
		if entry.Size != uint32(len(data)) || !entry.LastModified.Equal(mtime) || entry.IsDir() || entry.Mode&0o777 != 0o664 {
			t.Errorf("g.bin: size %d mtime %v dir %v mode %o", entry.Size, entry.LastModified, entry.IsDir(), uint32(entry.Mode))
		}
		root, err := dev.List("/")
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, f := range root {
			if f.Name == "sdcard" {
				found = f.IsDir()
			}
		}
		if !found {
			t.Errorf("/ lists no sdcard directory: %v", root)
		}
		// A missing directory lists as empty with a nil error (gadb reads
		// the sync DONE and does not tell it from an empty directory).
		if none, err := dev.List("/no/such/dir"); err != nil || len(none) != 0 {
			t.Errorf("missing dir: %v %v", none, err)
		}
	})

	t.Run("forward", func(t *testing.T) {
		local := adbserver.FreePort(t)
		if err := dev.Forward(local, 8080); err != nil {
			t.Fatal(err)
		}
		list, err := dev.ForwardList()
		want := gadb.DeviceForward{Serial: dev.Serial(), Local: "tcp:" + strconv.Itoa(local), Remote: "tcp:8080"}
		if err != nil || len(list) != 1 || list[0] != want {
			t.Fatalf("forward list %v, %v; want %v", list, err, want)
		}
		if out, _ := env.Adb("forward", "--list"); !strings.Contains(out, want.Local+" tcp:8080") {
			t.Errorf("adb forward --list: %q", out)
		}
		// The adb server accepts on the local port and opens tcp:8080 on the
		// phone; nothing listens there, so the phone closes the stream and
		// the server closes the connection (FIN, or RST), as with a real
		// phone.
		conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(local), 5*time.Second)
		if err != nil {
			t.Fatalf("dial forwarded port: %v", err)
		}
		conn.SetDeadline(time.Now().Add(20 * time.Second))
		if n, err := conn.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("read from forwarded port: %d, %v; want EOF", n, err)
		}
		conn.Close()
		if err := dev.ForwardKill(local); err != nil {
			t.Fatal(err)
		}
		if list, err := dev.ForwardList(); err != nil || len(list) != 0 {
			t.Errorf("after kill: %v, %v", list, err)
		}
	})

	t.Run("logcat", func(t *testing.T) {
		out, err := dev.RunShellCommand("logcat", "-d", "-v", "threadtime")
		if err != nil {
			t.Fatal(err)
		}
		lines, err := parse.Logcat(out)
		if err != nil || len(lines) == 0 {
			t.Fatalf("logcat -d: %d lines, %v\n%s", len(lines), err, out)
		}
		for _, l := range lines {
			if l.PID <= 0 || l.Tag == "" || l.Time == "" {
				t.Errorf("line %+v", l)
			}
		}
	})
}
