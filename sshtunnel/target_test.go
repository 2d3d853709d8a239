package sshtunnel_test

import (
	"crypto/ed25519"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/sshtunnel"
	"golang.org/x/crypto/ssh"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, name, str, err string
	}{
		{in: "ssh://adbc@lab1", name: "adbc@lab1:22", str: "ssh://adbc@lab1:22"},
		{in: "ssh://adbc@lab1:2222", name: "adbc@lab1:2222", str: "ssh://adbc@lab1:2222"},
		{in: "ssh://adbc@lab1/127.0.0.1:5037", name: "adbc@lab1:22", str: "ssh://adbc@lab1:22"},
		{in: "ssh://adbc@lab1:22/127.0.0.1:5038", name: "adbc@lab1:22+127.0.0.1:5038", str: "ssh://adbc@lab1:22/127.0.0.1:5038"},
		{in: "ssh://adbc@[fd00::1]:22/[::1]:5037", name: "adbc@[fd00::1]:22+[::1]:5037", str: "ssh://adbc@[fd00::1]:22/[::1]:5037"},
		{in: "ssh://lab1", err: "no user"},
		{in: "ssh://adbc:hunter2@lab1", err: "password in the URL is not accepted"},
		{in: "ssh://adbc@lab1:0", err: "bad SSH port"},
		{in: "ssh://adbc@lab1:99999", err: "bad SSH port"},
		{in: "ssh://adbc@lab1/5037", err: "want ADB_HOST:ADB_PORT"},
		{in: "ssh://adbc@lab1/a/b:1", err: "want ADB_HOST:ADB_PORT"},
		{in: "ssh://adbc@lab1?x=1", err: "query"},
		{in: "ssh://adbc@", err: "no host"},
		{in: "lab1:5037", err: "not an ssh:// URL"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			tg, err := sshtunnel.Parse(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Parse = %+v, %v; want error with %q", tg, err, tc.err)
				}
				if strings.Contains(err.Error(), "hunter2") {
					t.Errorf("the error repeats the password: %v", err)
				}
				return
			}
			if err != nil || tg.Name() != tc.name || tg.String() != tc.str {
				t.Fatalf("Parse = %+v (%s, %s), %v; want %s, %s", tg, tg.Name(), tg, err, tc.name, tc.str)
			}
		})
	}
}

// FuzzParse: an --adb value is operator input. Parse never panics, never
// repeats a password, and what it accepts names an endpoint without "/"
// that parses back to itself.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"ssh://adbc@lab1", "ssh://adbc@lab1:2222/127.0.0.1:5038", "ssh://a:pw@h", "ssh://u@[::1]:22/[::1]:1", "ssh://@/", "ssh://u@h/%2f:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := sshtunnel.Parse(s)
		if err != nil {
			return
		}
		if strings.Contains(tg.Name(), "/") || tg.User == "" {
			t.Fatalf("Parse(%q) = %+v: name %q", s, tg, tg.Name())
		}
		back, err := sshtunnel.Parse(tg.String())
		if err != nil || back != tg {
			t.Fatalf("Parse(%q).String() = %q parses to %+v, %v", s, tg.String(), back, err)
		}
	})
}

func TestPassphraseKeyRefused(t *testing.T) {
	t.Parallel()
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	const pass = "correct horse battery staple"
	blk, err := ssh.MarshalPrivateKeyWithPassphrase(priv, "", []byte(pass))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "id_locked")
	body := pem.EncodeToMemory(blk)
	if err := os.WriteFile(file, body, 0o600); err != nil {
		t.Fatal(err)
	}
	known := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(known, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tg, _ := sshtunnel.Parse("ssh://u@127.0.0.1:1")
	tu := sshtunnel.New(tg, sshtunnel.Config{KeyFiles: []string{file}, KnownHosts: known})
	defer tu.Close()
	// The host key check comes first; with the host unknown the dial stops
	// there, so the key is checked on its own.
	err = tu.Check(t.Context())
	if err == nil {
		t.Fatal("dial succeeded")
	}
	for _, e := range []error{err, sshtunnel.Config{KeyFiles: []string{file}}.CheckKeys()} {
		if e == nil {
			t.Fatal("a passphrase-protected key was accepted")
		}
		if strings.Contains(e.Error(), pass) || strings.Contains(e.Error(), strings.Split(string(body), "\n")[1]) {
			t.Fatalf("the error holds a secret: %v", e)
		}
	}
	if e := (sshtunnel.Config{KeyFiles: []string{file}}).CheckKeys(); !strings.Contains(e.Error(), "ssh-add") {
		t.Errorf("error %q does not say to use the agent", e)
	}
}
