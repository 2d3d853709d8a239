package admin

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"time"
)

// The admin socket: operator commands (adb-connector devices | pair |
// approve | unbind | reset | requests | answer | decline) reach the
// running server over a Unix socket in the data directory. File
// permissions are the access control: the socket is 0600, owned by the
// user running serve. The server is the only database writer.
//
// Wire format: one JSON object per line each way.
//
//	-> {"op":"devices"}
//	<- {"ok":true,"devices":[{"serial":"...","endpoint":"...","state":"device","model":"...","bound":false}]}
//	-> {"op":"pair","serial":"R58M123ABC","ttl":"15m"}
//	<- {"ok":true,"code":"7K3M-Q9XD"}
//	-> {"op":"approve","code":"K7Q-M2X","serial":""}
//	<- {"ok":true,"device":"127.0.0.1:5037/R58M123ABC"}
//	-> {"op":"unbind","serial":"R58M123ABC"}
//	<- {"ok":true,"device":"127.0.0.1:5037/R58M123ABC"}
//	-> {"op":"clear_reset","serial":"R58M123ABC"}
//	<- {"ok":true,"device":"127.0.0.1:5037/R58M123ABC"}
//	-> {"op":"reset","serial":"R58M123ABC"}
//	<- {"ok":true,"device":"127.0.0.1:5037/R58M123ABC"}
//	-> {"op":"questions"}
//	<- {"ok":true,"questions":[{"id":"q3","channel":"cch_…","message":"...","expect":"text",...}]}
//	-> {"op":"answer","id":"q3","text":"482913"}
//	<- {"ok":true,"device":"127.0.0.1:5037/R58M123ABC"}
//	-> {"op":"decline","id":"q3"}
//	<- {"ok":true,"device":"127.0.0.1:5037/R58M123ABC"}
//	<- {"error":{"code":"device_in_use","message":"device is in use by another channel"}}

// SocketName is the admin socket's file name in the data directory.
const SocketName = "admin.sock"

// SocketPath returns the admin socket's path for a data directory.
func SocketPath(dataDir string) string { return filepath.Join(dataDir, SocketName) }

// Admin operations.
const (
	OpDevices = "devices"
	OpPair    = "pair"
	OpApprove = "approve"
	OpUnbind  = "unbind"
	// OpClearReset drops the reset a device owes (failed or not yet run),
	// so it is handed out again.
	OpClearReset = "clear_reset"
	// OpReset starts the reset a device owes (failed or not yet run) at
	// once.
	OpReset = "reset"
	// OpQuestions lists the agents' open questions (android_ask_operator);
	// OpAnswer answers one (with a text or none), OpDecline declines it.
	OpQuestions = "questions"
	OpAnswer    = "answer"
	OpDecline   = "decline"
)

// DeviceRow.Reset values: the reset a device owes since its last release.
const (
	ResetPending = "reset-pending" // released while away: reset when it answers
	ResetRunning = "resetting"
	ResetNeeded  = "needs-reset" // the reset failed: not handed out until one succeeds or it is cleared
)

// maxLine bounds one request or response line.
const maxLine = 1 << 20

// DeviceRow is one device as `adb-connector devices` shows it.
type DeviceRow struct {
	Serial   string `json:"serial"`
	Endpoint string `json:"endpoint"`
	State    string `json:"state"` // adb's word: device, offline, unauthorized, ...
	Model    string `json:"model"`
	Bound    bool   `json:"bound"`
	// Holder is the channel that holds a bound device (nil when free).
	Holder *Holder `json:"holder,omitempty"`
	// Tags are the device's tags under the operator's config file.
	Tags []string `json:"tags,omitempty"`
	// Reset is the reset the device owes ("" none, ResetPending,
	// ResetRunning, ResetNeeded); such a device is not handed out.
	Reset string `json:"reset,omitempty"`
	// ResetError says why the last reset failed.
	ResetError string `json:"reset_error,omitempty"`
}

// Holder is who holds a bound device, as an operator needs it to decide
// whether to take it back.
type Holder struct {
	// Channel is the holder's short label (redact.ChannelLabel), as the
	// audit shows it; ChannelID the whole connector_channel_id.
	Channel   string `json:"channel"`
	ChannelID string `json:"channel_id"`
	// Connected says whether the channel is open on a live xAgent
	// connection; LinkSince since when it is, or since when it is gone
	// (zero: not known, the server cannot tell).
	Connected bool      `json:"connected"`
	LinkSince time.Time `json:"link_since,omitzero"`
	// BoundSince is when the binding began.
	BoundSince time.Time `json:"bound_since,omitzero"`
	// LeaseEnds is when the binding ends unless a tool call renews it
	// (zero: its lease bounds nothing); LeaseReason which bound ends it
	// (idle_timeout, max_duration).
	LeaseEnds   time.Time `json:"lease_ends,omitzero"`
	LeaseReason string    `json:"lease_reason,omitempty"`
	// LastTool is the holder's last tool call on the device, at
	// LastCallAt, with its outcome ("ok" or an error code); "" none yet.
	LastTool    string    `json:"last_tool,omitempty"`
	LastCallAt  time.Time `json:"last_call_at,omitzero"`
	LastOutcome string    `json:"last_outcome,omitempty"`
}

// Question is an agent's open question to the operator, as `adb-connector
// requests` shows it.
type Question struct {
	ID string `json:"id"`
	// Channel is the asking channel's short label, ChannelID the whole id.
	Channel   string `json:"channel"`
	ChannelID string `json:"channel_id"`
	// Device is the phone the channel holds ("endpoint/serial").
	Device  string `json:"device"`
	Message string `json:"message"`
	// Expect is "done", "text" or "" (either).
	Expect   string    `json:"expect,omitempty"`
	AskedAt  time.Time `json:"asked_at"`
	Deadline time.Time `json:"deadline"`
}

// Request is one request line on the admin socket.
type Request struct {
	Op     string `json:"op"`
	Serial string `json:"serial,omitempty"`
	Code   string `json:"code,omitempty"`
	TTL    string `json:"ttl,omitempty"` // Go duration, e.g. "15m"; empty means the default
	// Force (pair, approve) acts on a device another channel holds, which
	// is refused without it (device_in_use): pair issues the code anyway
	// (it works once the device is free), approve revokes the holder's
	// binding first, as unbind does.
	Force bool `json:"force,omitempty"`
	// ID names a question (answer, decline); Text is the answer's text
	// ("" none), never logged.
	ID   string `json:"id,omitempty"`
	Text string `json:"text,omitempty"`
}

// Response is one response line: OK with the op's result, or Error.
type Response struct {
	OK      bool        `json:"ok,omitempty"`
	Devices []DeviceRow `json:"devices,omitempty"`
	// Questions answers OpQuestions (never omitted then: [] when none).
	Questions []Question `json:"questions,omitempty"`
	Code      string     `json:"code,omitempty"`   // pair: the one-time code
	Device    string     `json:"device,omitempty"` // approve, unbind: "endpoint/serial"
	Error     *Error     `json:"error,omitempty"`
}

// Error is a failed admin request: a stable code and a message safe to print.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Err is the server-side cause (errors.Is sees through it); it never
	// travels.
	Err error `json:"-"`
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the server-side cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// Handler answers admin requests; an error that is an *Error reaches the
// operator as it is, any other is answered "internal" and logged. The
// operator API (package operator) implements it and checks every operand
// (a device named, a code): this package only frames them. Methods are
// called concurrently.
type Handler interface {
	Devices(ctx context.Context) ([]DeviceRow, error)
	// Pair issues a one-time pairing code for the device (ttl 0: default);
	// force takes it from the channel that holds it (Request.Force).
	Pair(ctx context.Context, serial string, ttl time.Duration, force bool) (code string, err error)
	// Approve answers a device_request code; it returns the bound device
	// key. force as for Pair.
	Approve(ctx context.Context, code, serial string, force bool) (deviceKey string, err error)
	// Unbind revokes the device's binding; it returns the device key.
	Unbind(ctx context.Context, serial string) (deviceKey string, err error)
	// ClearReset drops the reset the device owes; it returns the device key.
	ClearReset(ctx context.Context, serial string) (deviceKey string, err error)
	// Reset starts the reset the device owes, without waiting for it; it
	// returns the device key.
	Reset(ctx context.Context, serial string) (deviceKey string, err error)
	// Questions lists the agents' open questions, oldest first.
	Questions(ctx context.Context) ([]Question, error)
	// Answer answers question id with text ("" none); Decline declines
	// it. Both return the device the question was about.
	Answer(ctx context.Context, id, text string) (deviceKey string, err error)
	Decline(ctx context.Context, id string) (deviceKey string, err error)
}

// Bounds of operator input: longer is invalid_argument (the Handler
// checks them).
const (
	MaxSerialLen = 256
	MaxCodeLen   = 64
)

// Admin error codes a Handler's *Error may carry (stable strings the CLI
// and scripts branch on).
const (
	CodeInvalidArgument = "invalid_argument"
	CodeUnknownDevice   = "unknown_device"
	CodeAmbiguousSerial = "ambiguous_serial"
	CodeDeviceInUse     = "device_in_use"
	CodeChannelBound    = "channel_bound"
	CodeNotBound        = "not_bound"
	CodeInvalidCode     = "invalid_code"
	CodeNoFreeDevice    = "no_free_device"
	CodeResetting       = "resetting"
	CodeNeedsReset      = "needs_reset"
	CodeNoReset         = "no_reset"
	// CodeUnknownQuestion: no open question has the id (answered,
	// declined, withdrawn, or never asked).
	CodeUnknownQuestion = "unknown_question"
	CodeInternal        = "internal"
)

// invalid is a request refused before it reaches the Handler.
func invalid(msg string) *Error {
	return &Error{Code: CodeInvalidArgument, Message: "invalid argument: " + msg}
}

// ErrSocketInUse: another live server already answers on the socket.
var ErrSocketInUse = errors.New("admin socket is in use by a running server")

// DecodeRequest parses one request line: a JSON object with a known op
// and, for pair, a ttl that is a positive duration. Its operands go to the
// Handler as they came, which checks them.
func DecodeRequest(line []byte) (Request, time.Duration, error) {
	var req Request
	if err := json.Unmarshal(line, &req); err != nil {
		return Request{}, 0, invalid("request is not a JSON object")
	}
	var ttl time.Duration
	switch req.Op {
	case OpDevices, OpApprove, OpUnbind, OpClearReset, OpReset, OpQuestions, OpAnswer, OpDecline:
	case OpPair:
		if req.TTL != "" {
			d, err := time.ParseDuration(req.TTL)
			if err != nil || d <= 0 {
				return Request{}, 0, invalid("ttl must be a positive duration such as 15m")
			}
			ttl = d
		}
	default:
		return Request{}, 0, invalid("unknown op")
	}
	return req, ttl, nil
}

// errorFor is the wire form of a Handler's error: its *Error as it is, or
// "internal" without the detail.
func errorFor(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeInternal, Message: "internal error, see the server log"}
}
