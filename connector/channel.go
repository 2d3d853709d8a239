package connector

import (
	"context"
	"errors"
	"time"
)

type channelOpenAckPayload struct {
	ChannelID  string     `json:"connector_channel_id"`
	Descriptor Descriptor `json:"connection_descriptor"`
}

type descriptorPayload struct {
	Descriptor Descriptor `json:"connection_descriptor"`
}

// handleChannelOpen implements §8.3/§8.4: a new channel when the envelope has
// no id or an unknown one, the same channel when it is known (restore).
func handleChannelOpen(ctx context.Context, c *conn, p *Packet, _ Channel) {
	ch, e := c.s.state.open(ctx, c, p.ChannelID)
	if e != nil {
		c.replyError(p, e.Code, e.Message)
		return
	}
	d, err := c.s.descriptor(ctx, ch)
	if err != nil {
		c.reply(p, TypeError, nil, MapError(err, CodeInternal))
		return
	}
	ack := *p
	ack.ChannelID = ch.ID
	c.reply(&ack, TypeChannelOpenAck, channelOpenAckPayload{ChannelID: ch.ID, Descriptor: d}, nil)
}

// handleChannelClose implements §8.5/§8.6: the route closes; bindings and
// authentication state stay. Closing a channel not open here is a no-op ack.
func handleChannelClose(_ context.Context, c *conn, p *Packet, ch Channel) {
	c.s.state.closeChannel(c, ch.ID)
	c.reply(p, TypeChannelCloseAck, map[string]string{"status": "ok"}, nil)
}

func handleDescriptorGet(ctx context.Context, c *conn, p *Packet, ch Channel) {
	d, err := c.s.descriptor(ctx, ch)
	if err != nil {
		c.reply(p, TypeDescriptorGetAck, nil, MapError(err, CodeInternal))
		return
	}
	c.reply(p, TypeDescriptorGetAck, descriptorPayload{Descriptor: d}, nil)
}

// descriptor asks the Profile for the channel's state and checks the result
// against §9. An invalid Descriptor is a bug in the Profile: it is logged and
// reported as internal_error, never sent.
func (s *Server) descriptor(ctx context.Context, ch Channel) (Descriptor, error) {
	st := defaultDescriptorState(&s.card)
	if s.cfg.Profile != nil {
		var err error
		st, err = s.cfg.Profile.Descriptor(ctx, ch)
		if err != nil {
			return Descriptor{}, err
		}
	}
	d := buildDescriptor(&s.card, ch, st)
	if err := ValidateDescriptor(&s.card, ch.ID, &d); err != nil {
		s.log.Error("profile produced an invalid descriptor", "channel", ch.ID, "err", err)
		return Descriptor{}, &Error{Code: CodeInternal, Message: "descriptor unavailable"}
	}
	return d, nil
}

// ErrChannelNotFound is returned by PushDescriptor for an unknown channel.
var ErrChannelNotFound = errors.New("connector: channel not found")

// PushDescriptor sends connection.descriptor.push (§8.17) for channelID to
// the connection that holds it open. A known channel that is not open on any
// connection is skipped (xAgent reads the Descriptor again on channel.open).
// Called by the Profile whenever the channel's state changes; safe for
// concurrent use. It calls Profile.Descriptor, so the Profile must not hold a
// lock that Descriptor needs while calling it. It does not wait for the peer
// to read, but may wait up to Config.WriteTimeout for room in a full queue.
func (s *Server) PushDescriptor(ctx context.Context, channelID string) error {
	ch, c, ok := s.state.holder(channelID)
	if !ok {
		return ErrChannelNotFound
	}
	if c == nil {
		return nil
	}
	d, err := s.descriptor(ctx, ch)
	if err != nil {
		return err
	}
	c.reply(&Packet{ChannelID: ch.ID}, TypeDescriptorPush, descriptorPayload{Descriptor: d}, nil)
	return nil
}

// ChannelLink says whether the channel with this id is open on a live
// data plane connection (xAgent is connected and uses it) and since when
// it has been so, or been closed; ok is false for a channel the server
// does not know (never opened, or released). Operators read it to tell a
// holder that is working from one that went away. Safe for concurrent use.
func (s *Server) ChannelLink(id string) (open bool, since time.Time, ok bool) {
	return s.state.link(id)
}
