package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/adbtest"
)

// newTestDoctor parses args as `adb-connector doctor` would, with every
// host path pointed at empty temp dirs so no test reads the real system.
func newTestDoctor(t *testing.T, args ...string) *doctor {
	t.Helper()
	d, _, err := parseDoctorFlags(args, io.Discard)
	if err != nil {
		t.Fatalf("parseDoctorFlags(%q): %v", args, err)
	}
	tmp := t.TempDir()
	d.SysRoot, d.UdevDirs, d.GroupFile = tmp, []string{tmp}, filepath.Join(tmp, "group")
	d.Timeout = 10 * time.Second
	return d
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func wantStatus(t *testing.T, r checkResult, status, fixHas string) {
	t.Helper()
	if r.Status != status || !strings.Contains(r.Fix, fixHas) {
		t.Errorf("%s: got %s %q fix %q, want %s with a fix holding %q", r.Check, r.Status, r.Message, r.Fix, status, fixHas)
	}
}

func TestDoctorADBBinary(t *testing.T) {
	t.Parallel()
	d := newTestDoctor(t)
	r := d.checkADBBinary(context.Background())
	if r.Status != statusOK || !strings.Contains(r.Message, "Android Debug Bridge") {
		t.Errorf("adb on PATH: %+v", r)
	}
	d.ADBPath = "no-such-adb-binary"
	wantStatus(t, d.checkADBBinary(context.Background()), statusFail, "apt-get install -y adb")
	// Only a local adb server needs the binary.
	d = newTestDoctor(t, "--adb", "adb.example.net:5037")
	d.ADBPath = "no-such-adb-binary"
	wantStatus(t, d.checkADBBinary(context.Background()), statusWarn, "apt-get install -y adb")
}

// TestDoctorPhones runs the server and phone checks against Debian's adb
// server with a virtual phone in each state, and a second server that is
// down.
func TestDoctorPhones(t *testing.T) {
	t.Parallel()
	env := adbtest.Start(t, adbtest.Options{Devices: 3})
	ok, unauth, off := env.Devices[0], env.Devices[1], env.Devices[2]
	unauth.SetUnauthorized(true)
	env.WaitState(unauth, "unauthorized")
	// Away long enough that the adb server still shows it offline when
	// doctor looks; the device is closed at cleanup.
	if err := off.Vanish(time.Hour); err != nil {
		t.Fatal(err)
	}
	env.WaitState(off, "offline")

	down := closedAddr(t)
	d := newTestDoctor(t, "--adb", env.ServerAddr, "--adb", down)
	results := d.checkADBServers(context.Background())
	bySubject := map[string]checkResult{}
	for _, r := range results {
		for _, key := range []string{ok.Serial(), unauth.Serial(), off.Serial(), down} {
			if strings.HasPrefix(r.Message, key+" ") {
				bySubject[key] = r
			}
		}
	}
	if r := results[0]; r.Check != "adb-server" || r.Status != statusOK || !strings.Contains(r.Message, "protocol version 41") {
		t.Errorf("live server: %+v", r)
	}
	wantStatus(t, bySubject[ok.Serial()], statusOK, "")
	wantStatus(t, bySubject[unauth.Serial()], statusFail, "accept \"Allow USB debugging\"")
	wantStatus(t, bySubject[off.Serial()], statusFail, "reconnect offline")
	_, port, _ := net.SplitHostPort(down)
	wantStatus(t, bySubject[down], statusFail, "adb -P "+port+" start-server")
	if t.Failed() {
		t.Logf("results: %+v", results)
	}
}

func TestDoctorNoPhones(t *testing.T) {
	t.Parallel()
	env := adbtest.Start(t, adbtest.Options{Devices: -1})
	d := newTestDoctor(t, "--adb", env.ServerAddr)
	results := d.checkADBServers(context.Background())
	if len(results) != 2 {
		t.Fatalf("results: %+v", results)
	}
	wantStatus(t, results[1], statusWarn, "USB debugging")
}

// TestDoctorNoPermissions: adb lists a USB phone it may not open as "no
// permissions"; a virtual phone is a TCP one, so the listing is built here
// and sysfs is a temp tree as the kernel lays it out.
func TestDoctorNoPermissions(t *testing.T) {
	t.Parallel()
	d := newTestDoctor(t)
	usb := filepath.Join(d.SysRoot, "bus", "usb", "devices")
	for dir, attrs := range map[string]map[string]string{
		"1-1.2": {"idVendor": "18d1\n", "serial": "R58M123ABC\n"},
		"2-1":   {"idVendor": "04e8\n", "serial": "SAMSUNG01\n"},
		"usb1":  {"idVendor": "1d6b\n"},
	} {
		if err := os.MkdirAll(filepath.Join(usb, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		for name, v := range attrs {
			if err := os.WriteFile(filepath.Join(usb, dir, name), []byte(v), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		name string
		info adb.DeviceInfo
		fix  string
	}{
		{"by usb path", adb.DeviceInfo{Serial: "R58M123ABC", DevPath: "usb:1-1.2"}, `SUBSYSTEM=="usb", ATTR{idVendor}=="18d1", MODE="0660", GROUP="plugdev"`},
		{"by serial", adb.DeviceInfo{Serial: "SAMSUNG01"}, `ATTR{idVendor}=="04e8"`},
		{"not in sysfs", adb.DeviceInfo{Serial: "GONE"}, "install udev/51-android.rules"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.info.State, tc.info.Endpoint = adb.StateNoPermissions, adb.DefaultEndpoint
			wantStatus(t, d.checkPhone(tc.info), statusFail, tc.fix)
		})
	}
}

func TestDoctorUdev(t *testing.T) {
	t.Parallel()
	d := newTestDoctor(t)
	wantStatus(t, d.checkUdev(), statusWarn, "sudo cp udev/51-android.rules /etc/udev/rules.d/")
	rules, err := os.ReadFile(filepath.Join("..", "..", "udev", "51-android.rules"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.UdevDirs[0], "51-android.rules"), rules, 0o644); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, d.checkUdev(), statusOK, "")
}

func TestDoctorPlugdev(t *testing.T) {
	t.Parallel()
	d := newTestDoctor(t, "--service-user", "adb-connector")
	wantStatus(t, d.checkPlugdev(), statusWarn, "") // no group file
	for _, tc := range []struct{ group, status, fix string }{
		{"root:x:0:\n", statusWarn, "groupadd --system plugdev"},
		{"root:x:0:\nplugdev:x:46:alice\n", statusWarn, "usermod -aG plugdev adb-connector"},
		{"plugdev:x:46:alice,adb-connector\n", statusOK, ""},
	} {
		if err := os.WriteFile(d.GroupFile, []byte(tc.group), 0o644); err != nil {
			t.Fatal(err)
		}
		wantStatus(t, d.checkPlugdev(), tc.status, tc.fix)
	}
}

// TestDoctorDataDir lays out a data dir with modes too open, then fixed.
func TestDoctorDataDir(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	keyFile := filepath.Join(t.TempDir(), "api-key")
	if err := os.WriteFile(keyFile, []byte("k\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := newTestDoctor(t, "--data-dir", dir, "--api-key-file", keyFile)
	if r := d.checkDataDir(); len(r) != 1 || r[0].Status != statusWarn {
		t.Errorf("missing data dir: %+v", r)
	}
	if err := os.MkdirAll(filepath.Join(dir, "files"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "auth.key"), make([]byte, 32), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "files")} {
		if err := os.Chmod(p, 0o755); err != nil { // past the umask
			t.Fatal(err)
		}
	}
	status := func() map[string]checkResult {
		m := map[string]checkResult{}
		for _, r := range d.checkDataDir() {
			m[strings.Fields(r.Message)[0]] = r
		}
		return m
	}
	got := status()
	wantStatus(t, got[dir], statusFail, "chmod 0700 "+dir)
	wantStatus(t, got[filepath.Join(dir, "auth.key")], statusFail, "chmod 0600 ")
	wantStatus(t, got[filepath.Join(dir, "files")], statusFail, "chmod 0700 ")
	wantStatus(t, got[keyFile], statusFail, "chmod 0640 "+keyFile)

	for p, mode := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, "files"): 0o700, filepath.Join(dir, "auth.key"): 0o600, keyFile: 0o640} {
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	for p, r := range status() {
		if r.Status != statusOK {
			t.Errorf("%s after chmod: %+v", p, r)
		}
	}
}

func TestDoctorAPIKeyAndListen(t *testing.T) {
	keyFile := filepath.Join(t.TempDir(), "api-key")
	if err := os.WriteFile(keyFile, []byte("sk-doctor\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name              string
		args              []string
		key, listen       string
		keyFix, listenFix string
	}{
		{"loopback, no key", []string{"--listen", "127.0.0.1:8080"}, statusWarn, statusOK, "openssl rand", ""},
		{"all hosts, no key", []string{"--listen", "0.0.0.0:8080"}, statusWarn, statusWarn, "openssl rand", "--api-key-file"},
		{"all hosts, key file", []string{"--listen", ":8080", "--api-key-file", keyFile}, statusOK, statusOK, "", ""},
		{"missing key file", []string{"--listen", "[::]:8080", "--api-key-file", keyFile + ".gone"}, statusFail, statusOK, "readable by the service user", ""},
		{"bad listen", []string{"--listen", "8080"}, statusWarn, statusFail, "", "HOST:PORT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newTestDoctor(t, tc.args...)
			wantStatus(t, d.checkAPIKey(), tc.key, tc.keyFix)
			wantStatus(t, d.checkExposure(), tc.listen, tc.listenFix)
		})
	}
	t.Run("env key", func(t *testing.T) {
		t.Setenv("ADB_CONNECTOR_API_KEY", "sk-env")
		d := newTestDoctor(t)
		if r := d.checkAPIKey(); r.Status != statusOK || strings.Contains(r.Message, "sk-env") {
			t.Errorf("env key: %+v (the key itself must never be printed)", r)
		}
	})
}

func TestDoctorDisk(t *testing.T) {
	t.Parallel()
	d := newTestDoctor(t, "--data-dir", filepath.Join(t.TempDir(), "not", "yet"))
	wantStatus(t, d.checkDisk(), statusOK, "")
	d = newTestDoctor(t, "--data-dir", t.TempDir(), "--file-cap-bytes", "9000000000000000000")
	wantStatus(t, d.checkDisk(), statusWarn, "--file-cap-bytes")
}

// TestDoctorHealth asks a running in-process serve's /health with the right
// key, a wrong one, and a port nothing listens on.
func TestDoctorHealth(t *testing.T) {
	t.Parallel()
	env := adbtest.Start(t, adbtest.Options{Devices: -1})
	p := startServe(t, t.TempDir(), env.ServerAddr, nil)
	listen := strings.TrimPrefix(p.URL, "http://")
	dir := t.TempDir()
	write := func(name, key string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(key+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	d := newTestDoctor(t, "--listen", listen, "--api-key-file", write("good", e2eKey))
	wantStatus(t, d.checkHealth(context.Background()), statusOK, "")
	d = newTestDoctor(t, "--listen", listen, "--api-key-file", write("bad", "sk-wrong"))
	wantStatus(t, d.checkHealth(context.Background()), statusFail, "same --api-key-file")
	d = newTestDoctor(t, "--listen", closedAddr(t))
	wantStatus(t, d.checkHealth(context.Background()), statusFail, "start the server")
}

// TestDoctorCommand runs the whole command: the report, --json, exit status
// and bad input.
func TestDoctorCommand(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	err := runDoctor([]string{"--json", "--adb", closedAddr(t), "--listen", closedAddr(t), "--data-dir", t.TempDir()}, &out, io.Discard)
	if !errors.Is(err, errFailed) {
		t.Errorf("with failures: err %v, want the exit-1 error", err)
	}
	var rows []checkResult
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("--json: %v\n%s", err, out.String())
	}
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r.Check] = true
		if r.Status != statusOK && r.Status != statusWarn && r.Status != statusFail {
			t.Errorf("status %q", r.Status)
		}
	}
	for _, c := range []string{"adb", "adb-server", "udev", "plugdev", "data-dir", "api-key", "listen", "disk", "health"} {
		if !seen[c] {
			t.Errorf("--json lacks check %q: %s", c, out.String())
		}
	}

	out.Reset()
	_ = runDoctor([]string{"--adb", closedAddr(t), "--listen", closedAddr(t), "--data-dir", t.TempDir()}, &out, io.Discard)
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if f := strings.Fields(line); len(f) < 2 || (f[0] != statusOK && f[0] != statusWarn && f[0] != statusFail) {
			t.Errorf("line %q: want STATUS CHECK message", line)
		}
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--no-such-flag"}, "unknown flag --no-such-flag"},
		{[]string{"--adb", "nohost"}, `adb server "nohost": want HOST:PORT`},
		{[]string{"--adb", "127.0.0.1:99999"}, "bad port"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		var errOut bytes.Buffer
		err := runDoctor(tc.args, io.Discard, &errOut)
		if !errors.Is(err, errUsage) || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("doctor %q: err %v, stderr %q, want %q", tc.args, err, errOut.String(), tc.want)
		}
	}
	var help bytes.Buffer
	if err := runDoctor([]string{"-h"}, &help, io.Discard); !errors.Is(err, errHelp) || !strings.Contains(help.String(), "usage: adb-connector doctor") {
		t.Errorf("-h: %v %q", err, help.String())
	}
}

func TestDoctorBadEnv(t *testing.T) {
	t.Setenv("ADB_CONNECTOR_ADB", "127.0.0.1:5037,nope")
	err := runDoctor(nil, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "ADB_CONNECTOR_ADB") {
		t.Errorf("bad ADB_CONNECTOR_ADB: %v", err)
	}
}
