package tools

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/internal/ratelimit"
)

// Tool error codes of the android_* tools that package connector does not
// define. Stable strings, sent in tool.invoke.ack error.code.
const (
	CodeDeviceOffline      = "device_offline"
	CodeDeviceUnauthorized = "device_unauthorized"
	CodeDeviceBusy         = "device_busy"
	codeElementNotFound    = "element_not_found"
	codeNotPermitted       = "not_permitted"
	codeAppNotInstalled    = "app_not_installed"
	CodeRateLimited        = connector.CodeRateLimited
)

// ErrNotBound: the channel holds no device (not bound, or revoked); a
// Resolver returns it and the call is answered connection_not_authenticated.
var ErrNotBound = errors.New("no device is bound to this channel")

// errNotPermitted: operator policy refuses the call (not_permitted). A
// wrapped errNotPermitted is sent with a generic message; return a
// *policyError to choose the message the agent sees.
var errNotPermitted = errors.New("not permitted by the operator's policy")

// argError is an argument that failed validation (invalid_arguments). Field
// names the argument ("x", "screen.width"; empty for the whole object) and
// Reason says what is wrong without echoing the value.
type argError struct {
	Field  string
	Reason string
}

func (e *argError) Error() string {
	if e.Field == "" {
		return "invalid arguments: " + e.Reason
	}
	return "invalid argument " + e.Field + ": " + e.Reason
}

// policyError is a call refused by policy; Message is sent to the agent.
// Rule names the kind of rule for the refusals metric (ruleTool, ...;
// empty: "policy"). It matches errNotPermitted with errors.Is.
type policyError struct {
	Message string
	Rule    string
}

func (e *policyError) Error() string { return "not permitted: " + e.Message }

// Is reports whether target is errNotPermitted.
func (e *policyError) Is(target error) bool { return target == errNotPermitted }

// Messages sent with each code. They carry no internal detail.
const (
	msgNotBound     = "no device is bound to this channel: authenticate first (device_pairing or device_request)"
	msgOffline      = "the bound device is offline (unplugged, or its adb server is down); retry when the descriptor says connected"
	msgUnauthorized = "USB debugging is not authorized on the bound device; the operator must accept the prompt on the phone"
	msgBusy         = "the device is busy with other operations; retry shortly"
	msgTimeout      = "the device did not answer in time"
	msgFailed       = "tool invocation failed"
	msgNotPermitted = "refused by the operator's policy"
	msgCanceled     = "the operation was canceled"
	msgNotInstalled = "no app with this package name is installed on the phone (android_app_list lists the installed apps)"
)

// WireError is the one mapping from device and adb errors to tool.invoke.ack
// errors (one mapping for every tool). Handlers return Go errors; this
// picks the stable code and a message safe to send: never err's own text,
// except the Field/Reason of an *argError and the Message of a *policyError
// or *connector.Error, which are written for the agent. nil maps to nil.
func WireError(err error) *connector.Error {
	if err == nil {
		return nil
	}
	var (
		ce *connector.Error
		ae *argError
		pe *policyError
		ee *elementError
		ue *uiUnavailableError
		re *ratelimit.Error
	)
	switch {
	case errors.As(err, &ce):
		return &connector.Error{Code: ce.Code, Message: ce.Message}
	case errors.As(err, &ae):
		return &connector.Error{Code: connector.CodeInvalidArguments, Message: ae.Error()}
	case errors.As(err, &ee):
		return &connector.Error{Code: ee.Code, Message: ee.Message}
	case errors.As(err, &ue):
		return &connector.Error{Code: codeUIUnavailable, Message: ue.Error()}
	case errors.As(err, &pe):
		return &connector.Error{Code: codeNotPermitted, Message: pe.Message}
	case errors.Is(err, errNotPermitted):
		return &connector.Error{Code: codeNotPermitted, Message: msgNotPermitted}
	case errors.As(err, &re):
		return &connector.Error{Code: CodeRateLimited, Message: rateLimitMessage(re.RetryAfter)}
	case errors.Is(err, ratelimit.ErrLimited):
		return &connector.Error{Code: CodeRateLimited, Message: rateLimitMessage(time.Second)}
	case errors.Is(err, ErrNotBound):
		return &connector.Error{Code: connector.CodeConnectionNotAuthenticated, Message: msgNotBound}
	case errors.Is(err, adb.ErrUnauthorized):
		return &connector.Error{Code: CodeDeviceUnauthorized, Message: msgUnauthorized}
	case errors.Is(err, adb.ErrDeviceOffline), errors.Is(err, adb.ErrDeviceNotFound),
		errors.Is(err, adb.ErrServerUnavailable):
		return &connector.Error{Code: CodeDeviceOffline, Message: msgOffline}
	case errors.Is(err, adb.ErrNotInstalled):
		return &connector.Error{Code: codeAppNotInstalled, Message: msgNotInstalled}
	case errors.Is(err, adb.ErrBusy):
		return &connector.Error{Code: CodeDeviceBusy, Message: msgBusy}
	case errors.Is(err, adb.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return &connector.Error{Code: connector.CodeToolTimeout, Message: msgTimeout}
	case errors.Is(err, context.Canceled):
		return &connector.Error{Code: connector.CodeToolInvokeFailed, Message: msgCanceled}
	}
	return &connector.Error{Code: connector.CodeToolInvokeFailed, Message: msgFailed}
}

// rateLimitMessage is the rate_limited message of tool calls, with its
// retry hint (retrySeconds).
func rateLimitMessage(retry time.Duration) string {
	return fmt.Sprintf("too many tool calls on this channel; retry after %d s", ratelimit.RetrySeconds(retry))
}
