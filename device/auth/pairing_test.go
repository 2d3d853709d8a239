package auth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/internal/ratelimit"
	"github.com/adb-connector/adb-connector/internal/testkit"
	"github.com/adb-connector/adb-connector/store"
)

func TestPairingRedeem(t *testing.T) {
	t.Parallel()
	const key = "127.0.0.1:5037/R58M123ABC"
	tests := []struct {
		name    string
		serial  string
		code    func(code string) string
		advance time.Duration
		use     bool // redeem once successfully before the attempt
		want    error
	}{
		{name: "ok", serial: "R58M123ABC", code: same},
		{name: "ok full key", serial: key, code: same},
		{name: "ok lower case no dash", serial: " R58M123ABC ", code: func(c string) string { return strings.ToLower(strings.ReplaceAll(c, "-", "")) }},
		{name: "unknown serial", serial: "NOPE", code: same, want: ErrPairingFailed},
		{name: "wrong code", serial: "R58M123ABC", code: func(string) string { return "AAAA-AAAA" }, want: ErrPairingFailed},
		{name: "empty code", serial: "R58M123ABC", code: func(string) string { return "" }, want: ErrPairingFailed},
		{name: "expired", serial: "R58M123ABC", code: same, advance: 15 * time.Minute, want: ErrPairingFailed},
		{name: "used", serial: "R58M123ABC", code: same, use: true, want: ErrPairingFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			ctx := context.Background()
			code := issueCode(t, e.pairing, key)
			if tt.use {
				if _, err := e.pairing.RedeemPairing(ctx, "first", "R58M123ABC", code); err != nil {
					t.Fatal(err)
				}
				if err := e.bindings.Release(ctx, "first"); err != nil {
					t.Fatal(err)
				}
			}
			e.clock.Advance(tt.advance)
			got, err := e.pairing.RedeemPairing(ctx, "ch", tt.serial, tt.code(code))
			if !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
				t.Fatalf("RedeemPairing err = %v, want %v", err, tt.want)
			}
			if err != nil {
				if err.Error() != ErrPairingFailed.Error() {
					t.Errorf("message %q differs from the generic one", err)
				}
				if strings.Contains(err.Error(), code) || strings.Contains(err.Error(), "R58M") {
					t.Errorf("error %q leaks the code or serial", err)
				}
				return
			}
			if got != key {
				t.Errorf("device = %q, want %q", got, key)
			}
			if bd, err := e.bindings.ByChannel(ctx, "ch"); err != nil || bd.DeviceKey != key {
				t.Errorf("binding = %+v, %v", bd, err)
			}
		})
	}
}

func same(c string) string { return c }

func TestPairingCodeFormatAndStorage(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	ctx := context.Background()
	seen := map[string]bool{}
	var code string
	for range 50 {
		var err error
		code, err = e.pairing.IssuePairingCode(ctx, "e/S1", time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$`).MatchString(code) {
			t.Fatalf("code %q is not 8 unambiguous characters in two groups", code)
		}
		seen[code] = true
	}
	if len(seen) < 49 {
		t.Errorf("only %d distinct codes out of 50", len(seen))
	}
	// Only the last code works: a new code replaces the old one.
	for c := range seen {
		if c != code {
			if _, err := e.pairing.RedeemPairing(ctx, "ch", "S1", c); !errors.Is(err, ErrPairingFailed) {
				t.Fatalf("replaced code redeemed: %v", err)
			}
			break
		}
	}
	if _, err := e.pairing.IssuePairingCode(ctx, "e/S1", -time.Second); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("negative ttl: %v", err)
	}
	if _, err := e.pairing.IssuePairingCode(ctx, "e/S1", 48*time.Hour); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("ttl too long: %v", err)
	}
	// No clear code in the database files.
	e.db.Close()
	files, _ := filepath.Glob(filepath.Join(e.dir, "*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for c := range seen {
			if bytes.Contains(b, []byte(c)) || bytes.Contains(b, []byte(strings.ReplaceAll(c, "-", ""))) {
				t.Fatalf("%s holds a clear pairing code", filepath.Base(f))
			}
		}
	}
	fi, err := os.Stat(filepath.Join(e.dir, SecretFileName))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("secret file mode = %v, %v; want 0600", fi.Mode(), err)
	}
	again, err := LoadOrCreateSecret(e.dir)
	if err != nil || !bytes.Equal(again, e.secret) {
		t.Errorf("reloaded secret differs: %v", err)
	}
}

// issueCode issues a pairing code for key with the default TTL.
func issueCode(t testing.TB, p *Pairing, key string) string {
	t.Helper()
	code, err := p.IssuePairingCode(context.Background(), key, 0)
	if err != nil {
		t.Fatal(err)
	}
	return code
}

func TestPairingRateLimit(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	ctx := context.Background()
	code := issueCode(t, e.pairing, "e/S1")
	for i := range 5 {
		if _, err := e.pairing.RedeemPairing(ctx, "ch", "S1", "WRNG-CODE"); !errors.Is(err, ErrPairingFailed) {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	_, err := e.pairing.RedeemPairing(ctx, "ch", "S1", code)
	var rl *ratelimit.Error
	if !errors.As(err, &rl) || !errors.Is(err, ratelimit.ErrLimited) {
		t.Fatalf("6th attempt: %v, want rate limited", err)
	}
	if rl.RetryAfter <= 0 || rl.RetryAfter > 12*time.Second {
		t.Errorf("retry after %v, want (0, 12s]", rl.RetryAfter)
	}
	// Per serial too: another channel guessing the same serial is limited.
	if _, err := e.pairing.RedeemPairing(ctx, "other", "S1", code); !errors.Is(err, ratelimit.ErrLimited) {
		t.Fatalf("other channel, same serial: %v, want rate limited", err)
	}
	// Typing the whole "endpoint/serial" key is the same serial, not a fresh budget.
	if _, err := e.pairing.RedeemPairing(ctx, "third", "e/S1", code); !errors.Is(err, ratelimit.ErrLimited) {
		t.Fatalf("other channel, same serial as endpoint/serial: %v, want rate limited", err)
	}
	// And per channel: the same channel on another serial is limited.
	if _, err := e.pairing.RedeemPairing(ctx, "ch", "S2", code); !errors.Is(err, ratelimit.ErrLimited) {
		t.Fatalf("same channel, other serial: %v, want rate limited", err)
	}
	e.clock.Advance(rl.RetryAfter)
	if got, err := e.pairing.RedeemPairing(ctx, "ch", "S1", code); err != nil || got != "e/S1" {
		t.Fatalf("after waiting: %q, %v", got, err)
	}
}

func TestPairingDeviceInUseKeepsCode(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	ctx := context.Background()
	if err := e.bindings.Bind(ctx, "holder", "e/S1"); err != nil {
		t.Fatal(err)
	}
	code := issueCode(t, e.pairing, "e/S1")
	if _, err := e.pairing.RedeemPairing(ctx, "ch", "S1", code); !errors.Is(err, binding.ErrDeviceInUse) {
		t.Fatalf("redeem a bound device: %v, want binding.ErrDeviceInUse", err)
	}
	if err := e.bindings.Release(ctx, "holder"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.pairing.RedeemPairing(ctx, "ch", "S1", code); err != nil {
		t.Fatalf("redeem once freed: %v", err)
	}
}

func TestNormalizeCode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"abcd-efgh": "ABCDEFGH",
		"o0Il-1":    "00111",
		" k7q m2x ": "K7QM2X",
		"":          "",
	} {
		if got := normalizeCode(in); got != want {
			t.Errorf("normalizeCode(%q) = %q, want %q", in, got, want)
		}
	}
}

var codeInputCases = []string{"abcd-efgh", "o0Il-1", " k7q m2x ", "", "7K3M-Q9XD", "ünïcødé", "\x00\xff"}

// FuzzNormalizeCode: typed codes (outside input) normalise idempotently, and
// a typed code matches its issued form however it is cased or grouped.
func FuzzNormalizeCode(f *testing.F) {
	for _, c := range codeInputCases {
		f.Add(c)
	}
	secret := []byte("0123456789abcdef0123456789abcdef")
	f.Fuzz(func(t *testing.T, in string) {
		n := normalizeCode(in)
		if normalizeCode(n) != n {
			t.Fatalf("not idempotent: %q -> %q -> %q", in, n, normalizeCode(n))
		}
		if !equalHash(codeHash(secret, pairingPurpose, in), codeHash(secret, pairingPurpose, strings.ToLower(n))) {
			t.Fatalf("%q and its normal form hash differently", in)
		}
	})
}

func TestPairingCodeSurvivesRestart(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	ctx := context.Background()
	code := issueCode(t, e.pairing, "e/S1")
	e.db.Close()
	db, err := store.Open(ctx, e.dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	secret, err := LoadOrCreateSecret(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	p := NewPairing(binding.New(db, binding.Options{Now: e.clock.Now}), secret, PairingOptions{Now: e.clock.Now})
	if got, err := p.RedeemPairing(ctx, "ch", "S1", code); err != nil || got != "e/S1" {
		t.Fatalf("redeem after restart = %q, %v", got, err)
	}
}

func TestPairingRaceOneWinner(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	ctx := context.Background()
	const rounds, racers = 20, 5 // 5: the per-serial burst, so no attempt is rate limited
	for r := range rounds {
		serial := fmt.Sprintf("S%d", r)
		code := issueCode(t, e.pairing, "e/"+serial)
		var wg sync.WaitGroup
		errs := make([]error, racers)
		for g := range racers {
			wg.Go(func() { _, errs[g] = e.pairing.RedeemPairing(ctx, fmt.Sprintf("c%d-%d", r, g), serial, code) })
		}
		wg.Wait()
		testkit.OneWinner(t, fmt.Sprintf("round %d: channels redeeming one code", r), errs, ErrPairingFailed)
	}
}

func TestLoadOrCreateSecretConcurrentAndNoLeftovers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const n = 8
	got := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = LoadOrCreateSecret(dir)
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !bytes.Equal(got[i], got[0]) {
			t.Fatalf("opener %d got another secret", i)
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != SecretFileName {
		t.Fatalf("data dir holds %v, want only %s", ents, SecretFileName)
	}
	fi, err := os.Stat(filepath.Join(dir, SecretFileName))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("secret mode %v, %v; want 0600", fi.Mode().Perm(), err)
	}
}

func TestLoadOrCreateSecretRefusesShortFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, SecretFileName), []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateSecret(dir); err == nil {
		t.Fatal("a short secret file was accepted")
	}
}
