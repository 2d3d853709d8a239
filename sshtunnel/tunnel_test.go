package sshtunnel_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/internal/testkit"
	"github.com/adb-connector/adb-connector/sshtunnel"
	"github.com/adb-connector/adb-connector/sshtunnel/sshdtest"
)

// lab is one lab host: a real adb server with virtual phones, reached
// through a real sshd, and the adb client reading it through a Tunnel.
type lab struct {
	env    *adbtest.Env
	sshd   *sshdtest.Server
	tunnel *sshtunnel.Tunnel
	client *adb.Client
	name   string
	logs   *testkit.LogBuffer
}

// startLab wires a Client to env's adb server through sshd with cfg
// (KeyFiles and KnownHosts default to sshd's own).
func startLab(t *testing.T, env *adbtest.Env, sshd *sshdtest.Server, cfg sshtunnel.Config) *lab {
	t.Helper()
	logs := &testkit.LogBuffer{}
	log := logs.TextLogger()
	if cfg.KeyFiles == nil {
		cfg.KeyFiles = []string{sshd.KeyFile}
	}
	if cfg.KnownHosts == "" {
		cfg.KnownHosts = sshd.KnownHosts
	}
	cfg.Logger = log
	tg, err := sshtunnel.Parse(sshd.URL(env.ServerAddr))
	if err != nil {
		t.Fatal(err)
	}
	tu := sshtunnel.New(tg, cfg)
	c, err := adb.New(t.Context(), adb.Config{Endpoints: []string{tg.Name()},
		Dialers: map[string]adb.DialFunc{tg.Name(): tu.Dial}, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	l := &lab{env: env, sshd: sshd, tunnel: tu, client: c, name: tg.Name(), logs: logs}
	t.Cleanup(func() {
		c.Close()
		tu.Close()
		checkNoSecret(t, logs.String(), sshd)
	})
	return l
}

// checkNoSecret fails t if text holds a line of sshd's private keys.
func checkNoSecret(t *testing.T, text string, sshd *sshdtest.Server) {
	t.Helper()
	for _, l := range sshd.SecretLines() {
		if strings.Contains(text, l) {
			t.Errorf("log or error holds a private key line")
		}
	}
}

// waitDevices waits until tracking lists want devices of l in state.
func (l *lab) waitDevices(t *testing.T, want int, state adb.State) []adb.DeviceInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	ev := l.client.Watch(ctx)
	for {
		var got []adb.DeviceInfo
		for _, d := range l.client.Tracked() {
			if d.State == state {
				got = append(got, d)
			}
		}
		if len(got) == want {
			return got
		}
		select {
		case _, ok := <-ev:
			if !ok {
				t.Fatalf("%d devices %s, want %d: %+v", len(got), state, want, l.client.Tracked())
			}
		case <-ctx.Done():
			t.Fatalf("%d devices %s, want %d: %+v", len(got), state, want, l.client.Tracked())
		}
	}
}

func TestPhonesThroughSSH(t *testing.T) {
	t.Parallel()
	env := adbtest.Start(t, adbtest.Options{Devices: 2})
	sshd := sshdtest.StartT(t, sshdtest.Options{Config: []string{"PermitOpen " + env.ServerAddr}})
	l := startLab(t, env, sshd, sshtunnel.Config{})
	devs := l.waitDevices(t, 2, adb.StateDevice)
	for _, d := range devs {
		if d.Endpoint != l.name || !strings.HasPrefix(d.Key, l.name+"/") {
			t.Errorf("device %+v: want endpoint %s", d, l.name)
		}
	}
	// Driven through SSH: a shell command, a tap (its touch stream) and a
	// screenshot, each seen by the phone.
	dev, err := l.client.Device(devs[0].Key)
	if err != nil {
		t.Fatal(err)
	}
	res, err := dev.Shell(t.Context(), "echo", "through ssh")
	if err != nil || strings.TrimSpace(string(res.Stdout)) != "through ssh" {
		t.Fatalf("shell = %q, %v", res.Stdout, err)
	}
	if err := dev.Tap(t.Context(), 100, 200); err != nil {
		t.Fatalf("tap: %v", err)
	}
	png, err := dev.ScreencapPNG(t.Context())
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("screencap: %d bytes, %v", len(png), err)
	}
	var phone *android.Device
	for _, d := range env.Devices {
		if d.Serial() == devs[0].Serial {
			phone = d.Android()
		}
	}
	ran := map[string]bool{}
	for _, c := range phone.Commands() {
		if c.Touch != nil {
			ran["touch"] = true
		} else if len(c.Argv) > 0 && len(c.Argv[0]) > 0 {
			ran[c.Argv[0][0]] = true
		}
	}
	for _, want := range []string{"echo", "touch", "screencap"} {
		if !ran[want] {
			t.Errorf("the phone logged no %s: %v", want, ran)
		}
	}
	// One SSH connection carried all of it.
	if n := strings.Count(sshd.Log(), "Accepted publickey"); n != 1 {
		t.Errorf("sshd accepted %d logins, want 1:\n%s", n, sshd.Log())
	}
}

func TestRefused(t *testing.T) {
	t.Parallel()
	env := adbtest.Start(t, adbtest.Options{Devices: 1})
	good := sshdtest.StartT(t, sshdtest.Options{})
	noForward := sshdtest.StartT(t, sshdtest.Options{Config: []string{"AllowTcpForwarding no"}})
	permitNone := sshdtest.StartT(t, sshdtest.Options{Config: []string{"PermitOpen none"}})
	dir := t.TempDir()
	otherKey := filepath.Join(dir, "other_key")
	if _, err := sshdtest.WriteKey(otherKey); err != nil {
		t.Fatal(err)
	}
	// A known_hosts naming the host with another key: a changed key.
	otherHost := filepath.Join(dir, "host2")
	priv, err := sshdtest.WriteKey(otherHost)
	if err != nil {
		t.Fatal(err)
	}
	_ = priv
	pub, err := os.ReadFile(otherHost + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	changed := filepath.Join(dir, "known_hosts_changed")
	host := "[127.0.0.1]:" + strings.TrimPrefix(good.Addr, "127.0.0.1:")
	if err := os.WriteFile(changed, []byte(host+" "+string(pub)), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "known_hosts_empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		sshd  *sshdtest.Server
		cfg   sshtunnel.Config
		is    error
		words []string
	}{
		{"host key changed", good, sshtunnel.Config{KnownHosts: changed}, sshtunnel.ErrHostKeyChanged, []string{"ssh-keygen -R", "ssh-keyscan -p " + strings.TrimPrefix(good.Addr, "127.0.0.1:") + " 127.0.0.1 >> " + changed}},
		{"host key unknown", good, sshtunnel.Config{KnownHosts: empty}, sshtunnel.ErrHostKeyUnknown, []string{"SHA256:", "ssh-keyscan -p " + strings.TrimPrefix(good.Addr, "127.0.0.1:") + " 127.0.0.1 >> " + empty}},
		{"no known_hosts file", good, sshtunnel.Config{KnownHosts: filepath.Join(dir, "none")}, sshtunnel.ErrHostKeyUnknown, []string{"does not exist", "ssh-keyscan"}},
		{"user key refused", good, sshtunnel.Config{KeyFiles: []string{otherKey}}, sshtunnel.ErrAuth, []string{"authorized_keys"}},
		{"AllowTcpForwarding no", noForward, sshtunnel.Config{}, sshtunnel.ErrForwardRefused, []string{"PermitOpen " + env.ServerAddr}},
		{"PermitOpen none", permitNone, sshtunnel.Config{}, sshtunnel.ErrForwardRefused, []string{"AllowTcpForwarding yes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := startLab(t, env, tc.sshd, tc.cfg)
			_, err := l.client.Devices(t.Context())
			if !errors.Is(err, tc.is) || !errors.Is(err, adb.ErrServerUnavailable) {
				t.Fatalf("devices: %v, want %v", err, tc.is)
			}
			for _, w := range tc.words {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if _, err := l.client.ServerVersion(t.Context(), l.name); !errors.Is(err, tc.is) {
				t.Errorf("version: %v", err)
			}
			if got := l.client.Tracked(); len(got) != 0 {
				t.Errorf("tracked %+v, want none", got)
			}
			checkNoSecret(t, err.Error(), tc.sshd)
		})
	}
}

func TestSSHDropAndRedial(t *testing.T) {
	t.Parallel()
	env := adbtest.Start(t, adbtest.Options{Devices: 2})
	sshd := sshdtest.StartT(t, sshdtest.Options{})
	l := startLab(t, env, sshd, sshtunnel.Config{})
	l.waitDevices(t, 2, adb.StateDevice)
	sshd.Kill()
	l.waitDevices(t, 2, adb.StateOffline)
	if up := l.client.ServersUp()[l.name]; up {
		t.Error("server up with sshd down")
	}
	if err := sshd.Restart(); err != nil {
		t.Fatal(err)
	}
	devs := l.waitDevices(t, 2, adb.StateDevice)
	dev, err := l.client.Device(devs[1].Key)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := dev.Shell(t.Context(), "echo", "back"); err != nil || strings.TrimSpace(string(res.Stdout)) != "back" {
		t.Fatalf("shell after redial = %q, %v", res.Stdout, err)
	}
	if !strings.Contains(l.logs.String(), "ssh connection lost") {
		t.Error("the drop was not logged")
	}
}

func TestAgentKeys(t *testing.T) {
	t.Parallel()
	env := adbtest.Start(t, adbtest.Options{Devices: 1})
	sshd := sshdtest.StartT(t, sshdtest.Options{})
	sock := sshdtest.StartAgentT(t, sshd.KeyFile)
	l := startLab(t, env, sshd, sshtunnel.Config{KeyFiles: []string{}, AgentSocket: sock})
	l.waitDevices(t, 1, adb.StateDevice)
	if strings.Contains(l.logs.String(), sock) {
		t.Error("the agent's socket path reached the log")
	}
}
