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
	"time"

	"go.uber.org/goleak"

	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/auth"
	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/device/operator"
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
	// Every release owes a reset, as under the default reset policy; no
	// reset runs here (the device tests run them), so it stays pending.
	f.bindings = binding.New(db, binding.Options{ResetOnRelease: func(string) binding.ResetStatus { return binding.ResetPending }})
	f.pairing = auth.NewPairing(f.bindings, secret, auth.PairingOptions{})
	f.requests = auth.NewRequests(f.bindings, secret, auth.RequestOptions{Devices: devs})
	// chA's xAgent connection is up, chB's gone: what serve's connector
	// says of them (connector.Server.ChannelLink).
	now := time.Now()
	link := func(ch string) (bool, time.Time, bool) {
		switch ch {
		case "chA":
			return true, now.Add(-5 * time.Minute), true
		case "chB":
			return false, now.Add(-2 * time.Hour), true
		}
		return false, time.Time{}, false
	}
	api := operator.New(operator.Config{Bindings: f.bindings, Pairing: f.pairing, Requests: f.requests, Devices: devs, DB: db,
		Serve: operator.Serve{Link: link}})
	closeFn, err := admin.Serve(ctx, admin.SocketPath(dir), api, admin.Options{})
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
	for _, want := range []string{"SERIAL", "ENDPOINT", "STATE", "MODEL", "HOLDER", "XAGENT", "LEASE LEFT", "LAST CALL", "S1", "127.0.0.1:5037", "device", "Pixel 7", "unauthorized", "free"} {
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

	// The holders at a glance: label, connection, bound for, lease.
	out.Reset()
	if err := runDevices([]string{"--data-dir", f.dir}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	for serial, want := range map[string][]string{
		"S1": {"chA", "connected 5m0", "no limit"},
		"S2": {"chB", "disconnected 2h00m ago", "no limit"},
	} {
		var line string
		for l := range strings.Lines(out.String()) {
			if strings.HasPrefix(l, serial+" ") {
				line = l
			}
		}
		for _, w := range want {
			if !strings.Contains(line, w) {
				t.Errorf("devices: the row of %s lacks %q:\n%s", serial, w, out.String())
			}
		}
	}

	// No free device: how many are bound, how many holders are gone, how to free one.
	s3, err := f.requests.StartRequest(ctx, "chC")
	if err != nil {
		t.Fatal(err)
	}
	_, err = runCLI(runApprove, s3.Code, "--data-dir", f.dir)
	if want := "no free online device: 2 bound, 1 of their holders disconnected; `adb-connector devices` shows who holds each, `adb-connector unbind SERIAL` frees one"; err == nil || err.Error() != want {
		t.Errorf("approve with every device bound: %v\nwant %s", err, want)
	}
	// A held phone: no code without --force, and the refusal names the holder.
	if _, err := runCLI(runPair, "S1", "--data-dir", f.dir); err == nil ||
		!strings.Contains(err.Error(), "S1 is held by channel chA (connected 5m") || !strings.Contains(err.Error(), "--force") {
		t.Errorf("pair of a held phone: %v, want a refusal naming chA and --force", err)
	}
	if _, err := runCLI(runApprove, s3.Code, "--serial", "S2", "--data-dir", f.dir); err == nil ||
		!strings.Contains(err.Error(), "held by channel chB (disconnected 2h00m ago)") {
		t.Errorf("approve onto a held phone: %v, want a refusal naming chB", err)
	}
	// --force: the code is issued for when the phone is free; chA keeps it.
	if out, err := runCLI(runPair, "S1", "--force", "--data-dir", f.dir); err != nil || !strings.Contains(out, "One-time pairing code for S1") {
		t.Errorf("pair --force of a held phone: %q, %v", out, err)
	}
	if bd, err := f.bindings.ByChannel(ctx, "chA"); err != nil || bd.State != binding.Bound {
		t.Fatalf("pair of a held phone changed the binding: %+v, %v", bd, err)
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

// TestResetCommand: `reset SERIAL` starts the reset a released device
// owes through the admin socket and says so; a device that owes none is
// refused with one clear line, as is one whose reset was cleared.
func TestResetCommand(t *testing.T) {
	f := startAdminFixture(t)
	ctx := context.Background()
	if err := f.bindings.Bind(ctx, "chR", "127.0.0.1:5037/S1"); err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(runReset, "S1", "--data-dir", f.dir); err == nil || !strings.Contains(err.Error(), "no reset") {
		t.Fatalf("reset of a bound device that owes none: %v", err)
	}
	if err := f.bindings.Release(ctx, "chR"); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(runDevices, "--data-dir", f.dir)
	if err != nil || !strings.Contains(out, "reset-pending") {
		t.Fatalf("devices after the release: %v\n%s", err, out)
	}
	out, err = runCLI(runReset, "S1", "--data-dir", f.dir)
	if err != nil || out != "reset started for S1 on 127.0.0.1:5037; `adb-connector devices` shows how it ends\n" {
		t.Fatalf("reset = %q, %v", out, err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"NOPE"}, "no reset"},
		{[]string{strings.Repeat("S", admin.MaxSerialLen+1)}, "invalid argument: serial too long"},
	} {
		if _, err := runCLI(runReset, append(tt.args, "--data-dir", f.dir)...); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("reset %.20q: %v, want %q", tt.args, err, tt.want)
		}
	}
	if _, err := runCLI(runUnbind, "S1", "--clear-reset", "--data-dir", f.dir); err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(runReset, "S1", "--data-dir", f.dir); err == nil || !strings.Contains(err.Error(), "no reset") {
		t.Errorf("reset after clear-reset: %v, want no reset", err)
	}
	if _, err := runCLI(runReset, "--data-dir", f.dir); err == nil {
		t.Error("reset without a serial accepted")
	}
}

func TestOperatorCommandsWithoutServer(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nowhere")
	for name, run := range map[string]runFunc{"devices": runDevices, "pair": runPair, "approve": runApprove, "unbind": runUnbind, "reset": runReset} {
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
