package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/internal/testkit"
	"github.com/adb-connector/adb-connector/sshtunnel/sshdtest"
)

// TestSSHEndpointE2E: a phone on a lab host whose adb server is reached
// through a real sshd is bound and driven through the real server; sshd
// killed, the binding goes offline; sshd back, it is connected again on
// the same channel, with no new pairing.
func TestSSHEndpointE2E(t *testing.T) {
	t.Parallel()
	env := adbtest.Start(t, adbtest.Options{Devices: 1})
	d := env.Devices[0]
	sshd := sshdtest.StartT(t, sshdtest.Options{Config: []string{"PermitOpen " + env.ServerAddr}})
	url := sshd.URL(env.ServerAddr)
	logs := &testkit.LogBuffer{}
	p := startServe(t, t.TempDir(), url, logs, "--ssh-key", sshd.KeyFile, "--ssh-known-hosts", sshd.KnownHosts)
	name := sshd.User + "@" + sshd.Addr + "+" + env.ServerAddr
	p.waitListed(t, d.Serial())
	if row := p.deviceRow(t, d.Serial()); row.Endpoint != name || row.State != "device" {
		t.Fatalf("devices row %+v: want endpoint %s, state device", row, name)
	}
	a := newAgent(t, p, "")
	ch := a.open(t)
	code, _ := a.pair(t, p, ch, d.Serial())
	d.Android().ClearCommands()
	result(t, a.invoke(t, ch, "android_tap", map[string]int{"x": 10, "y": 20}), &map[string]any{})
	if cmds := deviceCommands(d); !slices.Contains(cmds, "touch tap 10 20") {
		t.Fatalf("the phone ran %q, want a tap", cmds)
	}

	sshd.Kill()
	took, _ := a.waitStatus(t, ch, "offline", pushWithin)
	t.Logf("offline push %s after sshd was killed", took)
	if row := p.deviceRow(t, d.Serial()); row.State != "offline" || !row.Bound {
		t.Errorf("devices row with sshd down: %+v", row)
	}
	if err := sshd.Restart(); err != nil {
		t.Fatal(err)
	}
	took, _ = a.waitStatus(t, ch, "connected", setupWait)
	t.Logf("connected push %s after sshd restarted", took)
	result(t, a.invoke(t, ch, "android_device_status", map[string]any{}), &map[string]any{})
	if !strings.Contains(p.Logs(), "ssh connection lost") {
		t.Error("the SSH drop was not logged")
	}
	scanSecrets(t, a, p.Logs(), nil, append(sshd.SecretLines(), code)...)
}

// TestSSHEndpointRefusedE2E: a lab host whose key is not in known_hosts
// lists no phone, and serve's log says how to add the key.
func TestSSHEndpointRefusedE2E(t *testing.T) {
	t.Parallel()
	env := adbtest.Start(t, adbtest.Options{Devices: 1})
	sshd := sshdtest.StartT(t, sshdtest.Options{})
	empty := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p := startServe(t, t.TempDir(), sshd.URL(env.ServerAddr), nil, "--ssh-key", sshd.KeyFile, "--ssh-known-hosts", empty)
	hint := "ssh-keyscan -p " + strings.TrimPrefix(sshd.Addr, "127.0.0.1:") + " 127.0.0.1 >> " + empty
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(setupWait)
	for !strings.Contains(p.Logs(), hint) {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("serve's log does not say %q:\n%s", hint, p.Logs())
		}
	}
	if rows := p.devices(t); len(rows) != 0 {
		t.Errorf("devices lists %+v through an unknown host", rows)
	}
	if n := strings.Count(sshd.Log(), "Accepted publickey"); n != 0 {
		t.Errorf("serve logged in to a host it does not know (%d times)", n)
	}
}

// TestDoctorSSH: doctor checks an SSH endpoint (reachable, host key known,
// key accepted) and then its adb server through it; an unknown host key
// fails the ssh check with the command that adds it.
func TestDoctorSSH(t *testing.T) {
	t.Parallel()
	env := adbtest.Start(t, adbtest.Options{Devices: 1})
	sshd := sshdtest.StartT(t, sshdtest.Options{})
	url := sshd.URL(env.ServerAddr)
	d := newTestDoctor(t, "--adb", url, "--ssh-key", sshd.KeyFile, "--ssh-known-hosts", sshd.KnownHosts)
	got := d.checkADBServers(t.Context())
	byCheck := map[string]checkResult{}
	for _, r := range got {
		byCheck[r.Check] = r
	}
	for _, c := range []string{"ssh", "adb-server", "phone"} {
		if byCheck[c].Status != statusOK {
			t.Errorf("%s: %+v (all: %+v)", c, byCheck[c], got)
		}
	}
	empty := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	d = newTestDoctor(t, "--adb", url, "--ssh-key", sshd.KeyFile, "--ssh-known-hosts", empty)
	got = d.checkADBServers(t.Context())
	if len(got) != 1 || got[0].Check != "ssh" || got[0].Status != statusFail || !strings.Contains(got[0].Message, "ssh-keyscan") {
		t.Errorf("unknown host key: %+v", got)
	}
	noFwd := sshdtest.StartT(t, sshdtest.Options{Config: []string{"PermitOpen none"}})
	d = newTestDoctor(t, "--adb", noFwd.URL(env.ServerAddr), "--ssh-key", noFwd.KeyFile, "--ssh-known-hosts", noFwd.KnownHosts)
	got = d.checkADBServers(t.Context())
	if len(got) != 2 || got[0].Status != statusOK || got[1].Check != "adb-server" || got[1].Status != statusFail || !strings.Contains(got[1].Fix, "PermitOpen") {
		t.Errorf("forwarding refused: %+v", got)
	}
}
