package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/adb-connector/adb-connector/device"
	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/auth"
	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/store"
)

// adminFixture is a real admin socket served from a temp data dir.
type adminFixture struct {
	dir      string
	pairing  *auth.Pairing
	requests *auth.Requests
	bindings *binding.Table
}

func startAdminFixture(t *testing.T) *adminFixture {
	t.Helper()
	t.Cleanup(func() { goleak.VerifyNone(t) }) // runs last
	dir := t.TempDir()
	ctx := context.Background()
	db, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	secret, err := auth.LoadOrCreateSecret(dir)
	if err != nil {
		t.Fatal(err)
	}
	devs := func() []auth.DeviceInfo {
		return []auth.DeviceInfo{
			{Key: "127.0.0.1:5037/S1", Endpoint: "127.0.0.1:5037", Serial: "S1", Model: "Pixel 7", State: "device"},
			{Key: "127.0.0.1:5037/S2", Endpoint: "127.0.0.1:5037", Serial: "S2", Model: "", State: "unauthorized"},
		}
	}
	f := &adminFixture{dir: dir}
	f.bindings = binding.New(db, binding.Options{})
	f.pairing = auth.NewPairing(f.bindings, secret, auth.PairingOptions{})
	f.requests = auth.NewRequests(f.bindings, secret, auth.RequestOptions{Devices: devs})
	svc := &device.AdminService{Bindings: f.bindings, Pairing: f.pairing, Requests: f.requests, ListDevices: devs}
	closeFn, err := admin.Serve(ctx, admin.SocketPath(dir), svc, admin.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeFn() })
	return f
}

type runFunc = func(args []string, stdout, stderr io.Writer) error

func runCLI(run runFunc, args ...string) (string, error) {
	var out, errOut bytes.Buffer
	err := run(args, &out, &errOut)
	return out.String(), err
}

func TestOperatorCommands(t *testing.T) {
	f := startAdminFixture(t)
	ctx := context.Background()
	var out, errOut bytes.Buffer
	reset := func() { out.Reset(); errOut.Reset() }

	if err := runDevices([]string{"--data-dir", f.dir}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"SERIAL", "ENDPOINT", "STATE", "MODEL", "BOUND", "S1", "127.0.0.1:5037", "device", "Pixel 7", "unauthorized", "false"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("devices table lacks %q:\n%s", want, out.String())
		}
	}

	reset()
	if err := runPair([]string{"S1", "--ttl", "5m", "--data-dir", f.dir}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	code := lines[len(lines)-1]
	if len(lines) < 2 || strings.ContainsAny(code, " :") || len(code) != 9 {
		t.Fatalf("pair output %q: want the code alone on the last line", out.String())
	}
	if _, err := f.pairing.RedeemPairing(ctx, "chA", "S1", code); err != nil {
		t.Fatalf("redeem the printed code: %v", err)
	}

	s, err := f.requests.StartRequest(ctx, "chB")
	if err != nil {
		t.Fatal(err)
	}
	reset()
	if err := runApprove([]string{s.Code, "--serial", "S2", "--data-dir", f.dir}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "S2") {
		t.Errorf("approve output %q", out.String())
	}
	if st, err := f.requests.Status(ctx, "chB", s.ID, false); err != nil || st.Status != auth.Authenticated {
		t.Fatalf("after approve: %+v, %v", st, err)
	}

	reset()
	if err := runDevices([]string{"--json", "--data-dir", f.dir}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("devices --json: %v\n%s", err, out.String())
	}
	if len(rows) != 2 || rows[0]["serial"] != "S1" || rows[0]["bound"] != true || rows[1]["bound"] != true ||
		rows[0]["endpoint"] != "127.0.0.1:5037" || rows[1]["state"] != "unauthorized" || rows[0]["model"] != "Pixel 7" {
		t.Errorf("devices --json = %v", rows)
	}

	reset()
	if err := runUnbind([]string{"S1", "--data-dir", f.dir}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if bd, err := f.bindings.ByChannel(ctx, "chA"); err != nil || bd.State != binding.Revoked {
		t.Fatalf("after unbind: %+v, %v", bd, err)
	}

	// Refusals come back as one clear line, without secrets.
	for _, tt := range []struct {
		name string
		run  runFunc
		args []string
		want string
	}{
		{"unbind again", runUnbind, []string{"S1"}, "not bound"},
		{"approve unknown code", runApprove, []string{"ZZZ-ZZZ"}, "unknown or expired request code"},
		{"pair unknown serial", runPair, []string{"NOPE"}, "unknown device"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runCLI(tt.run, append(tt.args, "--data-dir", f.dir)...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestOperatorCommandsWithoutServer(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nowhere")
	for name, run := range map[string]runFunc{"devices": runDevices, "pair": runPair, "approve": runApprove, "unbind": runUnbind} {
		t.Run(name, func(t *testing.T) {
			args := []string{"--data-dir", dir}
			if name != "devices" {
				args = append([]string{"X"}, args...)
			}
			_, err := runCLI(run, args...)
			want := "is `adb-connector serve` running with --data-dir " + dir + "?"
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v, want it to contain %q", err, want)
			}
		})
	}
	t.Run("env default", func(t *testing.T) {
		t.Setenv(dataDirEnv, dir)
		if _, err := runCLI(runDevices); err == nil || !strings.Contains(err.Error(), "--data-dir "+dir+"?") {
			t.Fatalf("err = %v, want the env data dir named", err)
		}
	})
	t.Run("usage", func(t *testing.T) {
		for _, args := range [][]string{{}, {"a", "b"}, {"S", "--ttl", "-1m"}} {
			if _, err := runCLI(runPair, args...); err == nil {
				t.Errorf("pair %q accepted", args)
			}
		}
		if _, err := runCLI(runDevices, "extra"); err == nil {
			t.Error("devices accepted a positional argument")
		}
	})
	t.Run("usage text", func(t *testing.T) {
		for _, tt := range []struct {
			name string
			run  runFunc
			args []string
			want []string
		}{
			{"devices", runDevices, []string{"x"}, []string{`adb-connector devices: unexpected argument "x" (it takes no arguments)`}},
			{"pair", runPair, nil, []string{"adb-connector pair: missing SERIAL"}},
			{"pair ttl", runPair, []string{"S", "--ttl", "0s"}, []string{"adb-connector pair: --ttl 0s: want a positive duration"}},
			{"approve", runApprove, nil, []string{"adb-connector approve: missing CODE"}},
			{"unbind", runUnbind, []string{"a", "b"}, []string{`adb-connector unbind: unexpected argument "b" (it takes only SERIAL)`}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				var out, errOut bytes.Buffer
				if err := tt.run(tt.args, &out, &errOut); !errors.Is(err, errUsage) {
					t.Fatalf("err = %v, want errUsage", err)
				}
				if out.Len() != 0 {
					t.Errorf("stdout = %q, want nothing", out.String())
				}
				got := errOut.String()
				for _, w := range append(tt.want, "--help") {
					if !strings.Contains(got, w) {
						t.Errorf("stderr lacks %q:\n%s", w, got)
					}
				}
				if n := strings.Count(got, "\n"); n != 1 {
					t.Errorf("%d lines, want one:\n%s", n, got)
				}
			})
		}
	})
}
