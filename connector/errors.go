package connector

import (
	"context"
	"errors"
)

// Wire error codes: §8.23 plus the Device Profile tool codes. Stable strings.
const (
	CodeInvalidPacket               = "invalid_packet"
	CodeHelloRequired               = "hello_required"
	CodeCardIDMismatch              = "connector_card_id_mismatch"
	CodeConnectorIDMismatch         = "connector_id_mismatch"
	CodeUnsupportedProtocolVersion  = "unsupported_protocol_version"
	CodeUnsupportedProfile          = "unsupported_profile"
	CodeChannelNotOpen              = "channel_not_open"
	CodeChannelIDRequired           = "connector_channel_id_required"
	CodeChannelNotOwned             = "connector_channel_not_owned"
	CodeChannelConnectorMismatch    = "connector_channel_connector_mismatch"
	CodeChannelUnavailable          = "connector_channel_unavailable"
	CodeConnectionNotFound          = "connection_not_found"
	CodeConnectionNotAuthenticated  = "connection_not_authenticated"
	CodeAuthSessionNotFound         = "auth_session_not_found"
	CodeAuthNotSupported            = "auth_not_supported"
	CodeToolInvokeFailed            = "tool_invoke_failed"
	CodeToolNotFound                = "tool_not_found"
	CodeToolTimeout                 = "tool_timeout"
	CodeInvalidArguments            = "invalid_arguments"
	CodeRateLimited                 = "rate_limited"
	CodeUnsupportedPacket           = "unsupported_packet"
	CodeShuttingDown                = "connector_shutting_down"
	CodeInternal                    = "internal_error"
	genericToolMessage              = "tool invocation failed"
	genericInternalMessage          = "internal error"
	genericTimeoutMessage           = "the operation timed out"
	genericCanceledMessage          = "the operation was canceled"
	genericAuthNotSupportedMessage  = "this connector has no authentication flows"
	genericUnknownToolMessage       = "tool_id is not declared in the Connector Card"
	genericChannelUnknownMessage    = "connector_channel_id is unknown"
	genericChannelNotOpenMessage    = "channel.open must complete on this connection first"
	genericChannelMismatchMessage   = "connector_channel_id belongs to another connector_id"
	genericChannelIDRequiredMessage = "envelope connector_channel_id is required"
)

// Error is a protocol error with a stable machine-readable Code and a Message
// safe to send (no secret, no internal detail). Handlers and Profiles return
// it, possibly wrapped, to choose the wire code; see MapError.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message,omitempty"`
}

func (e *Error) Error() string {
	if e.Message == "" {
		return e.Code
	}
	return e.Code + ": " + e.Message
}

// Is reports equality by Code, so errors.Is(err, &Error{Code: X}) matches any
// *Error with that code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// NewError returns an *Error; a convenience for handlers and Profiles.
func NewError(code, message string) *Error { return &Error{Code: code, Message: message} }

// MapError is the one place that turns a Go error into a wire error.
// An *Error anywhere in the chain (errors.As) is returned as is; a context
// deadline becomes tool_timeout and a cancellation internal_error; anything
// else becomes fallbackCode with a generic message, never err's text, which
// may carry internal detail.
func MapError(err error, fallbackCode string) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return &Error{Code: e.Code, Message: e.Message}
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: CodeToolTimeout, Message: genericTimeoutMessage}
	case errors.Is(err, context.Canceled):
		return &Error{Code: CodeInternal, Message: genericCanceledMessage}
	}
	msg := genericInternalMessage
	if fallbackCode == CodeToolInvokeFailed {
		msg = genericToolMessage
	}
	return &Error{Code: fallbackCode, Message: msg}
}
