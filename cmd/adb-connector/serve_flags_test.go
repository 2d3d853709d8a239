package main

import (
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"testing"
)

func TestServeADBEndpointsFlag(t *testing.T) {
	tests := []struct {
		name    string
		env     string
		args    []string
		want    []string
		wantErr bool
	}{
		{name: "default", want: nil},
		{name: "env", env: "10.0.0.2:5037, 10.0.0.3:5038", want: []string{"10.0.0.2:5037", "10.0.0.3:5038"}},
		{name: "flags win over env", env: "10.0.0.2:5037", args: []string{"--adb", "127.0.0.1:5037", "--adb", "[::1]:6000"},
			want: []string{"127.0.0.1:5037", "[::1]:6000"}},
		{name: "no port", args: []string{"--adb", "host"}, wantErr: true},
		{name: "bad port", args: []string{"--adb", "host:99999"}, wantErr: true},
		{name: "empty host", args: []string{"--adb", ":5037"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("ADB_CONNECTOR_ADB", tt.env)
			t.Setenv("ADB_CONNECTOR_API_KEY", "")
			cfg, err := parseServeFlags(tt.args, io.Discard)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err == nil && !slices.Equal(cfg.Device.Endpoints.list, tt.want) {
				t.Fatalf("endpoints = %q, want %q", cfg.Device.Endpoints.list, tt.want)
			}
		})
	}
}

func TestServeBadADBEnvIsAStartError(t *testing.T) {
	t.Setenv("ADB_CONNECTOR_ADB", "nonsense")
	t.Setenv("ADB_CONNECTOR_API_KEY", "")
	if _, err := parseServeFlags(nil, io.Discard); err == nil || !strings.Contains(err.Error(), "ADB_CONNECTOR_ADB") {
		t.Fatalf("a bad ADB_CONNECTOR_ADB: %v, want an error naming it", err)
	}
}

// TestServeBadVirtualDevicesEnvIsAStartError: a non-number is reported, not
// read as 0.
func TestServeBadVirtualDevicesEnvIsAStartError(t *testing.T) {
	t.Setenv("ADB_CONNECTOR_VIRTUAL_DEVICES", "three")
	t.Setenv("ADB_CONNECTOR_ADB", "")
	t.Setenv("ADB_CONNECTOR_API_KEY", "")
	if _, err := parseServeFlags(nil, io.Discard); err == nil || !strings.Contains(err.Error(), "ADB_CONNECTOR_VIRTUAL_DEVICES") {
		t.Fatalf("parseServeFlags = %v, want an ADB_CONNECTOR_VIRTUAL_DEVICES error", err)
	}
}

func TestServePortInUseFailsBeforeWiring(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	t.Setenv("ADB_CONNECTOR_API_KEY", "")
	// An adb endpoint nobody listens on: wiring would fail differently
	// (and start nothing) if serve got that far.
	cfg, err := parseServeFlags([]string{"--listen", ln.Addr().String(), "--data-dir", t.TempDir(), "--adb", "127.0.0.1:1"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	err = serve(t.Context(), cfg, slog.New(slog.DiscardHandler), nil)
	if err == nil || !strings.HasPrefix(err.Error(), "listen:") {
		t.Fatalf("serve on a busy port: %v, want a listen error", err)
	}
}
