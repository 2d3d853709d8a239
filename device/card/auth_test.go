package card

import (
	"errors"
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/connector"
)

// TestDecode: the auth.* payloads are refused with their wire code before
// any work (the Profile's tests drive the flows; FuzzDecodeAuth there
// fuzzes these decoders).
func TestDecode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		payload, code string
	}{
		{`{"flow_id":"device_request"}`, ""},
		{`{"flow_id":"device_pairing","input":{"serial":"S1","pairing_code":"7K3M-Q9XD"}}`, ""},
		{`[]`, connector.CodeInvalidArguments},
		{`{"flow_id":"nope"}`, connector.CodeInvalidArguments},
		{`{"flow_id":"device_pairing","input":{"serial":"S1"}}`, connector.CodeInvalidArguments},
		{`{"flow_id":"device_pairing","input":{"serial":"` + strings.Repeat("S", 300) + `","pairing_code":"C"}}`, connector.CodeInvalidArguments},
	} {
		_, _, err := DecodeStart([]byte(tc.payload))
		if got := code(err); got != tc.code {
			t.Errorf("%.60s: code %q (%v), want %q", tc.payload, got, err, tc.code)
		}
	}
	if _, err := DecodeSession([]byte(`{"auth_session_id":"` + strings.Repeat("a", MaxSessionIDLen+1) + `"}`)); code(err) != connector.CodeAuthSessionNotFound {
		t.Errorf("long session id: %v", err)
	}
}

func code(err error) string {
	if err == nil {
		return ""
	}
	var ce *connector.Error
	if errors.As(err, &ce) {
		return ce.Code
	}
	return "?"
}
