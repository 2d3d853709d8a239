package card

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/auth"
)

// The auth.* payloads of the Card's flows (protocol 3.0 §8.7-§8.11),
// decoded and checked before any work; every refusal carries its wire
// code.

// MaxSessionIDLen bounds auth_session_id: longer is no such session.
const MaxSessionIDLen = 128

// MsgNoSession is the message of an unknown auth session.
const MsgNoSession = "No such authentication session"

// StartPayload is auth.start's payload (§8.7).
type StartPayload struct {
	FlowID string          `json:"flow_id"`
	Input  json.RawMessage `json:"input"`
}

// PairingInput is device_pairing's form input: the fields AuthFlows declares.
type PairingInput struct {
	Serial      string `json:"serial"`
	PairingCode string `json:"pairing_code"`
}

// SessionPayload is auth.status's and auth.cancel's payload (§8.9, §8.11).
type SessionPayload struct {
	FlowID    string `json:"flow_id"`
	SessionID string `json:"auth_session_id"`
	Refresh   bool   `json:"refresh"`
}

func invalidAuth(msg string) error {
	return connector.NewError(connector.CodeInvalidArguments, msg)
}

// decodeObject unmarshals an optional JSON object payload; null or empty is {}.
func decodeObject(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	if raw[0] != '{' {
		return errors.New("not a JSON object")
	}
	return json.Unmarshal(raw, v)
}

// DecodeStart parses auth.start: a known flow_id and, for
// device_pairing, the form fields.
func DecodeStart(raw json.RawMessage) (StartPayload, PairingInput, error) {
	var p StartPayload
	if err := decodeObject(raw, &p); err != nil {
		return p, PairingInput{}, invalidAuth("auth.start payload must be an object with flow_id and input")
	}
	var in PairingInput
	switch p.FlowID {
	case auth.FlowRequest:
	case auth.FlowPairing:
		if err := decodeObject(p.Input, &in); err != nil {
			return p, in, invalidAuth("input must be an object with string fields serial and pairing_code")
		}
		if in.Serial == "" || in.PairingCode == "" {
			return p, in, invalidAuth("serial and pairing_code are required")
		}
		if len(in.Serial) > admin.MaxSerialLen || len(in.PairingCode) > admin.MaxCodeLen {
			return p, in, invalidAuth("serial or pairing_code is too long")
		}
	default:
		return p, in, invalidAuth("unknown flow_id: use device_pairing or device_request")
	}
	return p, in, nil
}

// DecodeSession parses auth.status / auth.cancel.
func DecodeSession(raw json.RawMessage) (SessionPayload, error) {
	var p SessionPayload
	if err := decodeObject(raw, &p); err != nil {
		return p, invalidAuth("payload must be an object with auth_session_id")
	}
	if len(p.SessionID) > MaxSessionIDLen {
		return p, connector.NewError(connector.CodeAuthSessionNotFound, MsgNoSession)
	}
	return p, nil
}
