package sshtunnel

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Errors a dial is refused with, for errors.Is (the doctor names them).
var (
	// ErrHostKeyUnknown: the known_hosts file has no key for the host.
	ErrHostKeyUnknown = errors.New("host key unknown")
	// ErrHostKeyChanged: the host offered a key other than the one (or
	// ones) the known_hosts file has for it, or a revoked one.
	ErrHostKeyChanged = errors.New("host key changed")
	// ErrAuth: no key of ours was accepted (or there was none to offer).
	ErrAuth = errors.New("authentication refused")
	// ErrForwardRefused: sshd refused the direct-tcpip channel
	// (AllowTcpForwarding no, or a PermitOpen without the adb server).
	ErrForwardRefused = errors.New("forwarding refused")
)

// auth returns the keys to offer, in the order of Config: the key files
// given, else the agent's keys, else ~/.ssh/id_ed25519 and ~/.ssh/id_rsa.
// done releases the agent connection once the handshake is over. Errors
// name files and causes, never key material.
func (cfg *Config) auth() (keys []ssh.Signer, done func(), err error) {
	done = func() {}
	if len(cfg.KeyFiles) > 0 {
		var out []ssh.Signer
		for _, f := range cfg.KeyFiles {
			s, err := loadKey(f)
			if err != nil {
				return nil, done, err
			}
			out = append(out, s)
		}
		return out, done, nil
	}
	if sock := cfg.agentSocket(); sock != "" {
		s, closeAgent, err := agentSigners(sock)
		if err != nil {
			cfg.Logger.Debug("ssh agent not usable, trying the default keys", "err", err)
		} else if len(s) > 0 {
			return s, closeAgent, nil
		} else {
			closeAgent()
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, done, fmt.Errorf("%w: no --ssh-key, no SSH agent and no home directory for ~/.ssh keys", ErrAuth)
	}
	var out []ssh.Signer
	for _, name := range []string{"id_ed25519", "id_rsa"} {
		s, err := loadKey(filepath.Join(home, ".ssh", name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			cfg.Logger.Debug("default ssh key skipped", "err", err)
			continue
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, done, fmt.Errorf("%w: no key to offer: give --ssh-key FILE, run an SSH agent (SSH_AUTH_SOCK) or create ~/.ssh/id_ed25519", ErrAuth)
	}
	return out, done, nil
}

// CheckKeys reads the KeyFiles, so a missing, unreadable or
// passphrase-protected one stops serve at start rather than at each dial.
func (cfg Config) CheckKeys() error {
	for _, f := range cfg.KeyFiles {
		if _, err := loadKey(f); err != nil {
			return err
		}
	}
	return nil
}

func (cfg *Config) agentSocket() string {
	if cfg.AgentSocket != "" {
		return cfg.AgentSocket
	}
	return os.Getenv("SSH_AUTH_SOCK")
}

// agentSigners asks the agent for its keys; they sign through the agent
// connection, which closeAgent closes.
func agentSigners(sock string) (s []ssh.Signer, closeAgent func(), err error) {
	c, err := net.Dial("unix", sock)
	if err != nil {
		return nil, nil, fmt.Errorf("ssh agent: %w", err)
	}
	closeAgent = func() { _ = c.Close() }
	if s, err = agent.NewClient(c).Signers(); err != nil {
		closeAgent()
		return nil, nil, fmt.Errorf("ssh agent: list keys: %w", err)
	}
	return s, closeAgent, nil
}

// loadKey reads an unencrypted private key file (OpenSSH or PEM). A key
// with a passphrase cannot be used by a server that has no one to ask:
// the error says to load it into an agent. The file's bytes never reach
// an error: a parse failure is reported by file name only.
func loadKey(path string) (ssh.Signer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("ssh key %s: %w", path, errors.Unwrap(err))
	}
	s, err := ssh.ParsePrivateKey(b)
	clear(b)
	var pm *ssh.PassphraseMissingError
	switch {
	case errors.As(err, &pm):
		return nil, fmt.Errorf("ssh key %s is protected by a passphrase: load it into an SSH agent (ssh-add) and leave --ssh-key out", path)
	case err != nil:
		return nil, fmt.Errorf("ssh key %s: not a private key this server can read (OpenSSH or PEM, unencrypted)", path)
	}
	return s, nil
}

// hostKeyCheck is the known_hosts check of one dial, read afresh so a key
// added while the server runs counts at the next redial. It also returns
// the host key algorithms known_hosts has for addr, so the server is asked
// for a key of a kind the file can vouch for (Go's client otherwise picks
// its own preferred kind and finds it "changed"; OpenSSH does the same
// ordering, ssh_config(5) HostKeyAlgorithms).
func (cfg *Config) hostKeyCheck(addr string) (ssh.HostKeyCallback, []string, error) {
	file := cfg.knownHosts()
	cb, err := knownhosts.New(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("%w: %s does not exist: %s", ErrHostKeyUnknown, file, addHint(addr, file))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("known_hosts %s: %w", file, err)
	}
	check := func(host string, remote net.Addr, key ssh.PublicKey) error {
		err := cb(host, remote, key)
		var ke *knownhosts.KeyError
		var re *knownhosts.RevokedError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &re):
			return fmt.Errorf("%w: %s offered a key revoked in %s (%s)", ErrHostKeyChanged, addr, file, ssh.FingerprintSHA256(key))
		case errors.As(err, &ke) && len(ke.Want) == 0:
			return fmt.Errorf("%w: %s is not in %s (it offers %s %s): check that fingerprint with the host's administrator, then %s",
				ErrHostKeyUnknown, addr, file, key.Type(), ssh.FingerprintSHA256(key), addHint(addr, file))
		case errors.As(err, &ke):
			return fmt.Errorf("%w: %s offers %s %s, not the key %s has for it (line %d): someone may be intercepting the connection; "+
				"if the host was reinstalled, remove the old key (ssh-keygen -R %s -f %s), then %s",
				ErrHostKeyChanged, addr, key.Type(), ssh.FingerprintSHA256(key), file, ke.Want[0].Line,
				knownhosts.Normalize(addr), file, addHint(addr, file))
		}
		return err
	}
	return check, knownAlgorithms(cb, addr), nil
}

// knownAlgorithms lists the host key algorithms known_hosts has keys of
// for addr (none: let the client choose). The callback is asked about a
// throwaway key: its KeyError lists the known ones.
func knownAlgorithms(cb ssh.HostKeyCallback, addr string) []string {
	pub, _, err := ed25519.GenerateKey(nil)
	if err != nil {
		return nil
	}
	probe, err := ssh.NewPublicKey(pub)
	if err != nil {
		return nil
	}
	var ke *knownhosts.KeyError
	if !errors.As(cb(addr, &net.TCPAddr{IP: net.IPv4zero}, probe), &ke) {
		return nil
	}
	var algos []string
	for _, k := range ke.Want {
		names := []string{k.Key.Type()}
		if k.Key.Type() == ssh.KeyAlgoRSA {
			// An RSA host key signs with SHA-2 these days (RFC 8332).
			names = []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA}
		}
		for _, n := range names {
			if !slices.Contains(algos, n) {
				algos = append(algos, n)
			}
		}
	}
	return algos
}

// addHint says how to add addr's key to file.
func addHint(addr, file string) string {
	host, port, _ := net.SplitHostPort(addr)
	return fmt.Sprintf("add it with: ssh-keyscan -p %s %s >> %s", port, host, file)
}

func (cfg *Config) knownHosts() string {
	if cfg.KnownHosts != "" {
		return cfg.KnownHosts
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".ssh/known_hosts"
	}
	return filepath.Join(home, ".ssh", "known_hosts")
}
