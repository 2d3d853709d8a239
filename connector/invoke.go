package connector

import (
	"context"
	"encoding/json"
	"fmt"
)

type toolInvokePayload struct {
	ToolID    string          `json:"tool_id"`
	Arguments json.RawMessage `json:"arguments"`
	Context   struct {
		SessionID  string `json:"session_id"`
		ToolCallID string `json:"tool_call_id"`
	} `json:"context"`
}

type toolAckPayload struct {
	ToolID string `json:"tool_id"`
	Result any    `json:"result,omitempty"`
}

type progressPayload struct {
	ToolID   string   `json:"tool_id"`
	Status   string   `json:"status"`
	Message  string   `json:"message,omitempty"`
	Progress *float64 `json:"progress,omitempty"`
}

// handleToolInvoke implements §8.18/§8.19: only a tool of the Card is run
// (Server.tools), the handler's error goes through MapError. A handler
// must not panic: the Profile's tool pipeline guards its tools.
func handleToolInvoke(ctx context.Context, c *conn, p *Packet, ch Channel) {
	var in toolInvokePayload
	if len(p.Payload) == 0 || json.Unmarshal(p.Payload, &in) != nil || in.ToolID == "" {
		c.replyError(p, CodeInvalidPacket, "tool.invoke payload needs tool_id and an arguments object")
		return
	}
	if len(in.ToolID) > MaxIDBytes || len(in.Context.ToolCallID) > MaxIDBytes || len(in.Context.SessionID) > MaxIDBytes {
		c.replyError(p, CodeInvalidPacket, fmt.Sprintf("tool_id, context.tool_call_id and context.session_id are at most %d bytes", MaxIDBytes))
		return
	}
	if len(in.Arguments) == 0 || string(in.Arguments) == "null" {
		in.Arguments = json.RawMessage("{}")
	}
	if in.Arguments[0] != '{' {
		c.reply(p, TypeToolInvokeAck, toolAckPayload{ToolID: in.ToolID}, &Error{Code: CodeInvalidArguments, Message: "arguments must be an object"})
		return
	}
	tool, ok := c.s.tools[in.ToolID]
	if !ok {
		c.reply(p, TypeToolInvokeAck, toolAckPayload{ToolID: in.ToolID}, &Error{Code: CodeToolNotFound, Message: genericUnknownToolMessage})
		return
	}
	call := ToolCall{
		Channel:    ch,
		ToolID:     in.ToolID,
		Arguments:  in.Arguments,
		ToolCallID: in.Context.ToolCallID,
		SessionID:  in.Context.SessionID,
		RequestID:  p.RequestID,
		Progress: func(msg string, fraction float64) {
			pp := progressPayload{ToolID: in.ToolID, Status: "running", Message: msg}
			if fraction >= 0 {
				f := min(fraction, 1)
				pp.Progress = &f
			}
			c.reply(&Packet{RequestID: p.RequestID, ChannelID: ch.ID}, TypeToolProgressPush, pp, nil)
		},
	}
	// The handler owns the rest of the call (validation, metrics, the
	// log line of a failure, a panic guard): the pipeline of the Profile's
	// tools; here only the ack is built.
	result, err := tool.Handler(ctx, call)
	if err != nil {
		c.reply(p, TypeToolInvokeAck, toolAckPayload{ToolID: tool.ID}, MapError(err, CodeToolInvokeFailed))
		return
	}
	if result == nil {
		result = map[string]any{}
	}
	c.reply(p, TypeToolInvokeAck, toolAckPayload{ToolID: tool.ID, Result: result}, nil)
}

// handleAuth routes auth.start/status/cancel/logout (§8.7–§8.14) to the Profile.
func handleAuth(ctx context.Context, c *conn, p *Packet, ch Channel) {
	ackType := p.Type + ".ack"
	prof := c.s.cfg.Profile
	if prof == nil {
		c.reply(p, ackType, nil, &Error{Code: CodeAuthNotSupported, Message: genericAuthNotSupportedMessage})
		return
	}
	payload := p.Payload
	if len(payload) == 0 {
		payload = json.RawMessage("{}")
	}
	var (
		rep AuthReply
		err error
	)
	switch p.Type {
	case TypeAuthStart:
		rep, err = prof.AuthStart(ctx, ch, payload)
	case TypeAuthStatus:
		rep, err = prof.AuthStatus(ctx, ch, payload)
	case TypeAuthCancel:
		rep, err = prof.AuthCancel(ctx, ch, payload)
	case TypeAuthLogout:
		rep, err = prof.AuthLogout(ctx, ch, payload)
		rep.WithDescriptor = true
	}
	if err != nil {
		c.reply(p, ackType, nil, MapError(err, CodeInternal))
		return
	}
	out := map[string]json.RawMessage{}
	if rep.Payload != nil {
		b, err := json.Marshal(rep.Payload)
		if err != nil || json.Unmarshal(b, &out) != nil {
			c.log.Error("auth reply is not a JSON object", "type", p.Type)
			c.reply(p, ackType, nil, &Error{Code: CodeInternal, Message: genericInternalMessage})
			return
		}
	}
	if _, ok := out["connector_channel_id"]; !ok && p.Type != TypeAuthLogout {
		out["connector_channel_id"], _ = json.Marshal(ch.ID)
	}
	if rep.WithDescriptor {
		d, err := c.s.descriptor(ctx, ch)
		if err != nil {
			c.reply(p, ackType, nil, MapError(err, CodeInternal))
			return
		}
		out["connection_descriptor"], _ = json.Marshal(d)
	}
	c.reply(p, ackType, out, nil)
}
