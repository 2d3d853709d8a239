package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/adbtest"
)

// findingOf returns the finding whose check is check, or fails.
func findingOf(t *testing.T, report []finding, check string) finding {
	t.Helper()
	for _, f := range report {
		if f.Check == check {
			return f
		}
	}
	t.Fatalf("no %q in %+v", check, report)
	return finding{}
}

func quietDoctor(t *testing.T, cfg doctorConfig) doctorConfig {
	t.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:1"
	}
	cfg.SysfsRoot, cfg.UdevDir = t.TempDir(), t.TempDir()
	cfg.Timeout = 3 * time.Second
	return cfg
}

// TestDoctorPhoneStates: through the real adb server, a phone online, one
// unauthorized and one offline each get their line and fix; a server that
// is down is FAIL.
func TestDoctorPhoneStates(t *testing.T) {
	t.Parallel()
	env := adbtest.Start(t, adbtest.Options{Devices: 3})
	env.Devices[1].SetUnauthorized(true)
	if err := env.Devices[2].Vanish(time.Minute); err != nil { // gone but still listed: offline
		t.Fatal(err)
	}
	want := map[string]adb.State{
		adb.DeviceKey(env.ServerAddr, env.Devices[0].Serial()): adb.StateDevice,
		adb.DeviceKey(env.ServerAddr, env.Devices[1].Serial()): adb.StateUnauthorized,
		adb.DeviceKey(env.ServerAddr, env.Devices[2].Serial()): adb.StateOffline,
	}
	client, err := adb.New(t.Context(), adb.Config{Endpoints: []string{env.ServerAddr}, NoTracking: true})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	deadline := time.Now().Add(30 * time.Second) // failure detector: the adb server notices in its own time
	for {
		list, _ := client.Devices(t.Context())
		ok := len(list) == 3
		for _, d := range list {
			ok = ok && want[d.Key] == d.State
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("phones never reached their states: %+v", list)
		}
		time.Sleep(50 * time.Millisecond)
	}
	cfg := quietDoctor(t, doctorConfig{Endpoints: []string{env.ServerAddr, "127.0.0.1:1"}})
	report := doctor(t.Context(), cfg, nil)
	for key, st := range want {
		f := findingOf(t, report, "phone "+key)
		switch st {
		case adb.StateDevice:
			if f.Status != statusOK {
				t.Errorf("online phone: %+v", f)
			}
		case adb.StateUnauthorized:
			if f.Status != statusFail || !strings.Contains(f.Fix, "Allow USB debugging") {
				t.Errorf("unauthorized phone: %+v", f)
			}
		case adb.StateOffline:
			if f.Status != statusFail || !strings.Contains(f.Fix, "adb reconnect offline") {
				t.Errorf("offline phone: %+v", f)
			}
		}
	}
	if f := findingOf(t, report, "adb server "+env.ServerAddr); f.Status != statusOK {
		t.Errorf("live server: %+v", f)
	}
	if f := findingOf(t, report, "adb server 127.0.0.1:1"); f.Status != statusFail || !strings.Contains(f.Message, "not reachable") {
		t.Errorf("server down: %+v", f)
	}
}

// TestDoctorNoPermissions prints the udev rule line for the phone's vendor
// id, read from sysfs.
func TestDoctorNoPermissions(t *testing.T) {
	t.Parallel()
	cfg := quietDoctor(t, doctorConfig{})
	dev := filepath.Join(cfg.SysfsRoot, "bus", "usb", "devices", "1-1")
	if err := os.MkdirAll(dev, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dev, "serial"), []byte("R58M123ABC\n"), 0o644)
	os.WriteFile(filepath.Join(dev, "idVendor"), []byte("04e8\n"), 0o644)
	f := phoneFinding(cfg, adb.DeviceInfo{Key: "e/R58M123ABC", Serial: "R58M123ABC", State: "no permissions (missing udev rules? user is in the plugdev group)"})
	if f.Status != statusFail || !strings.Contains(f.Fix, `ATTR{idVendor}=="04e8", MODE="0660", GROUP="plugdev"`) {
		t.Fatalf("no permissions: %+v", f)
	}
	f = phoneFinding(cfg, adb.DeviceInfo{Key: "e/OTHER", Serial: "OTHER", State: "no permissions"})
	if !strings.Contains(f.Fix, "51-android.rules") {
		t.Errorf("unknown vendor: %+v", f)
	}
}

// TestDoctorHost: udev rules, data directory and key file modes, API key
// and exposure, each wrong then right.
func TestDoctorHost(t *testing.T) {
	t.Parallel()
	cfg := quietDoctor(t, doctorConfig{})
	if f := checkUdev(cfg); f.Status != statusWarn {
		t.Errorf("no rules: %+v", f)
	}
	rules, err := os.ReadFile(filepath.Join("..", "..", "udev", "51-android.rules"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(cfg.UdevDir, "51-android.rules"), rules, 0o644)
	if f := checkUdev(cfg); f.Status != statusOK {
		t.Errorf("our rules installed: %+v", f)
	}

	os.Chmod(cfg.DataDir, 0o755)
	db := filepath.Join(cfg.DataDir, "adb-connector.db")
	os.WriteFile(db, nil, 0o644)
	var fails []string
	for _, f := range checkDataDir(cfg) {
		if f.Status == statusFail {
			fails = append(fails, f.Fix)
		}
	}
	if len(fails) != 2 || !strings.Contains(fails[0], "chmod 0700") || !strings.Contains(fails[1], "chmod 0600") {
		t.Errorf("loose modes: %q", fails)
	}
	os.Chmod(cfg.DataDir, 0o700)
	os.Chmod(db, 0o600)
	for _, f := range checkDataDir(cfg) {
		if f.Status != statusOK {
			t.Errorf("tight modes: %+v", f)
		}
	}

	cfg.Listen = "0.0.0.0:8080"
	if f := checkExposure(cfg); f.Status != statusFail {
		t.Errorf("open to the network without a key: %+v", f)
	}
	if f := checkAPIKey(cfg, nil); f.Status != statusWarn {
		t.Errorf("no key: %+v", f)
	}
	cfg.APIKey = "k"
	if f := checkExposure(cfg); f.Status != statusOK {
		t.Errorf("open with a key: %+v", f)
	}
	if f := checkAPIKey(cfg, errors.New("API key file x is empty")); f.Status != statusFail {
		t.Errorf("bad key file: %+v", f)
	}
	if f := checkDisk(cfg); f.Status == "" || !strings.Contains(f.Message, "MiB free") {
		t.Errorf("disk: %+v", f)
	}
}

// TestDoctorHealth asks a running in-process server, with the right key,
// a wrong one, and nothing listening.
func TestDoctorHealth(t *testing.T) {
	t.Parallel()
	env := adbtest.Start(t, adbtest.Options{Devices: -1})
	p := startServe(t, t.TempDir(), env.ServerAddr, nil)
	cfg := quietDoctor(t, doctorConfig{Listen: strings.TrimPrefix(p.URL, "http://"), APIKey: e2eKey})
	if f := checkHealth(context.Background(), cfg); f.Status != statusOK {
		t.Errorf("running: %+v", f)
	}
	cfg.APIKey = "wrong"
	if f := checkHealth(context.Background(), cfg); f.Status != statusFail || !strings.Contains(f.Message, "refused") {
		t.Errorf("wrong key: %+v", f)
	}
	cfg.Listen = "127.0.0.1:1"
	if f := checkHealth(context.Background(), cfg); f.Status != statusFail {
		t.Errorf("not running: %+v", f)
	}
}

// TestDoctorCommand: flags, JSON output and exit status of the command.
func TestDoctorCommand(t *testing.T) {
	t.Setenv("ADB_CONNECTOR_ADB", "")
	t.Setenv("ADB_CONNECTOR_API_KEY", "")
	var out, errOut bytes.Buffer
	if err := runDoctor([]string{"--adb", "nonsense"}, &out, &errOut); err == nil {
		t.Error("a bad --adb was accepted")
	}
	if err := runDoctor([]string{"--timeout", "0s"}, &out, &errOut); err == nil {
		t.Error("--timeout 0 accepted")
	}
	out.Reset()
	err := runDoctor([]string{"--json", "--adb", "127.0.0.1:1", "--listen", "127.0.0.1:1", "--data-dir", t.TempDir(),
		"--udev-dir", t.TempDir(), "--sysfs", t.TempDir(), "--timeout", "2s"}, &out, &errOut)
	if !errors.Is(err, errSilentFail) {
		t.Fatalf("a report with FAIL lines returned %v", err)
	}
	var report []finding
	if jerr := json.Unmarshal(out.Bytes(), &report); jerr != nil || len(report) < 8 {
		t.Fatalf("--json: %v\n%s", jerr, out.String())
	}
}
