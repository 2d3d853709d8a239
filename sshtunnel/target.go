package sshtunnel

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// Scheme starts an SSH endpoint: ssh://USER@HOST[:PORT][/ADB_HOST:ADB_PORT].
const Scheme = "ssh://"

// DefaultADB is the lab host's adb server as seen from the lab host.
const DefaultADB = "127.0.0.1:5037"

// Target is one SSH endpoint: who to log in as where, and the adb server
// to reach from there.
type Target struct {
	User string
	// Addr is the SSH server's "host:port" (port 22 by default).
	Addr string
	// ADB is the adb server's "host:port" as the lab host sees it
	// (DefaultADB by default).
	ADB string
}

// IsSSH reports whether an --adb value is an SSH endpoint.
func IsSSH(v string) bool { return strings.HasPrefix(v, Scheme) }

// Parse reads ssh://USER@HOST[:PORT][/ADB_HOST:ADB_PORT]. A password in
// the URL is refused without being repeated: keys only.
func Parse(v string) (Target, error) {
	bad := func(why string) (Target, error) {
		return Target{}, fmt.Errorf("ssh endpoint: %s (want ssh://USER@HOST[:PORT][/ADB_HOST:ADB_PORT])", why)
	}
	if !IsSSH(v) {
		return bad("not an ssh:// URL")
	}
	u, err := url.Parse(v)
	if err != nil {
		return bad("malformed URL")
	}
	if u.User == nil || u.User.Username() == "" {
		return bad("no user")
	}
	if _, has := u.User.Password(); has {
		return bad("a password in the URL is not accepted: use a key (--ssh-key or the SSH agent)")
	}
	if u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return bad("query or fragment given")
	}
	host, port := u.Hostname(), u.Port()
	if host == "" {
		return bad("no host")
	}
	if !validHost(host) {
		return bad("bad host")
	}
	if port == "" {
		port = "22"
	}
	if !validPort(port) {
		return bad("bad SSH port")
	}
	t := Target{User: u.User.Username(), Addr: net.JoinHostPort(host, port), ADB: DefaultADB}
	if p := strings.TrimPrefix(u.Path, "/"); p != "" {
		h, pp, err := net.SplitHostPort(p)
		if err != nil || !validHost(h) || !validPort(pp) || strings.Contains(p, "/") {
			return bad(fmt.Sprintf("adb server %q: want ADB_HOST:ADB_PORT", p))
		}
		t.ADB = net.JoinHostPort(h, pp)
	}
	if strings.IndexFunc(t.User, func(r rune) bool { return !nameRune(r) }) >= 0 {
		return bad("bad user name")
	}
	return t, nil
}

// validHost accepts an IP address or a DNS name (letters, digits, "-",
// "." and "_").
func validHost(h string) bool {
	if net.ParseIP(h) != nil {
		return true
	}
	return h != "" && strings.IndexFunc(h, func(r rune) bool { return !nameRune(r) }) < 0
}

func nameRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_'
}

func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n > 0 && n <= 65535
}

// Name is the endpoint's name in device keys ("NAME/SERIAL"), metrics and
// logs: USER@HOST:PORT, followed by "+ADB_HOST:ADB_PORT" when the adb
// server is not DefaultADB. It never holds "/".
func (t Target) Name() string {
	n := t.User + "@" + t.Addr
	if t.ADB != DefaultADB {
		n += "+" + t.ADB
	}
	return n
}

// String is the endpoint as given, normalized.
func (t Target) String() string {
	s := Scheme + t.User + "@" + t.Addr
	if t.ADB != DefaultADB {
		s += "/" + t.ADB
	}
	return s
}
