package connector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var decodeCases = []struct {
	name string
	in   string
	ok   bool
}{
	{"minimal", `{"schema":"xagent.connector.packet/v1","packet_id":"p1","type":"ping"}`, true},
	{"full", `{"schema":"xagent.connector.packet/v1","packet_id":"p1","request_id":"r","reply_to":"x","connector_channel_id":"cch_1","type":"tool.invoke","time":1790000000000,"payload":{"a":1},"error":{"code":"c"}}`, true},
	{"unknown fields", `{"schema":"xagent.connector.packet/v1","packet_id":"p1","type":"ping","extra":[1]}`, true},
	{"not json", `{"schema":`, false},
	{"array", `[]`, false},
	{"wrong schema", `{"schema":"xagent.connector.packet/v2","packet_id":"p1","type":"ping"}`, false},
	{"no packet id", `{"schema":"xagent.connector.packet/v1","type":"ping"}`, false},
	{"no type", `{"schema":"xagent.connector.packet/v1","packet_id":"p1"}`, false},
	{"numeric packet id", `{"schema":"xagent.connector.packet/v1","packet_id":7,"type":"ping"}`, false},
	{"float time", `{"schema":"xagent.connector.packet/v1","packet_id":"p1","type":"ping","time":1.5}`, false},
	{"negative time", `{"schema":"xagent.connector.packet/v1","packet_id":"p1","type":"ping","time":-1}`, false},
	{"payload array", `{"schema":"xagent.connector.packet/v1","packet_id":"p1","type":"ping","payload":[]}`, false},
	{"payload null", `{"schema":"xagent.connector.packet/v1","packet_id":"p1","type":"ping","payload":null}`, false},
	{"error without code", `{"schema":"xagent.connector.packet/v1","packet_id":"p1","type":"error","error":{"message":"m"}}`, false},
}

func TestDecodePacket(t *testing.T) {
	t.Parallel()
	for _, tc := range decodeCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := DecodePacket([]byte(tc.in))
			if tc.ok != (err == nil) {
				t.Fatalf("DecodePacket ok=%v, err=%v", tc.ok, err)
			}
			if err != nil && !errors.Is(err, ErrInvalidPacket) {
				t.Errorf("error %v does not wrap ErrInvalidPacket", err)
			}
			if err == nil && p.Schema != PacketSchema {
				t.Errorf("schema = %q", p.Schema)
			}
		})
	}
}

func TestDecodePacketRoundTrip(t *testing.T) {
	t.Parallel()
	in := Packet{Schema: PacketSchema, PacketID: "p", RequestID: "r", ReplyTo: "q", ChannelID: "cch_1",
		Type: "tool.invoke", Time: 42, Payload: json.RawMessage(`{"tool_id":"t"}`), Error: &Error{Code: "c", Message: "m"}}
	b, _ := json.Marshal(in)
	out, err := DecodePacket(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, *out); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func FuzzDecodePacket(f *testing.F) {
	for _, tc := range decodeCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodePacket(b)
		if err != nil {
			if p != nil || !errors.Is(err, ErrInvalidPacket) {
				t.Fatalf("bad failure: %v %v", p, err)
			}
			return
		}
		if p.Schema != PacketSchema || p.PacketID == "" || p.Type == "" || p.Time < 0 {
			t.Fatalf("accepted an invalid envelope: %+v", p)
		}
		// What we accept re-encodes and decodes to the same packet.
		again, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodePacket(again); err != nil {
			t.Fatalf("re-encoded packet rejected: %v", err)
		}
	})
}

func TestMapError(t *testing.T) {
	t.Parallel()
	offline := &Error{Code: "device_offline", Message: "the device is offline"}
	cases := []struct {
		name     string
		err      error
		fallback string
		want     *Error
	}{
		{"nil", nil, CodeToolInvokeFailed, nil},
		{"typed", offline, CodeToolInvokeFailed, offline},
		{"wrapped typed", fmt.Errorf("tap: %w", offline), CodeToolInvokeFailed, offline},
		{"deadline", fmt.Errorf("shell: %w", context.DeadlineExceeded), CodeToolInvokeFailed, &Error{Code: CodeToolTimeout, Message: genericTimeoutMessage}},
		{"canceled", context.Canceled, CodeToolInvokeFailed, &Error{Code: CodeInternal, Message: genericCanceledMessage}},
		{"unknown tool error hides detail", errors.New("open /secret/path: key=hunter2"), CodeToolInvokeFailed, &Error{Code: CodeToolInvokeFailed, Message: genericToolMessage}},
		{"unknown other error", errors.New("db locked"), CodeInternal, &Error{Code: CodeInternal, Message: genericInternalMessage}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, MapError(tc.err, tc.fallback)); diff != "" {
				t.Errorf("MapError (-want +got):\n%s", diff)
			}
		})
	}
	if !errors.Is(fmt.Errorf("x: %w", offline), &Error{Code: "device_offline"}) {
		t.Error("errors.Is by code failed")
	}
}
