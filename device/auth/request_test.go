package auth

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/internal/testkit"
)

func TestRequestApproveWithSerial(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	ctx := context.Background()
	e.setDevices(dev("e1", "S1", "device"), dev("e1", "S2", "device"))
	s, err := e.requests.StartRequest(ctx, "ch")
	if err != nil {
		t.Fatal(err)
	}
	if s.Status != Pending || !regexp.MustCompile(`^auth_[0-9a-f]{32}$`).MatchString(s.ID) ||
		!regexp.MustCompile(`^[0-9A-Z]{3}-[0-9A-Z]{3}$`).MatchString(s.Code) || s.PollInterval != DefaultPollInterval ||
		!s.ExpiresAt.Equal(e.clock.Now().Add(DefaultRequestTTL)) {
		t.Fatalf("StartRequest = %+v", s)
	}
	st, err := e.requests.Status(ctx, "ch", s.ID, false)
	if err != nil || st.Status != Pending || st.Code != s.Code {
		t.Fatalf("Status = %+v, %v; want pending with the same code", st, err)
	}
	if _, err := e.requests.Status(ctx, "other", s.ID, false); !errors.Is(err, ErrSessionNotFound) {
		t.Fatalf("Status from another channel: %v", err)
	}
	a, err := e.requests.Approve(ctx, s.Code, "S2")
	if err != nil || a != (Approval{ChannelID: "ch", DeviceKey: "e1/S2"}) {
		t.Fatalf("Approve = %+v, %v", a, err)
	}
	st, err = e.requests.Status(ctx, "ch", s.ID, false)
	if err != nil || st.Status != Authenticated || st.DeviceKey != "e1/S2" || st.Code != "" {
		t.Fatalf("Status after approve = %+v, %v", st, err)
	}
	if _, err := e.requests.Approve(ctx, s.Code, "S1"); !errors.Is(err, ErrInvalidRequestCode) {
		t.Fatalf("approve a used code: %v", err)
	}
	if got, err := e.requests.Cancel(ctx, "ch", s.ID); err != nil || got != CancelIgnored {
		t.Fatalf("Cancel authenticated = %q, %v; want ignored", got, err)
	}
	// Starting again on a bound channel answers authenticated at once.
	s2, err := e.requests.StartRequest(ctx, "ch")
	if err != nil || s2.Status != Authenticated || s2.DeviceKey != "e1/S2" || s2.Code != "" {
		t.Fatalf("StartRequest on bound channel = %+v, %v", s2, err)
	}
	// Operator unbind: the session reports unauthenticated.
	if _, err := e.bindings.Revoke(ctx, "e1/S2"); err != nil {
		t.Fatal(err)
	}
	if st, err := e.requests.Status(ctx, "ch", s.ID, false); err != nil || st.Status != Unauthenticated {
		t.Fatalf("Status after revoke = %+v, %v", st, err)
	}
	// Logout removes the channel's sessions.
	if err := e.bindings.Release(ctx, "ch"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.requests.Status(ctx, "ch", s.ID, false); !errors.Is(err, ErrSessionNotFound) {
		t.Fatalf("Status after release: %v", err)
	}
}

func TestRequestExpireRefreshCancel(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	ctx := context.Background()
	e.setDevices(dev("e1", "S1", "device"))
	s, err := e.requests.StartRequest(ctx, "ch")
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(DefaultRequestTTL)
	st, err := e.requests.Status(ctx, "ch", s.ID, false)
	if err != nil || st.Status != Expired {
		t.Fatalf("Status after TTL = %+v, %v; want expired", st, err)
	}
	if _, err := e.requests.Approve(ctx, s.Code, ""); !errors.Is(err, ErrInvalidRequestCode) {
		t.Fatalf("approve an expired code: %v", err)
	}
	st, err = e.requests.Status(ctx, "ch", s.ID, true)
	if err != nil || st.Status != Pending || st.Code == "" || st.Code == s.Code ||
		!st.ExpiresAt.Equal(e.clock.Now().Add(DefaultRequestTTL)) {
		t.Fatalf("refresh = %+v, %v; want pending with a new code and expiry", st, err)
	}
	if _, err := e.requests.Approve(ctx, s.Code, ""); !errors.Is(err, ErrInvalidRequestCode) {
		t.Fatalf("approve the replaced code: %v", err)
	}
	if got, err := e.requests.Cancel(ctx, "ch", s.ID); err != nil || got != CancelCanceled {
		t.Fatalf("Cancel = %q, %v", got, err)
	}
	if got, err := e.requests.Cancel(ctx, "ch", s.ID); err != nil || got != CancelNotFound {
		t.Fatalf("Cancel again = %q, %v", got, err)
	}
	if _, err := e.requests.Approve(ctx, st.Code, ""); !errors.Is(err, ErrInvalidRequestCode) {
		t.Fatalf("approve a canceled code: %v", err)
	}
	if _, err := e.bindings.ByChannel(ctx, "ch"); !errors.Is(err, binding.ErrNotBound) {
		t.Fatalf("canceled channel is bound: %v", err)
	}
}

func TestRequestApproveAnyFree(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		devices []DeviceInfo
		bound   []string // device keys bound to other channels first
		serial  string
		want    string
		wantErr error
	}{
		{"first free online", []DeviceInfo{dev("e", "OFF", "offline"), dev("e", "A", "device"), dev("e", "B", "device")}, []string{"e/A"}, "", "e/B", nil},
		{"none free", []DeviceInfo{dev("e", "A", "device"), dev("e", "U", "unauthorized")}, []string{"e/A"}, "", "", ErrNoFreeDevice},
		{"no devices", nil, nil, "", "", ErrNoFreeDevice},
		{"serial in use", []DeviceInfo{dev("e", "A", "device")}, []string{"e/A"}, "A", "", binding.ErrDeviceInUse},
		{"unknown serial", []DeviceInfo{dev("e", "A", "device")}, nil, "Z", "", ErrUnknownDevice},
		{"ambiguous serial", []DeviceInfo{dev("e1", "A", "device"), dev("e2", "A", "device")}, nil, "A", "", ErrAmbiguousSerial},
		{"full key disambiguates", []DeviceInfo{dev("e1", "A", "device"), dev("e2", "A", "device")}, nil, "e2/A", "e2/A", nil},
		{"explicit serial may be offline", []DeviceInfo{dev("e", "A", "offline")}, nil, "A", "e/A", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			ctx := context.Background()
			e.setDevices(tt.devices...)
			for i, k := range tt.bound {
				if err := e.bindings.Bind(ctx, fmt.Sprintf("other%d", i), k); err != nil {
					t.Fatal(err)
				}
			}
			s, err := e.requests.StartRequest(ctx, "ch")
			if err != nil {
				t.Fatal(err)
			}
			a, err := e.requests.Approve(ctx, s.Code, tt.serial)
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Fatalf("Approve err = %v, want %v", err, tt.wantErr)
			}
			if a.DeviceKey != tt.want {
				t.Errorf("bound %q, want %q", a.DeviceKey, tt.want)
			}
			if err != nil { // the session stays pending and usable
				if st, err := e.requests.Status(ctx, "ch", s.ID, false); err != nil || st.Status != Pending {
					t.Errorf("after failed approve: %+v, %v", st, err)
				}
			}
		})
	}
}

func TestRequestApproveRace(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	ctx := context.Background()
	const rounds, racers = 15, 6
	for r := range rounds {
		serial := fmt.Sprintf("R%d", r)
		e.setDevices(dev("e", serial, "device"))
		codes := make([]string, racers)
		for g := range racers {
			s, err := e.requests.StartRequest(ctx, fmt.Sprintf("c%d-%d", r, g))
			if err != nil {
				t.Fatal(err)
			}
			codes[g] = s.Code
		}
		var wg sync.WaitGroup
		errs := make([]error, racers)
		for g := range racers {
			wg.Go(func() { _, errs[g] = e.requests.Approve(ctx, codes[g], serial) })
		}
		wg.Wait()
		testkit.OneWinner(t, fmt.Sprintf("round %d: approvals racing for one device", r), errs, binding.ErrDeviceInUse)
	}
}

func TestRequestUnknownSession(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	ctx := context.Background()
	if _, err := e.requests.Status(ctx, "ch", "auth_nope", true); !errors.Is(err, ErrSessionNotFound) {
		t.Fatalf("Status unknown: %v", err)
	}
	if got, err := e.requests.Cancel(ctx, "ch", "auth_nope"); err != nil || got != CancelNotFound {
		t.Fatalf("Cancel unknown = %q, %v", got, err)
	}
	if _, err := e.requests.StartRequest(ctx, ""); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("StartRequest empty channel: %v", err)
	}
}

func TestAuthSessionMessage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		s    Session
		want string
	}{
		{Session{Status: Pending, Code: "K7Q-M2X"}, "K7Q-M2X"},
		{Session{Status: Pending}, "Refresh"},
		{Session{Status: Authenticated, DeviceKey: "127.0.0.1:5037/SECRETSERIAL"}, "bound"},
		{Session{Status: Expired}, "expired"},
		{Session{Status: Unauthenticated}, "unbound"},
	} {
		got := tt.s.Message()
		if !strings.Contains(got, tt.want) || strings.Contains(got, "SECRETSERIAL") || strings.Contains(got, "127.0.0.1") {
			t.Errorf("Message(%+v) = %q, want it to contain %q and no device key", tt.s, got, tt.want)
		}
	}
}

// TestRequestPending: the operator's list holds the pending sessions with
// their codes, oldest first, and drops approved and expired ones.
func TestRequestPending(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	ctx := context.Background()
	e.setDevices(dev("e1", "S1", "device"))
	if got, err := e.requests.Pending(ctx); err != nil || len(got) != 0 {
		t.Fatalf("Pending with none = %+v, %v", got, err)
	}
	a, err := e.requests.StartRequest(ctx, "ch-a")
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Second)
	b, err := e.requests.StartRequest(ctx, "ch-b")
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.requests.Pending(ctx)
	if err != nil || len(got) != 2 || got[0].ID != a.ID || got[0].Code != a.Code || got[0].ChannelID != "ch-a" ||
		got[1].ID != b.ID || got[1].Code != b.Code || got[0].Status != Pending || !got[1].ExpiresAt.Equal(b.ExpiresAt) {
		t.Fatalf("Pending = %+v, %v; want a then b", got, err)
	}
	if _, err := e.requests.Approve(ctx, a.Code, "S1"); err != nil {
		t.Fatal(err)
	}
	if got, err := e.requests.Pending(ctx); err != nil || len(got) != 1 || got[0].ID != b.ID {
		t.Fatalf("Pending after approving a = %+v, %v", got, err)
	}
	e.clock.Advance(DefaultRequestTTL)
	if got, err := e.requests.Pending(ctx); err != nil || len(got) != 0 {
		t.Fatalf("Pending after expiry = %+v, %v", got, err)
	}
}
