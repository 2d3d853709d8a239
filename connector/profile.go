package connector

import (
	"context"
	"encoding/json"
)

// Profile is the contract between this package and the layer that gives the
// channels meaning (for this connector, package device and xagent.device.v1).
// The connector owns the wire: order, ownership, envelopes, acks, leases. The
// Profile owns what a channel is bound to and its authentication state.
//
// All methods are called concurrently from many goroutines (one per request)
// and must be safe for concurrent use. Every ctx is canceled when the socket
// that carried the request closes or the server shuts down. Errors are mapped
// with MapError: return an *Error (or wrap one) to choose the wire code;
// any other error becomes a generic code with a generic message, so a Profile
// never leaks internal detail by returning a plain error.
//
// Channel identity: a Channel passed in has already been checked — it exists,
// belongs to the connector_id of the calling connection and is open on it.
// Only the envelope connector_channel_id is used for routing (§8.18).
type Profile interface {
	// Descriptor returns the current state of the channel: status, target,
	// tools (and optionally target_type). The Server adds the identity fields
	// (schema, card id, connector_id, channel id, negotiated profiles) and
	// runs ValidateDescriptor on the result. It is called for channel.open.ack,
	// connection.descriptor.get.ack, connection.descriptor.push and for auth
	// acks with WithDescriptor. Keep it fast (in-memory): it runs on request
	// goroutines and under PushDescriptor.
	Descriptor(ctx context.Context, ch Channel) (DescriptorState, error)

	// AuthStart handles auth.start (§8.7); payload is the raw request payload
	// ({flow_id, input}). Unknown errors map to internal_error.
	AuthStart(ctx context.Context, ch Channel, payload json.RawMessage) (AuthReply, error)
	// AuthStatus handles auth.status (§8.9). Return an *Error with
	// CodeAuthSessionNotFound for an unknown session.
	AuthStatus(ctx context.Context, ch Channel, payload json.RawMessage) (AuthReply, error)
	// AuthCancel handles auth.cancel (§8.11).
	AuthCancel(ctx context.Context, ch Channel, payload json.RawMessage) (AuthReply, error)
	// AuthLogout handles auth.logout (§8.13). The Server always adds the
	// post-logout connection_descriptor to the ack.
	AuthLogout(ctx context.Context, ch Channel, payload json.RawMessage) (AuthReply, error)

	// ChannelsReleased is called when channels are unregistered for good: the
	// lease of their connector_id expired (§8.2) or they were restored at
	// start-up and no hello claimed them within the grace. The Profile releases
	// bindings and unfinished auth sessions. It is NOT called for
	// channel.close, which keeps authentication state (§8.5). The rows are
	// already deleted when it runs; errors are the Profile's to log.
	ChannelsReleased(ctx context.Context, chs []Channel)
}

// Channel identifies a user-level channel. Safe to copy.
type Channel struct {
	ID          string   // connector_channel_id, "cch_" + 128 random bits in hex
	ConnectorID string   // connector_id that owns the channel
	Profiles    []string // Profiles enabled for the channel (hello ∩ Card)
}

// DescriptorState is the Profile's part of a Descriptor (see Profile.Descriptor).
// A zero Status means created; an empty TargetType means the Card's first.
type DescriptorState struct {
	Status     string
	TargetType string
	Target     DescriptorTarget
	Tools      []DescriptorTool
}

// AuthReply is an auth.*.ack payload. Payload must marshal to a JSON object
// (a struct or map); the Server fills connector_channel_id when absent and,
// when WithDescriptor is set, adds connection_descriptor from Profile.Descriptor
// called after the auth method returned.
type AuthReply struct {
	Payload        any
	WithDescriptor bool
}

// ToolCall is one tool.invoke handed to a Tool's Handler.
type ToolCall struct {
	Channel    Channel
	ToolID     string
	Arguments  json.RawMessage // payload.arguments unchanged ("{}" when absent); includes the redundant connector_channel_id
	ToolCallID string          // payload.context.tool_call_id (correlation for idempotency, not authorization)
	SessionID  string          // payload.context.session_id
	RequestID  string          // envelope request_id
	// Progress sends tool.progress.push {tool_id, status: "running", message,
	// progress} for this call; fraction in [0,1], negative to omit it. Never
	// blocks for long; drops the push if the socket is gone. Never nil.
	Progress func(message string, fraction float64)
}
