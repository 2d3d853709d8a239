package connector

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"
)

// Protocol constants (§1).
const (
	ProtocolVersion  = "3.0"
	CardSchema       = "xagent.connector/v1"
	DescriptorSchema = "xagent.connection/v2"
	PacketSchema     = "xagent.connector.packet/v1"
	Subprotocol      = "xagent.connector.packet.v1"
	ProfileDeviceV1  = "xagent.device.v1"
	ProfileIMV1      = "xagent.im.v1"
	ProfileIMV2      = "xagent.im.v2"
	MaxPacketBytes   = 1 << 20
	// MaxIDBytes bounds every id a peer sends that is stored or echoed:
	// envelope packet_id, request_id, reply_to, connector_channel_id and
	// type, hello's connector_id, tool.invoke's tool_id and context ids.
	// Longer is invalid_packet, so a peer cannot grow the database or the
	// acks with megabyte ids.
	MaxIDBytes        = 256
	channelIDPrefix   = "cch_"
	connectorIDPrefix = "conn_"
)

// Packet types (§8).
const (
	TypeHello             = "connector.hello"
	TypeHelloAck          = "connector.hello.ack"
	TypeChannelOpen       = "channel.open"
	TypeChannelOpenAck    = "channel.open.ack"
	TypeChannelClose      = "channel.close"
	TypeChannelCloseAck   = "channel.close.ack"
	TypeAuthStart         = "auth.start"
	TypeAuthStartAck      = "auth.start.ack"
	TypeAuthStatus        = "auth.status"
	TypeAuthStatusAck     = "auth.status.ack"
	TypeAuthCancel        = "auth.cancel"
	TypeAuthCancelAck     = "auth.cancel.ack"
	TypeAuthLogout        = "auth.logout"
	TypeAuthLogoutAck     = "auth.logout.ack"
	TypeDescriptorGet     = "connection.descriptor.get"
	TypeDescriptorGetAck  = "connection.descriptor.get.ack"
	TypeDescriptorPush    = "connection.descriptor.push"
	TypeToolInvoke        = "tool.invoke"
	TypeToolInvokeAck     = "tool.invoke.ack"
	TypeToolProgressPush  = "tool.progress.push"
	TypePing              = "ping"
	TypePong              = "pong"
	TypeError             = "error"
	TypeMessagePush       = "message.push"
	typeLabelUnrecognised = "other"
)

// Packet is the data-plane envelope of §7. Payload is kept raw: each handler
// decodes its own shape. Safe to share once built; not mutated after sending.
type Packet struct {
	Schema    string          `json:"schema"`
	PacketID  string          `json:"packet_id"`
	RequestID string          `json:"request_id,omitempty"`
	ReplyTo   string          `json:"reply_to,omitempty"`
	ChannelID string          `json:"connector_channel_id,omitempty"`
	Type      string          `json:"type"`
	Time      int64           `json:"time"`
	Payload   json.RawMessage `json:"payload,omitempty"`
	Error     *Error          `json:"error,omitempty"`
}

// ErrInvalidPacket is wrapped by every DecodePacket failure.
var ErrInvalidPacket = errors.New("invalid packet")

// DecodePacket parses one text frame and checks the envelope against
// xagent.connector.packet/v1: schema constant, non-empty packet_id and type,
// time a non-negative integer, payload an object, error.code non-empty.
// Unknown fields are ignored. Errors wrap ErrInvalidPacket and never quote the
// input (it may hold secrets).
func DecodePacket(b []byte) (*Packet, error) {
	var p Packet
	type plain Packet // time is decoded as a json.Number to reject 1.5 and -1
	var q struct {
		plain
		Time json.Number `json:"time"`
	}
	if err := json.Unmarshal(b, &q); err != nil {
		return nil, fmt.Errorf("%w: wrong field types", ErrInvalidPacket)
	}
	p = Packet(q.plain)
	if q.Time != "" {
		n, err := strconv.ParseInt(string(q.Time), 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%w: time must be a non-negative integer", ErrInvalidPacket)
		}
		p.Time = n
	}
	switch {
	case p.Schema != PacketSchema:
		return nil, fmt.Errorf("%w: schema must be %s", ErrInvalidPacket, PacketSchema)
	case p.PacketID == "":
		return nil, fmt.Errorf("%w: packet_id is required", ErrInvalidPacket)
	case p.Type == "":
		return nil, fmt.Errorf("%w: type is required", ErrInvalidPacket)
	case len(p.PacketID) > MaxIDBytes || len(p.RequestID) > MaxIDBytes || len(p.ReplyTo) > MaxIDBytes ||
		len(p.ChannelID) > MaxIDBytes || len(p.Type) > MaxIDBytes:
		return nil, fmt.Errorf("%w: ids and type are at most %d bytes", ErrInvalidPacket, MaxIDBytes)
	}
	if p.Payload != nil {
		t := bytes.TrimLeft(p.Payload, " \t\r\n")
		if len(t) == 0 || t[0] != '{' {
			return nil, fmt.Errorf("%w: payload must be an object", ErrInvalidPacket)
		}
	}
	if p.Error != nil && p.Error.Code == "" {
		return nil, fmt.Errorf("%w: error.code is required", ErrInvalidPacket)
	}
	return &p, nil
}

// ids issues packet ids: a random per-process prefix and a counter. Unique, cheap.
type ids struct {
	prefix string
	n      atomic.Uint64
}

func newIDs() *ids {
	var b [6]byte
	rand.Read(b[:])
	return &ids{prefix: "pkt_" + hex.EncodeToString(b[:]) + "_"}
}

func (g *ids) next() string { return g.prefix + strconv.FormatUint(g.n.Add(1), 36) }

// randomID returns prefix + 128 random bits in hex.
func randomID(prefix string) string {
	var b [16]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

func nowMillis() int64 { return time.Now().UnixMilli() }
