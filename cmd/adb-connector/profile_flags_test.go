package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/emulator/android"
)

// TestVirtualProfileFlags: --profile, --virtual-profile and
// ADB_CONNECTOR_VIRTUAL_PROFILE take a profile name; an unknown one stops
// start-up with an error naming the allowed ones.
func TestVirtualProfileFlags(t *testing.T) {
	wantNames := func(t *testing.T, err error, bad string) {
		t.Helper()
		if err == nil {
			t.Fatalf("profile %q accepted", bad)
		}
		for _, n := range append(android.ProfileNames(), bad) {
			if !strings.Contains(err.Error(), n) {
				t.Errorf("error %q does not name %q", err, n)
			}
		}
	}
	t.Run("emulator", func(t *testing.T) {
		err := emulatorMain(context.Background(), []string{"--profile", "turbo"}, io.Discard, io.Discard)
		wantNames(t, err, "turbo")
	})
	t.Run("serve flag", func(t *testing.T) {
		t.Setenv("ADB_CONNECTOR_ADB", "")
		t.Setenv("ADB_CONNECTOR_API_KEY", "")
		t.Setenv("ADB_CONNECTOR_VIRTUAL_PROFILE", "")
		cfg, err := parseServeFlags([]string{"--virtual-profile", "wifi"}, io.Discard)
		if err != nil || cfg.Device.Virtual.Profile != "wifi" {
			t.Fatalf("--virtual-profile wifi: %q, %v", cfg.Device.Virtual.Profile, err)
		}
		if cfg, _ = parseServeFlags(nil, io.Discard); cfg.Device.Virtual.Profile != android.DefaultProfile {
			t.Fatalf("default profile %q", cfg.Device.Virtual.Profile)
		}
		cfg, err = parseServeFlags([]string{"--virtual-profile", "turbo", "--virtual-devices", "1"}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		// Refused before any adb server or phone is started.
		err = wireDevices(t.Context(), cfg.Device, &serveWiring{})
		wantNames(t, err, "turbo")
		if !strings.Contains(err.Error(), "--virtual-profile") {
			t.Errorf("error %q does not name the flag", err)
		}
	})
	t.Run("serve env", func(t *testing.T) {
		t.Setenv("ADB_CONNECTOR_ADB", "")
		t.Setenv("ADB_CONNECTOR_API_KEY", "")
		t.Setenv("ADB_CONNECTOR_VIRTUAL_PROFILE", "budget")
		cfg, err := parseServeFlags(nil, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		wantNames(t, wireDevices(t.Context(), cfg.Device, &serveWiring{}), "budget")
		t.Setenv("ADB_CONNECTOR_VIRTUAL_PROFILE", "budget-usb")
		if cfg, _ := parseServeFlags(nil, io.Discard); cfg.Device.Virtual.Profile != "budget-usb" {
			t.Fatalf("env profile %q", cfg.Device.Virtual.Profile)
		}
	})
}
