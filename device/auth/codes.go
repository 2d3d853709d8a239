package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Auth flow identifiers and form fields, as the Card declares them (§4.1 auth_flows).
const (
	// FlowPairing is the form flow: the user types a serial and the
	// operator's one-time code (fields FieldSerial and FieldPairingCode, the
	// latter a secret password field).
	FlowPairing = "device_pairing"
	// FlowRequest is the polling flow: auth.start shows a request code the
	// operator approves; auth.status polls until authenticated or expired.
	FlowRequest = "device_request"

	FieldSerial      = "serial"
	FieldPairingCode = "pairing_code"
)

// Errors callers branch on (errors.Is). Their messages are safe to show to a
// user or an agent: they never contain a code, a secret or a full serial.
var (
	// ErrPairingFailed is the one generic pairing failure: unknown serial,
	// wrong, expired or already used code all return it, with one message.
	ErrPairingFailed = errors.New("pairing failed: check the serial and the pairing code")
	// ErrSessionNotFound: no such auth session on this channel (§8.9 auth_session_not_found).
	ErrSessionNotFound = errors.New("authentication session not found")
	// ErrInvalidRequestCode: an operator approved an unknown, expired or used request code.
	ErrInvalidRequestCode = errors.New("unknown or expired request code")
	// ErrUnknownDevice: no connected device has this serial.
	ErrUnknownDevice = errors.New("unknown device")
	// ErrAmbiguousSerial: the serial exists on several adb endpoints; use endpoint/serial.
	ErrAmbiguousSerial = errors.New("serial is ambiguous: several adb endpoints have it, use endpoint/serial")
	// ErrNoFreeDevice: approval without a serial found no online, unbound device.
	ErrNoFreeDevice = errors.New("no free online device")
	// ErrInvalidArgument: a malformed input (empty serial, bad TTL, ...).
	ErrInvalidArgument = errors.New("invalid argument")
)

// SecretFileName is the per-install secret's file name in the data directory.
const SecretFileName = "auth.key"

const secretLen = 32

// LoadOrCreateSecret returns the per-install secret kept in dir/auth.key
// (32 random bytes, mode 0600), creating it on first use. It keys the HMACs
// under which pairing and request codes are stored, so a stolen database
// alone does not allow an offline search for the short codes.
func LoadOrCreateSecret(dir string) ([]byte, error) {
	path := filepath.Join(dir, SecretFileName)
	b, err := os.ReadFile(path)
	if err == nil {
		if len(b) != secretLen {
			return nil, fmt.Errorf("secret %s: want %d bytes, found %d", path, secretLen, len(b))
		}
		if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(path, 0o600); err != nil {
				return nil, fmt.Errorf("secret %s: tighten mode: %w", path, err)
			}
		}
		return b, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read secret: %w", err)
	}
	b = make([]byte, secretLen)
	rand.Read(b)
	// Written whole to a temp file, then linked into place: the name never
	// shows a short file (a crash mid-write would otherwise stop every later
	// start), and the link fails if another opener won the race.
	f, err := os.CreateTemp(dir, SecretFileName+".tmp*") // mode 0600
	if err != nil {
		return nil, fmt.Errorf("create secret: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, fmt.Errorf("write secret: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, fmt.Errorf("write secret: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("write secret: %w", err)
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) { // lost a race with another opener
			return LoadOrCreateSecret(dir)
		}
		return nil, fmt.Errorf("create secret: %w", err)
	}
	return b, nil
}

// codeAlphabet is Crockford's base32: no I, L, O or U, so codes read aloud
// or typed from a screen are unambiguous. 5 bits per character.
const codeAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// newCode returns n random characters from codeAlphabet, grouped by 4 (or by
// 3 when n is 6) with dashes, e.g. "7K3M-Q9XD".
func newCode(n int) string {
	raw := make([]byte, n)
	rand.Read(raw)
	group := 4
	if n == 6 {
		group = 3
	}
	var sb strings.Builder
	for i, b := range raw {
		if i > 0 && i%group == 0 {
			sb.WriteByte('-')
		}
		sb.WriteByte(codeAlphabet[b&31]) // 256 is a multiple of 32: no bias
	}
	return sb.String()
}

// normalizeCode maps user input to canonical code characters: upper case,
// separators and spaces dropped, Crockford's look-alikes folded (O->0, I/L->1),
// anything outside ASCII made a character no code has.
func normalizeCode(s string) string {
	var sb strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		switch {
		case r == '-' || r == ' ' || r == '\t' || r == '_':
			continue
		case r == 'O':
			r = '0'
		case r == 'I' || r == 'L':
			r = '1'
		case r > 0x7e:
			// Codes are ASCII. Unicode case mapping would turn some
			// letters into others or into two runes ("İ" lowers to
			// "i" and a combining dot), so a character outside ASCII is
			// one that matches nothing.
			r = '?'
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// codeHash is HMAC-SHA256(secret, purpose || 0 || normalized code).
func codeHash(secret []byte, purpose, code string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(purpose))
	m.Write([]byte{0})
	m.Write([]byte(normalizeCode(code)))
	return m.Sum(nil)
}

func NewSessionID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return "auth_" + hex.EncodeToString(b)
}

// equalHash compares two digests in constant time.
func equalHash(a, b []byte) bool { return hmac.Equal(a, b) }
