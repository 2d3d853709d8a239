package main

import (
	"bytes"
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
	t.Setenv("ADB_CONNECTOR_CONFIG", path)
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

// runCLIBoth runs a command and returns its stdout and stderr.
func runCLIBoth(run runFunc, args ...string) (string, string, error) {
	var out, errOut bytes.Buffer
	err := run(args, &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestConfigCheckCommand(t *testing.T) {
	t.Parallel()
	out, err := runCLI(runConfig, "check", filepath.Join("..", "..", "deploy", "adb-connector.example.yaml"))
	if err != nil || !strings.Contains(out, "server settings, 3 tag rules, 3 policy rules") {
		t.Errorf("example file: %q %v", out, err)
	}
	_, errOut, err := runCLIBoth(runConfig, "check", writeConfig(t, "tags:\n  - match: {serial: x}\n    tag: [a]\n"))
	if err == nil || !strings.Contains(errOut, "line 3") || !strings.Contains(errOut, "allowed: match, tags") {
		t.Errorf("bad file: %v\n%s", err, errOut)
	}
	if _, err := runCLI(runConfig, "check"); err != errUsage {
		t.Errorf("no file: %v", err)
	}
}

// TestConfigCheckEveryMistake: one run of config check reports every
// mistake of a file, each with its line, whichever check finds it (the
// YAML shape, the policies, the server settings' own flag parsers).
func TestConfigCheckEveryMistake(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, "listen: 127.0.0.1:8080\n"+ // 1
		"lisen: 127.0.0.1:9090\n"+ // 2: unknown key
		"lease_grace: soon\n"+ // 3: not a duration
		"console_allow_remote: maybe\n"+ // 4: not a bool
		"policies:\n"+ // 5
		"\tdefault:\n"+ // 6: a tab
		"    rate_per_minute: 0\n") // 7: out of range
	_, errOut, err := runCLIBoth(runConfig, "check", path)
	if err == nil || !strings.Contains(err.Error(), "5 mistake(s)") {
		t.Errorf("err = %v, want 5 mistakes", err)
	}
	want := []string{
		"line 2: lisen: unknown key here (did you mean listen?)",
		"line 3: lease_grace: \"soon\"",
		"line 4: console_allow_remote: \"maybe\"",
		"line 6: tabs are not allowed in YAML indentation",
		"line 7: policies.default.rate_per_minute",
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(lines) != len(want) {
		t.Fatalf("config check printed %d lines, want %d:\n%s", len(lines), len(want), errOut)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], path+": "+w) {
			t.Errorf("line %d: %q, want it to start %q", i, lines[i], path+": "+w)
		}
	}
}

// TestEveryServeFlagIsAFileKeyAndAVariable: each serve setting is given
// by the config file and by its environment variable, through the flag's
// parser.
func TestEveryServeFlagIsAFileKeyAndAVariable(t *testing.T) {
	t.Setenv("ADB_CONNECTOR_API_KEY", "")
	keys := serveSettingKeys()
	for _, k := range []string{"audit_retention", "virtual_profile", "console_listen", "console_token_file", "console_allow_remote", "config_poll", "listen", "adb"} {
		if !slices.Contains(keys, k) {
			t.Errorf("config key %s missing from %v", k, keys)
		}
	}
	path := writeConfig(t, "audit_retention: 7d\nvirtual_profile: pixel-usb\nconfig_poll: 9s\nconsole_allow_remote: true\n")
	cfg, err := parseServeFlags([]string{"--config", path}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Device.AuditRetention != 7*24*time.Hour || cfg.Device.Virtual.Profile != "pixel-usb" || cfg.Device.ConfigPoll != 9*time.Second || !cfg.Console.AllowRemote {
		t.Errorf("file settings not applied: retention %s, profile %s, poll %s, console remote %v",
			cfg.Device.AuditRetention, cfg.Device.Virtual.Profile, cfg.Device.ConfigPoll, cfg.Console.AllowRemote)
	}
	t.Setenv("ADB_CONNECTOR_CONFIG_POLL", "11s")
	t.Setenv("ADB_CONNECTOR_AUDIT_RETENTION", "3d")
	cfg, err = parseServeFlags([]string{"--config", path}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Device.ConfigPoll != 11*time.Second || cfg.Device.AuditRetention != 3*24*time.Hour {
		t.Errorf("variables do not win over the file: poll %s, retention %s", cfg.Device.ConfigPoll, cfg.Device.AuditRetention)
	}
}
