package connector

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The data plane, as seen from one socket (§6–§8):
//
//	frame ──► DecodePacket ──(bad)──► error invalid_packet (socket stays open)
//	  │
//	  ▼ dispatch[type] ──(absent)──► error unsupported_packet
//	  │ needs hello? ──(not yet)──► error hello_required
//	  │ user-level?  ──► envelope connector_channel_id: absent ► connector_channel_id_required,
//	  │                  unknown ► connection_not_found, other connector_id ►
//	  │                  connector_channel_connector_mismatch, not open here ► channel_not_open
//	  ▼
//	inline (ping, hello: ordered, cheap), or one goroutine per request: control
//	packets bounded by Config.MaxInFlight (the reader waits), tool calls by
//	MaxToolCalls per socket and MaxChannelToolCalls per channel (over either:
//	rate_limited at once, the reader never waits behind a tool)
//	──► handler ──► ack {request_id echoed, reply_to = packet_id}
//
// Every packet sent has schema, packet_id and time (ms); see conn.send.

// route is one dispatch-table entry.
type route struct {
	handle func(ctx context.Context, c *conn, p *Packet, ch Channel)
	// hello: requires a completed connector.hello on this socket.
	hello bool
	// channel: a user-level packet; ch is resolved and checked before handle.
	channel bool
	// closedOK: a user-level packet that accepts a channel not open here.
	closedOK bool
	// inline: run on the reader goroutine (fast, order-sensitive).
	inline bool
	// tool: a tool call, bounded per connection and per channel and never
	// waited for by the reader (Server.startToolCall).
	tool bool
}

// dispatch is the one table of packet type -> handler. Filled in init to
// avoid an initialization cycle through the handlers.
var dispatch map[string]route

func init() {
	dispatch = map[string]route{
		TypeHello:         {handle: handleHello, inline: true},
		TypePing:          {handle: handlePing, inline: true},
		TypePong:          {handle: handleIgnore, inline: true},
		TypeError:         {handle: handlePeerError, inline: true},
		TypeChannelOpen:   {handle: handleChannelOpen, hello: true},
		TypeChannelClose:  {handle: handleChannelClose, hello: true, channel: true, closedOK: true},
		TypeDescriptorGet: {handle: handleDescriptorGet, hello: true, channel: true},
		TypeAuthStart:     {handle: handleAuth, hello: true, channel: true},
		TypeAuthStatus:    {handle: handleAuth, hello: true, channel: true},
		TypeAuthCancel:    {handle: handleAuth, hello: true, channel: true},
		TypeAuthLogout:    {handle: handleAuth, hello: true, channel: true},
		TypeToolInvoke:    {handle: handleToolInvoke, hello: true, channel: true, tool: true},
	}
}

func (s *Server) handleFrame(c *conn, b []byte) {
	p, err := DecodePacket(b)
	if err != nil {
		s.metrics.packetsIn.WithLabelValues(typeLabelUnrecognised).Inc()
		c.replyError(looseIDs(b), CodeInvalidPacket, strings.TrimPrefix(err.Error(), ErrInvalidPacket.Error()+": "))
		return
	}
	s.metrics.packetsIn.WithLabelValues(knownType(p.Type)).Inc()
	r, ok := dispatch[p.Type]
	if !ok {
		c.replyError(p, CodeUnsupportedPacket, "packet type is not supported by this connector")
		return
	}
	connectorID, _ := c.hello()
	if r.hello && connectorID == "" {
		c.replyError(p, CodeHelloRequired, "connector.hello must complete first")
		return
	}
	var ch Channel
	if r.channel {
		var e *Error
		ch, e = s.state.resolve(c, connectorID, p.ChannelID, r.closedOK)
		if e != nil {
			c.replyError(p, e.Code, e.Message)
			return
		}
	}
	if r.inline {
		r.handle(c.ctx, c, p, ch)
		return
	}
	if r.tool {
		s.startToolCall(c, r, p, ch)
		return
	}
	select {
	case c.sem <- struct{}{}:
	case <-c.ctx.Done():
		return
	}
	if !s.startRequest(c, p) {
		<-c.sem
		return
	}
	go func() {
		defer func() {
			<-c.sem
			s.endRequest(c)
		}()
		r.handle(c.ctx, c, p, ch)
	}()
}

// startRequest counts a request goroutine about to start, or answers
// connector_shutting_down when the server drains.
func (s *Server) startRequest(c *conn, p *Packet) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.admitLocked(c, p) {
		return false
	}
	c.reqs.Add(1)
	return true
}

// admitLocked counts a request for the drain, or refuses it once the
// server is draining; s.mu must be held.
func (s *Server) admitLocked(c *conn, p *Packet) bool {
	if s.draining {
		c.replyError(p, CodeShuttingDown, "the connector is shutting down")
		return false
	}
	s.inflight.Add(1)
	return true
}

func (s *Server) endRequest(c *conn) {
	c.reqs.Done()
	s.inflight.Done()
}

// startToolCall runs a tool.invoke on its own goroutine within the
// connection's and the channel's in-flight bounds. Over a bound the call is
// answered rate_limited at once: the reader never waits for tool calls, so
// ping and control packets, and other channels, are never stuck behind one
// channel's slow phone.
func (s *Server) startToolCall(c *conn, r route, p *Packet, ch Channel) {
	s.mu.Lock()
	var refused string
	switch {
	case c.calls >= s.cfg.MaxToolCalls:
		refused = fmt.Sprintf("%d tool calls are in flight on this connection; retry when one is answered", s.cfg.MaxToolCalls)
	case s.channelCalls[ch.ID] >= s.cfg.MaxChannelToolCalls:
		refused = fmt.Sprintf("%d tool calls are in flight on this channel; retry when one is answered", s.cfg.MaxChannelToolCalls)
	default:
		c.calls++
		s.channelCalls[ch.ID]++
	}
	s.mu.Unlock()
	if refused != "" {
		c.reply(p, TypeToolInvokeAck, toolAckPayload{ToolID: toolIDOf(p)}, &Error{Code: CodeRateLimited, Message: refused})
		return
	}
	if !s.startToolRequest(c, p) {
		s.endToolCall(c, ch)
		return
	}
	// A tool call outlives the socket it came on: xAgent sends it again
	// with the same tool_call_id on a new socket after a drop (protocol 3.0
	// §8.18), and must then get the call's real outcome, not a
	// cancellation. It ends with the call's own deadlines or the server.
	go func() {
		defer func() {
			s.endToolCall(c, ch)
			s.inflight.Done()
		}()
		r.handle(s.baseCtx, c, p, ch)
	}()
}

// startToolRequest is startRequest for a tool call: the server's drain
// waits for it, its connection does not.
func (s *Server) startToolRequest(c *conn, p *Packet) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.admitLocked(c, p)
}

func (s *Server) endToolCall(c *conn, ch Channel) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.calls--
	if s.channelCalls[ch.ID]--; s.channelCalls[ch.ID] <= 0 {
		delete(s.channelCalls, ch.ID)
	}
}

// toolIDOf is the tool_id of a tool.invoke payload, "" when unreadable.
func toolIDOf(p *Packet) string {
	var in struct {
		ToolID string `json:"tool_id"`
	}
	json.Unmarshal(p.Payload, &in)
	return in.ToolID
}

// looseIDs recovers request_id, packet_id and connector_channel_id from an
// invalid packet when they are strings, so xAgent can route the error.
func looseIDs(b []byte) *Packet {
	var ids struct {
		PacketID  any `json:"packet_id"`
		RequestID any `json:"request_id"`
		ChannelID any `json:"connector_channel_id"`
	}
	json.Unmarshal(b, &ids)
	str := func(v any) string {
		s, _ := v.(string)
		if len(s) > MaxIDBytes { // never echo an oversized id
			return ""
		}
		return s
	}
	return &Packet{PacketID: str(ids.PacketID), RequestID: str(ids.RequestID), ChannelID: str(ids.ChannelID)}
}

// reply sends an ack of typ for request req.
func (c *conn) reply(req *Packet, typ string, payload any, e *Error) {
	p := &Packet{
		RequestID: req.RequestID,
		ReplyTo:   req.PacketID,
		ChannelID: req.ChannelID,
		Type:      typ,
		Error:     e,
	}
	if payload != nil {
		b, err := json.Marshal(payload)
		if err != nil {
			c.log.Error("marshal ack payload", "type", typ, "err", err)
			p.Error = &Error{Code: CodeInternal, Message: genericInternalMessage}
		} else {
			p.Payload = b
		}
	}
	c.send(p)
}

// replyError sends a type=error packet for req (§8.23).
func (c *conn) replyError(req *Packet, code, msg string) {
	c.log.Debug("protocol error", "code", code, "type", req.Type)
	c.reply(req, TypeError, nil, &Error{Code: code, Message: msg})
}

func handlePing(_ context.Context, c *conn, p *Packet, _ Channel) {
	c.send(&Packet{RequestID: p.RequestID, ReplyTo: p.PacketID, ChannelID: p.ChannelID, Type: TypePong})
}

func handleIgnore(context.Context, *conn, *Packet, Channel) {}

func handlePeerError(_ context.Context, c *conn, p *Packet, _ Channel) {
	code := ""
	if p.Error != nil {
		code = p.Error.Code
	}
	c.log.Debug("peer sent an error packet", "code", code, "reply_to", p.ReplyTo)
}

type helloPayload struct {
	CardID            string   `json:"connector_card_id"`
	ConnectorID       string   `json:"connector_id"`
	ProtocolVersion   string   `json:"protocol_version"`
	SupportedProfiles []string `json:"supported_profiles"`
}

type helloAckPayload struct {
	CardID          string `json:"connector_card_id"`
	ConnectorID     string `json:"connector_id"`
	ProtocolVersion string `json:"protocol_version"`
}

// handleHello implements §8.1/§8.2 and the lease hand-over of §8.2.
func handleHello(ctx context.Context, c *conn, p *Packet, _ Channel) {
	s := c.s
	var h helloPayload
	if len(p.Payload) == 0 || json.Unmarshal(p.Payload, &h) != nil {
		c.replyError(p, CodeInvalidPacket, "connector.hello payload is malformed")
		return
	}
	if len(h.ConnectorID) > MaxIDBytes {
		c.replyError(p, CodeInvalidPacket, fmt.Sprintf("connector_id is at most %d bytes", MaxIDBytes))
		return
	}
	if h.CardID != s.card.CardID {
		c.replyError(p, CodeCardIDMismatch, "connector_card_id does not match this connector")
		return
	}
	if !versionAdmitted(h.ProtocolVersion) {
		c.replyError(p, CodeUnsupportedProtocolVersion, "protocol_version 3.0 or later is required (MAJOR.MINOR)")
		return
	}
	if h.SupportedProfiles == nil {
		c.replyError(p, CodeInvalidPacket, "supported_profiles is required")
		return
	}
	var profiles []string
	for _, prof := range s.card.Supports.Profiles {
		if slices.Contains(h.SupportedProfiles, prof) {
			profiles = append(profiles, prof)
		}
	}
	if len(profiles) == 0 {
		c.replyError(p, CodeUnsupportedProfile, "no profile of this connector is in supported_profiles")
		return
	}
	if cur, _ := c.hello(); cur != "" {
		if h.ConnectorID != "" && h.ConnectorID != cur {
			c.replyError(p, CodeConnectorIDMismatch, "this socket already completed hello with another connector_id")
			return
		}
		c.setHello(cur, profiles)
		c.reply(p, TypeHelloAck, helloAckPayload{CardID: s.card.CardID, ConnectorID: cur, ProtocolVersion: ProtocolVersion}, nil)
		return
	}
	id, err := s.state.hello(ctx, c, h.ConnectorID)
	if err != nil {
		c.log.Error("hello: persist connector_id", "err", err)
		c.replyError(p, CodeInternal, genericInternalMessage)
		return
	}
	c.setHello(id, profiles)
	c.log.Info("hello completed", "connector_id", id, "restored", id == h.ConnectorID, "profiles", profiles)
	c.reply(p, TypeHelloAck, helloAckPayload{CardID: s.card.CardID, ConnectorID: id, ProtocolVersion: ProtocolVersion}, nil)
}

// versionAdmitted reports whether xAgent's protocol_version v may talk to
// this connector. Protocol 3.0 §8.1 and §12: a hello that omits the version
// or is below 3.0 is rejected; a higher version (xAgent newer than us, which
// still admits 3.0 connectors) gets our ack carrying "3.0" and the normal
// flow: hello negotiates nothing. v is MAJOR[.MINOR], both decimal integers
// compared as numbers ("3.10" is above "3.9"); "3" reads as 3.0. Anything
// else (empty, signs, spaces, a third component) is not a version.
func versionAdmitted(v string) bool {
	majS, minS, hasMinor := strings.Cut(v, ".")
	maj, ok := versionNumber(majS)
	if !ok {
		return false
	}
	if hasMinor {
		if _, ok := versionNumber(minS); !ok {
			return false
		}
	}
	return maj >= 3
}

// versionNumber parses one version component: 1 to 9 ASCII digits.
func versionNumber(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}
