package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/sshtunnel"
)

// sshOptions are serve's SSH flags: how --adb ssh://USER@HOST... endpoints
// authenticate and check their hosts (package sshtunnel).
type sshOptions struct {
	Keys       stringList
	KnownHosts string
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return fmt.Sprint([]string(*l)) }

func (l *stringList) Set(v string) error {
	if v == "" {
		return errors.New("empty value")
	}
	*l = append(*l, v)
	return nil
}

func registerSSHFlags(fs *flag.FlagSet, o *sshOptions) {
	fs.Var(&o.Keys, "ssh-key", "private key `FILE` for ssh:// adb servers, repeatable (default: the agent at SSH_AUTH_SOCK, else ~/.ssh/id_ed25519 and id_rsa)")
	fs.StringVar(&o.KnownHosts, "ssh-known-hosts", "", "known_hosts `FILE` the ssh:// adb servers' host keys are checked against (default ~/.ssh/known_hosts)")
}

// adbDialing is what the adb client needs for the --adb list: endpoint
// names (an ssh:// value becomes its Target's name) and a dialer per SSH
// endpoint, over one Tunnel per lab host.
type adbDialing struct {
	Endpoints []string
	Dialers   map[string]adb.DialFunc
	Tunnels   map[string]*sshtunnel.Tunnel // by endpoint name
}

// dialing builds the endpoints of list; close closes the Tunnels (after
// the adb client that uses them).
func (o sshOptions) dialing(list []string, log *slog.Logger) (adbDialing, error) {
	out := adbDialing{Dialers: map[string]adb.DialFunc{}, Tunnels: map[string]*sshtunnel.Tunnel{}}
	cfg := sshtunnel.Config{KeyFiles: o.Keys, KnownHosts: o.KnownHosts, Logger: log}
	for _, v := range list {
		if !sshtunnel.IsSSH(v) {
			out.Endpoints = append(out.Endpoints, v)
			continue
		}
		tg, err := sshtunnel.Parse(v)
		if err != nil {
			return adbDialing{}, err
		}
		name := tg.Name()
		if out.Tunnels[name] != nil {
			continue
		}
		if len(out.Tunnels) == 0 {
			if err := cfg.CheckKeys(); err != nil {
				return adbDialing{}, fmt.Errorf("--ssh-key: %w", err)
			}
		}
		tu := sshtunnel.New(tg, cfg)
		out.Tunnels[name], out.Dialers[name] = tu, tu.Dial
		out.Endpoints = append(out.Endpoints, name)
	}
	return out, nil
}

func (d adbDialing) close() {
	for _, tu := range d.Tunnels {
		_ = tu.Close()
	}
}

// checkSSH is doctor's check of one SSH endpoint before its adb server:
// reachable, host key known, one of our keys accepted.
func (d *doctor) checkSSH(ctx context.Context, tu *sshtunnel.Tunnel) checkResult {
	tg := tu.Target()
	r := checkResult{Check: "ssh"}
	ctx, cancel := context.WithTimeout(ctx, d.timeout())
	defer cancel()
	err := tu.Check(ctx)
	switch {
	case err == nil:
		r.Status, r.Message = statusOK, fmt.Sprintf("%s: reachable, host key known, key accepted for %s", tg.Addr, tg.User)
		return r
	case errors.Is(err, sshtunnel.ErrHostKeyUnknown), errors.Is(err, sshtunnel.ErrHostKeyChanged):
		r.Fix = "the error says how; compare the fingerprint with the lab host's (ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub there) before adding it"
	case errors.Is(err, sshtunnel.ErrAuth):
		r.Fix = "add this server's public key (" + keyHint(d.cfg.Device.SSH.Keys) + ") to ~" + tg.User + "/.ssh/authorized_keys on " + tg.Addr
	default:
		r.Fix = "check that " + tg.Addr + " runs sshd and this host may reach it (ssh -p PORT USER@HOST true)"
	}
	r.Status, r.Message = statusFail, err.Error()
	return r
}

func keyHint(keys []string) string {
	if len(keys) > 0 {
		return keys[0] + ".pub"
	}
	return "the agent's key, or ~/.ssh/id_ed25519.pub"
}
