package device

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/auth"
	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/device/card"
	"github.com/adb-connector/adb-connector/device/descriptor"
)

const testSerial = "R58M123ABC"

var testKey = adb.DeviceKey("127.0.0.1:1", testSerial)

func chn(id string) connector.Channel { return connector.Channel{ID: id} }

func raw(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func sessionReq(session string, refresh bool) json.RawMessage {
	return raw(map[string]any{"flow_id": auth.FlowRequest, "auth_session_id": session, "refresh": refresh})
}

var startRequest = raw(map[string]any{"flow_id": auth.FlowRequest})

func wireCode(err error) string {
	var ce *connector.Error
	if errors.As(err, &ce) {
		return ce.Code
	}
	return ""
}

// ackOf returns an auth reply's payload as JSON and as an authAck.
func authReplyAck(t *testing.T, r connector.AuthReply) (authAck, string) {
	t.Helper()
	a, ok := r.Payload.(authAck)
	if !ok {
		t.Fatalf("payload %T, want authAck", r.Payload)
	}
	b, _ := json.Marshal(a)
	return a, string(b)
}

func TestCardConfigValid(t *testing.T) {
	t.Parallel()
	reg := connector.NewRegistry()
	err := reg.Register(connector.Tool{ID: "android_device_status", Profile: connector.ProfileDeviceV1, Title: "Status",
		InputSchema: map[string]any{"type": "object"},
		Handler:     func(_ context.Context, _ connector.ToolCall) (any, error) { return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	built := connector.BuildCard(card.CardConfig(), reg)
	if err := connector.ValidateCard(&built); err != nil {
		t.Fatalf("ValidateCard: %v", err)
	}
	if built.CardID != "device.adb" || built.Connector.Name != "ADB Device Connector" || built.Connector.Version != card.ConnectorVersion ||
		built.Supports.UserChannelMode != "multiple" || built.Security.TrustLevel != "local" {
		t.Errorf("card identity: %+v", built)
	}
	var ids []string
	for _, f := range built.AuthFlows {
		ids = append(ids, f.ID+"/"+f.Type)
	}
	if diff := cmp.Diff([]string{"device_pairing/form", "device_request/qr_login"}, ids); diff != "" {
		t.Errorf("auth flows (-want +got):\n%s", diff)
	}
	code := built.AuthFlows[0].Fields[1]
	if code.Name != "pairing_code" || code.InputType != "password" || !code.Secret {
		t.Errorf("pairing_code field: %+v", code)
	}
}

func TestAuthStartInvalid(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, 0, nil)
	for _, tc := range authStartCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.svc.AuthStart(t.Context(), chn("cch_a"), json.RawMessage(tc.payload))
			if got := wireCode(err); got != tc.code {
				t.Errorf("code = %q (%v), want %q", got, err, tc.code)
			}
		})
	}
	_, err := e.svc.AuthStatus(t.Context(), chn("cch_a"), sessionReq("auth_nope", false))
	if wireCode(err) != connector.CodeAuthSessionNotFound {
		t.Errorf("status of an unknown session: %v", err)
	}
}

var authStartCases = []struct {
	name, payload, code string
}{
	{"not an object", `[1]`, "invalid_arguments"},
	{"empty", `{}`, "invalid_arguments"},
	{"unknown flow", `{"flow_id":"wechat_qr_login"}`, "invalid_arguments"},
	{"pairing without input", `{"flow_id":"device_pairing"}`, "invalid_arguments"},
	{"pairing without code", `{"flow_id":"device_pairing","input":{"serial":"X"}}`, "invalid_arguments"},
	{"pairing code not a string", `{"flow_id":"device_pairing","input":{"serial":"X","pairing_code":1234}}`, "invalid_arguments"},
	{"serial too long", `{"flow_id":"device_pairing","input":{"serial":"` + strings.Repeat("S", 300) + `","pairing_code":"C"}}`, "invalid_arguments"},
}

// TestPairing: wrong code and unknown serial fail identically; the right
// code authenticates; a bound channel is authenticated at once.
func TestPairing(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, 0, nil)
	code := issueCode(t, e.svc.pairing, testKey)
	e.open(t, "cch_a")
	var seen []string // JSON of every ack
	fail := func(serial, code string) authAck {
		t.Helper()
		r, err := e.svc.AuthStart(t.Context(), chn("cch_b"), startPairing(serial, code))
		if err != nil {
			t.Fatal(err)
		}
		a, js := authReplyAck(t, r)
		seen = append(seen, js)
		if a.Status != "failed" || r.WithDescriptor || a.SessionID == "" {
			t.Errorf("failed pairing: %s", js)
		}
		a.SessionID = ""
		return a
	}
	wrongCode := fail(testSerial, "AAAA-AAAA")
	unknownSerial := fail("NOSUCHSERIAL", code)
	if diff := cmp.Diff(wrongCode, unknownSerial); diff != "" {
		t.Errorf("wrong code and unknown serial differ (-wrong +unknown):\n%s", diff)
	}
	if wrongCode.Message != auth.ErrPairingFailed.Error() {
		t.Errorf("message %q", wrongCode.Message)
	}

	m := e.push.mark()
	r, err := e.svc.AuthStart(t.Context(), chn("cch_a"), startPairing(testSerial, strings.ToLower(code)))
	if err != nil {
		t.Fatal(err)
	}
	a, js := authReplyAck(t, r)
	seen = append(seen, js)
	if a.Status != "authenticated" || !r.WithDescriptor || a.ChannelID != "cch_a" || a.FlowID != auth.FlowPairing {
		t.Fatalf("pairing: %s", js)
	}
	e.push.waitPush(t, "cch_a", "offline", m, pushDeadline) // bound, device not seen by adb
	st, _ := e.svc.AuthStatus(t.Context(), chn("cch_a"), sessionReq(a.SessionID, false))
	if got, _ := authReplyAck(t, st); got.Status != "authenticated" || !st.WithDescriptor {
		t.Errorf("auth.status of the pairing session: %+v", got)
	}

	// Already bound: authenticated at once, whatever the flow.
	for _, p := range []json.RawMessage{startRequest, startPairing("x", "y")} {
		r, err := e.svc.AuthStart(t.Context(), chn("cch_a"), p)
		if err != nil {
			t.Fatal(err)
		}
		if a, js := authReplyAck(t, r); a.Status != "authenticated" || !r.WithDescriptor {
			t.Errorf("auth.start on a bound channel: %s", js)
		}
	}
	// The code is used up.
	fail(testSerial, code)
	for _, js := range seen {
		if strings.Contains(js, code) || strings.Contains(js, testSerial) || strings.Contains(js, strings.ToLower(code)) {
			t.Errorf("ack holds a secret or the serial: %s", js)
		}
	}
}

func TestPairingRateLimited(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, 0, nil)
	try := func() error {
		_, err := e.svc.AuthStart(t.Context(), chn("cch_a"), startPairing(testSerial, "AAAA-AAAA"))
		return err
	}
	for i := range 5 {
		if err := try(); err != nil {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	err := try()
	var ce *connector.Error
	if !errors.As(err, &ce) || ce.Code != "rate_limited" || !strings.Contains(ce.Message, "retry after 12 s") {
		t.Fatalf("6th attempt: %v, want rate_limited with a retry hint", err)
	}
	e.clock.Advance(time.Minute)
	if err := try(); err != nil {
		t.Errorf("after a minute: %v", err)
	}
}

// TestRequestExpiryAndRefresh drives device_request with the injected clock.
func TestRequestExpiryAndRefresh(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, 0, nil)
	r, err := e.svc.AuthStart(t.Context(), chn("cch_a"), startRequest)
	if err != nil {
		t.Fatal(err)
	}
	a, js := authReplyAck(t, r)
	if a.Status != "pending" || a.QRCodeText == "" || a.PollIntervalMillis != 2000 || r.WithDescriptor ||
		a.ExpiresAt != e.clock.Now().Add(auth.DefaultRequestTTL).UnixMilli() ||
		!strings.Contains(a.Message, "adb-connector approve "+a.QRCodeText) {
		t.Fatalf("auth.start: %s", js)
	}
	first := a.QRCodeText
	st, err := e.svc.AuthStatus(t.Context(), chn("cch_a"), sessionReq(a.SessionID, false))
	if got, _ := authReplyAck(t, st); err != nil || got.Status != "pending" || got.QRCodeText != first {
		t.Errorf("auth.status: %+v %v", got, err)
	}
	e.clock.Advance(auth.DefaultRequestTTL)
	st, _ = e.svc.AuthStatus(t.Context(), chn("cch_a"), sessionReq(a.SessionID, false))
	if got, _ := authReplyAck(t, st); got.Status != "expired" {
		t.Errorf("after the TTL: %+v", got)
	}
	if _, err := e.op.Approve(t.Context(), first, "", false); !errors.Is(err, auth.ErrInvalidRequestCode) {
		t.Errorf("approving an expired code: %v", err)
	}
	st, _ = e.svc.AuthStatus(t.Context(), chn("cch_a"), sessionReq(a.SessionID, true))
	got, _ := authReplyAck(t, st)
	if got.Status != "pending" || got.QRCodeText == "" || got.QRCodeText == first ||
		got.ExpiresAt != e.clock.Now().Add(auth.DefaultRequestTTL).UnixMilli() {
		t.Errorf("refresh: %+v", got)
	}
	// Bound meanwhile through device_pairing: the poll ends authenticated.
	code := issueCode(t, e.svc.pairing, testKey)
	if _, err := e.svc.AuthStart(t.Context(), chn("cch_a"), startPairing(testSerial, code)); err != nil {
		t.Fatal(err)
	}
	st, _ = e.svc.AuthStatus(t.Context(), chn("cch_a"), sessionReq(a.SessionID, false))
	if got, _ := authReplyAck(t, st); got.Status != "authenticated" || !st.WithDescriptor {
		t.Errorf("poll after pairing: %+v", got)
	}
	// Other channels cannot see the session.
	if _, err := e.svc.AuthStatus(t.Context(), chn("cch_b"), sessionReq(a.SessionID, false)); wireCode(err) != "auth_session_not_found" {
		t.Errorf("session of another channel: %v", err)
	}
}

func TestAuthCancel(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, 0, nil)
	cancel := func(ch, session string) cancelAck {
		t.Helper()
		r, err := e.svc.AuthCancel(t.Context(), chn(ch), raw(map[string]string{"auth_session_id": session}))
		if err != nil {
			t.Fatal(err)
		}
		return r.Payload.(cancelAck)
	}
	r, err := e.svc.AuthStart(t.Context(), chn("cch_a"), startRequest)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := authReplyAck(t, r)
	if got := cancel("cch_b", a.SessionID); got.Status != "not_found" {
		t.Errorf("cancel from another channel: %+v", got)
	}
	want := cancelAck{ChannelID: "cch_a", SessionID: a.SessionID, Status: "canceled", AuthStatus: "unauthenticated", Message: msgAuthCanceled}
	if diff := cmp.Diff(want, cancel("cch_a", a.SessionID)); diff != "" {
		t.Errorf("cancel (-want +got):\n%s", diff)
	}
	if got := cancel("cch_a", a.SessionID); got.Status != "not_found" {
		t.Errorf("second cancel: %+v", got)
	}
	if _, err := e.svc.AuthStatus(t.Context(), chn("cch_a"), sessionReq(a.SessionID, false)); wireCode(err) != "auth_session_not_found" {
		t.Errorf("status of a canceled session: %v", err)
	}
	if got := cancel("cch_a", strings.Repeat("x", 500)); got.Status != "not_found" {
		t.Errorf("cancel of an oversized id: %+v", got)
	}

	code := issueCode(t, e.svc.pairing, testKey)
	r, err = e.svc.AuthStart(t.Context(), chn("cch_a"), startPairing(testSerial, code))
	if err != nil {
		t.Fatal(err)
	}
	a, _ = authReplyAck(t, r)
	c, err := e.svc.AuthCancel(t.Context(), chn("cch_a"), raw(map[string]string{"auth_session_id": a.SessionID}))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Payload.(cancelAck); got.Status != "ignored" || got.AuthStatus != "authenticated" || !c.WithDescriptor {
		t.Errorf("cancel after authentication: %+v", c)
	}
	if _, _, err := e.svc.DeviceFor(t.Context(), "cch_a"); errors.Is(err, binding.ErrNotBound) {
		t.Error("cancel released the binding")
	}
}

// TestRequestApproved: the operator approves the request code, the
// channel gets the only free device, a connected push and an
// authenticated auth.status.
func TestRequestApproved(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, 1, nil)
	e.waitPresence(t, e.key(0), descriptor.PresenceOnline)
	e.open(t, "cch_a")
	r, err := e.svc.AuthStart(t.Context(), chn("cch_a"), startRequest)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := authReplyAck(t, r)
	m := e.push.mark()
	key, err := e.op.Approve(t.Context(), a.QRCodeText, "", false)
	if err != nil || key != e.key(0) {
		t.Fatalf("approve: %q %v", key, err)
	}
	e.push.waitPush(t, "cch_a", "connected", m, pushDeadline)
	st, err := e.svc.AuthStatus(t.Context(), chn("cch_a"), sessionReq(a.SessionID, false))
	if got, js := authReplyAck(t, st); err != nil || got.Status != "authenticated" || !st.WithDescriptor || got.QRCodeText != "" {
		t.Errorf("auth.status after approval: %s %v", js, err)
	}
	// A second channel's request cannot take the bound device.
	r, _ = e.svc.AuthStart(t.Context(), chn("cch_b"), startRequest)
	b, _ := authReplyAck(t, r)
	if _, err := e.op.Approve(t.Context(), b.QRCodeText, e.adbEnv.Devices[0].Serial(), false); !errors.Is(err, binding.ErrDeviceInUse) {
		t.Errorf("approving a bound device: %v", err)
	}
	if _, err := e.op.Approve(t.Context(), b.QRCodeText, "", false); !errors.Is(err, auth.ErrNoFreeDevice) {
		t.Errorf("approving with no free device: %v", err)
	}
}

func FuzzDecodeAuth(f *testing.F) {
	for _, tc := range authStartCases {
		f.Add([]byte(tc.payload))
	}
	f.Add([]byte(startPairing(testSerial, "7K3M-Q9XD")))
	f.Add([]byte(startRequest))
	f.Add([]byte(sessionReq("auth_0123", true)))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, in, err := card.DecodeStart(b)
		if err == nil {
			if p.FlowID != auth.FlowPairing && p.FlowID != auth.FlowRequest {
				t.Errorf("accepted flow %q", p.FlowID)
			}
			if p.FlowID == auth.FlowPairing && (in.Serial == "" || in.PairingCode == "" || len(in.Serial) > admin.MaxSerialLen || len(in.PairingCode) > admin.MaxCodeLen) {
				t.Errorf("accepted pairing input %+v", in)
			}
		} else if wireCode(err) == "" {
			t.Errorf("error without a wire code: %v", err)
		}
		s, err := card.DecodeSession(b)
		if err == nil && len(s.SessionID) > card.MaxSessionIDLen {
			t.Errorf("accepted session id of %d bytes", len(s.SessionID))
		}
	})
}
