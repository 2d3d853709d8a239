package device

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/auth"
	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/device/card"
	"github.com/adb-connector/adb-connector/device/redact"
	"github.com/adb-connector/adb-connector/device/tools"
	"github.com/adb-connector/adb-connector/internal/ratelimit"
)

// Auth ack statuses beyond the request flow's auth.Status values.
const (
	authFailed auth.Status = "failed"
)

// Limits on auth.* input, checked before any work.
const (
	formSessionTTL  = 10 * time.Minute
	maxFormSessions = 10000
)

// Messages of auth acks. None holds a code, a secret or a full serial.
const (
	msgBound        = "A device is bound to this connection"
	msgAlreadyBound = "This connection is already bound to a device"
	msgInUse        = "That device is in use by another connection"
	msgAuthCanceled = "Authentication canceled"
	msgAuthIgnored  = "Authentication already completed"
	msgLoggedOut    = "The device was released"
	msgResetting    = "That device is being reset; try again in a few seconds"
	msgNeedsReset   = "That device is waiting for a reset and cannot be bound until it is reset; ask the operator"
)

// formSession remembers a device_pairing auth.start so auth.status and
// auth.cancel can answer for it (a form flow completes at once).
type formSession struct {
	channelID string
	flowID    string
	status    auth.Status // authenticated or failed
	expires   time.Time
}

// authAck is the payload of auth.start.ack and auth.status.ack (§8.8, §8.10).
type authAck struct {
	ChannelID          string `json:"connector_channel_id"`
	FlowID             string `json:"flow_id,omitempty"`
	SessionID          string `json:"auth_session_id,omitempty"`
	Status             string `json:"status"`
	QRCodeText         string `json:"qr_code_text,omitempty"`
	ExpiresAt          int64  `json:"expires_at,omitempty"`
	PollIntervalMillis int64  `json:"poll_interval_millis,omitempty"`
	Message            string `json:"message,omitempty"`
}

// cancelAck is auth.cancel.ack's payload (§8.12).
type cancelAck struct {
	ChannelID  string `json:"connector_channel_id"`
	SessionID  string `json:"auth_session_id"`
	Status     string `json:"status"`
	AuthStatus string `json:"auth_status"`
	Message    string `json:"message"`
}

// logoutAck is auth.logout.ack's payload (§8.14); the Server adds the Descriptor.
type logoutAck struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

func (s *Service) bound(channelID string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	b, ok := s.byChannel[channelID]
	return ok && b.State == binding.Bound
}

func (s *Service) expired(channelID string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.byChannel[channelID].State == binding.Expired
}

// AuthStart implements auth.start (§8.7): device_pairing redeems the
// operator's one-time code at once (authenticated, or failed with one
// generic message; too many attempts is the error rate_limited);
// device_request opens a pending session whose request code is in
// qr_code_text. A channel already bound is authenticated at once.
func (s *Service) AuthStart(ctx context.Context, ch connector.Channel, payload json.RawMessage) (connector.AuthReply, error) {
	p, in, err := card.DecodeStart(payload)
	if err != nil {
		return connector.AuthReply{}, err
	}
	if s.bound(ch.ID) {
		id := s.rememberForm(ch.ID, p.FlowID, auth.Authenticated)
		return authenticated(ch.ID, p.FlowID, id, msgAlreadyBound), nil
	}
	if p.FlowID == auth.FlowRequest {
		sess, err := s.requests.StartRequest(ctx, ch.ID)
		if err != nil {
			return connector.AuthReply{}, err
		}
		return s.requestReply(p.FlowID, sess), nil
	}
	s.resets.Wait(ctx, in.Serial)
	key, err := s.pairing.RedeemPairing(ctx, ch.ID, in.Serial, in.PairingCode)
	var rl *ratelimit.Error
	switch {
	case err == nil:
		id := s.rememberForm(ch.ID, p.FlowID, auth.Authenticated)
		s.log.Info("device paired", "device", redact.KeyHint(key))
		return authenticated(ch.ID, p.FlowID, id, msgBound), nil
	case errors.As(err, &rl):
		return connector.AuthReply{}, connector.NewError(tools.CodeRateLimited, authRateMessage(rl.RetryAfter))
	case errors.Is(err, auth.ErrPairingFailed), errors.Is(err, binding.ErrDeviceInUse):
		msg := auth.ErrPairingFailed.Error()
		switch {
		case errors.Is(err, binding.ErrResetting):
			msg = msgResetting
		case errors.Is(err, binding.ErrNeedsReset):
			msg = msgNeedsReset
		case errors.Is(err, binding.ErrDeviceInUse):
			msg = msgInUse
		}
		id := s.rememberForm(ch.ID, p.FlowID, authFailed)
		s.log.Debug("pairing refused", "reason", msg)
		return connector.AuthReply{Payload: authAck{ChannelID: ch.ID, FlowID: p.FlowID, SessionID: id, Status: string(authFailed), Message: msg}}, nil
	case errors.Is(err, binding.ErrChannelBound): // raced with another auth on this channel
		id := s.rememberForm(ch.ID, p.FlowID, auth.Authenticated)
		return authenticated(ch.ID, p.FlowID, id, msgAlreadyBound), nil
	}
	return connector.AuthReply{}, err
}

func authenticated(channelID, flowID, sessionID, msg string) connector.AuthReply {
	return connector.AuthReply{
		Payload:        authAck{ChannelID: channelID, FlowID: flowID, SessionID: sessionID, Status: string(auth.Authenticated), Message: msg},
		WithDescriptor: true,
	}
}

// authRateMessage is rate_limited's message for pairing attempts, with its
// retry hint (retrySeconds).
func authRateMessage(retry time.Duration) string {
	return fmt.Sprintf("too many pairing attempts; retry after %d s", ratelimit.RetrySeconds(retry))
}

// requestReply turns a device_request session into its ack.
func (s *Service) requestReply(flowID string, sess auth.Session) connector.AuthReply {
	a := authAck{
		ChannelID: sess.ChannelID, FlowID: flowID, SessionID: sess.ID, Status: string(sess.Status),
		Message: sess.Message(),
	}
	if sess.Status == auth.Pending || sess.Status == auth.Expired {
		a.QRCodeText = sess.Code
		a.ExpiresAt = sess.ExpiresAt.UnixMilli()
		a.PollIntervalMillis = sess.PollInterval.Milliseconds()
	}
	return connector.AuthReply{Payload: a, WithDescriptor: sess.Status == auth.Authenticated}
}

// auth.Status implements auth.status (§8.9): pending, authenticated (with the
// Descriptor), expired or unauthenticated for device_request sessions;
// refresh issues a new code. Unknown sessions: auth_session_not_found.
func (s *Service) AuthStatus(ctx context.Context, ch connector.Channel, payload json.RawMessage) (connector.AuthReply, error) {
	p, err := card.DecodeSession(payload)
	if err != nil {
		return connector.AuthReply{}, err
	}
	if f, ok := s.form(ch.ID, p.SessionID); ok {
		st := f.status
		if st == auth.Authenticated && !s.bound(ch.ID) {
			st = auth.Unauthenticated
		}
		a := authAck{ChannelID: ch.ID, FlowID: f.flowID, SessionID: p.SessionID, Status: string(st)}
		switch st {
		case auth.Authenticated:
			a.Message = msgBound
		case auth.Unauthenticated:
			a.Message = "The device was unbound; start again to bind a device"
			if s.expired(ch.ID) {
				a.Message = "The lease on the device ended; start again to bind a device"
			}
		default:
			a.Message = auth.ErrPairingFailed.Error()
		}
		return connector.AuthReply{Payload: a, WithDescriptor: st == auth.Authenticated}, nil
	}
	sess, err := s.requests.Status(ctx, ch.ID, p.SessionID, p.Refresh)
	if errors.Is(err, auth.ErrSessionNotFound) {
		return connector.AuthReply{}, connector.NewError(connector.CodeAuthSessionNotFound, card.MsgNoSession)
	}
	if err != nil {
		return connector.AuthReply{}, err
	}
	if (sess.Status == auth.Pending || sess.Status == auth.Expired) && s.bound(ch.ID) {
		// Bound meanwhile by the other flow: the poll is over.
		return authenticated(ch.ID, auth.FlowRequest, sess.ID, msgAlreadyBound), nil
	}
	return s.requestReply(auth.FlowRequest, sess), nil
}

// AuthCancel implements auth.cancel (§8.11/§8.12): canceled for an
// unfinished session, ignored (with the Descriptor) for a completed one,
// not_found otherwise. It never touches a binding.
func (s *Service) AuthCancel(ctx context.Context, ch connector.Channel, payload json.RawMessage) (connector.AuthReply, error) {
	p, err := card.DecodeSession(payload)
	if err != nil {
		if ce := (*connector.Error)(nil); errors.As(err, &ce) && ce.Code == connector.CodeAuthSessionNotFound {
			return s.cancelReply(ch.ID, p.SessionID, auth.CancelNotFound), nil
		}
		return connector.AuthReply{}, err
	}
	if f, ok := s.form(ch.ID, p.SessionID); ok {
		if f.status == auth.Authenticated && s.bound(ch.ID) {
			return s.cancelReply(ch.ID, p.SessionID, auth.CancelIgnored), nil
		}
		s.dropForm(p.SessionID)
		return s.cancelReply(ch.ID, p.SessionID, auth.CancelCanceled), nil
	}
	st, err := s.requests.Cancel(ctx, ch.ID, p.SessionID)
	if err != nil {
		return connector.AuthReply{}, err
	}
	return s.cancelReply(ch.ID, p.SessionID, st), nil
}

func (s *Service) cancelReply(channelID, sessionID string, st auth.CancelStatus) connector.AuthReply {
	a := cancelAck{ChannelID: channelID, SessionID: sessionID, Status: string(st), AuthStatus: string(auth.Unauthenticated)}
	bound := s.bound(channelID)
	if bound {
		a.AuthStatus = string(auth.Authenticated)
	}
	switch st {
	case auth.CancelCanceled:
		a.Message = msgAuthCanceled
	case auth.CancelIgnored:
		a.Message = msgAuthIgnored
	default:
		a.Message = card.MsgNoSession
	}
	return connector.AuthReply{Payload: a, WithDescriptor: st == auth.CancelIgnored && bound}
}

// AuthLogout implements auth.logout (§8.13): the binding (or revoked or
// expired marker) and unfinished sessions are released, the channel's
// files deleted, the device reset; the Descriptor goes back to created.
func (s *Service) AuthLogout(ctx context.Context, ch connector.Channel, _ json.RawMessage) (connector.AuthReply, error) {
	if err := s.bindings.Release(ctx, ch.ID); err != nil {
		return connector.AuthReply{}, err
	}
	s.forgetForms(ch.ID)
	s.deleteFiles(ctx, ch.ID)
	return connector.AuthReply{Payload: logoutAck{Status: "ok", Message: msgLoggedOut}, WithDescriptor: true}, nil
}

// ChannelsReleased implements connector.Profile: a connector_id lease
// expired or a restored channel was never claimed. binding.Table, sessions
// and files go; the devices are reset.
func (s *Service) ChannelsReleased(ctx context.Context, chs []connector.Channel) {
	ids := make([]string, len(chs))
	for i, c := range chs {
		ids[i] = c.ID
	}
	s.forgetChannels(ids)
	n, err := s.bindings.ReleaseChannels(ctx, ids)
	if err != nil {
		s.log.Warn("release channels failed", "channels", len(ids), "err", err)
	} else if n > 0 {
		s.log.Info("bindings released with their channels", "bindings", n)
	}
	for _, id := range ids {
		s.deleteFiles(ctx, id)
	}
}

func (s *Service) deleteFiles(ctx context.Context, channelID string) {
	if s.cfg.Files == nil {
		return
	}
	if err := s.cfg.Files.DeleteChannel(ctx, channelID); err != nil {
		s.log.Warn("delete channel files failed", "err", err)
	}
}

// rememberForm records a device_pairing session and returns its id.
func (s *Service) rememberForm(channelID, flowID string, st auth.Status) string {
	id := auth.NewSessionID()
	now := s.cfg.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.forms) >= maxFormSessions {
		for k, f := range s.forms {
			if !now.Before(f.expires) || len(s.forms) >= maxFormSessions {
				delete(s.forms, k)
			}
		}
	}
	s.forms[id] = formSession{channelID: channelID, flowID: flowID, status: st, expires: now.Add(formSessionTTL)}
	return id
}

func (s *Service) form(channelID, id string) (formSession, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	f, ok := s.forms[id]
	if !ok || f.channelID != channelID || !s.cfg.Now().Before(f.expires) {
		return formSession{}, false
	}
	return f, true
}

func (s *Service) dropForm(id string) {
	s.mu.Lock()
	delete(s.forms, id)
	s.mu.Unlock()
}

func (s *Service) forgetForms(channelID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forgetFormsLocked(channelID)
}

// forgetFormsLocked drops a channel's device_pairing sessions; s.mu must be
// held.
func (s *Service) forgetFormsLocked(channelID string) {
	for id, f := range s.forms {
		if f.channelID == channelID {
			delete(s.forms, id)
		}
	}
}
