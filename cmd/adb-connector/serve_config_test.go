package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func writeConfig(t *testing.T, s string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestServeConfigFilePrecedence: the file fills in what neither a flag
// nor an environment variable gives.
func TestServeConfigFilePrecedence(t *testing.T) {
	path := writeConfig(t, `
listen: 127.0.0.1:9999
log_level: debug
lease_grace: 2h
adb: [10.0.0.2:5037, 10.0.0.3:5037]
file_ttl: 3m
virtual_devices: 2
`)
	t.Setenv("ADB_CONNECTOR_API_KEY", "")
	t.Setenv("ADB_CONNECTOR_ADB", "")
	t.Setenv("ADB_CONNECTOR_LOG_LEVEL", "warn")
	t.Setenv(configEnv, path)
	cfg, err := parseServeFlags([]string{"--lease-grace", "5m"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Listen != "127.0.0.1:9999" || cfg.LeaseGrace != 5*time.Minute || cfg.LogLevel.String() != "WARN" {
		t.Errorf("listen %s, lease grace %s, log level %s: want the file's listen, the flag's grace, the env's level",
			cfg.Listen, cfg.LeaseGrace, cfg.LogLevel)
	}
	if !slices.Equal(cfg.Device.Endpoints.list, []string{"10.0.0.2:5037", "10.0.0.3:5037"}) || cfg.Device.FileTTL != 3*time.Minute || cfg.Device.Virtual.N != 2 {
		t.Errorf("device options from the file: %+v", cfg.Device)
	}
	if cfg.Device.Policy == nil || cfg.Device.ConfigPath != path {
		t.Error("the policy did not reach the device options")
	}
}

func TestServeBadConfigFileStopsStart(t *testing.T) {
	t.Setenv("ADB_CONNECTOR_API_KEY", "")
	path := writeConfig(t, "policies:\n  default:\n    max_record_ms: -3\n")
	_, err := parseServeFlags([]string{"--config", path}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "policies.default.max_record_ms") {
		t.Fatalf("err = %v, want the key and line", err)
	}
}

func TestConfigCheckCommand(t *testing.T) {
	t.Parallel()
	out, err := runCLI(runConfig, "check", filepath.Join("..", "..", "deploy", "adb-connector.example.yaml"))
	if err != nil || !strings.Contains(out, ": ok (3 tag rules, 3 policy rules") {
		t.Errorf("example file: %q %v", out, err)
	}
	_, err = runCLI(runConfig, "check", writeConfig(t, "tags:\n  - match: {serial: x}\n    tag: [a]\n"))
	if err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "allowed: match, tags") {
		t.Errorf("bad file: %v", err)
	}
	if _, err := runCLI(runConfig, "check"); err != errUsage {
		t.Errorf("no file: %v", err)
	}
}
