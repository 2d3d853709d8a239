package adb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Sentinel errors callers branch on with errors.Is.
var (
	// ErrDeviceOffline: the device is known but offline, or dropped during the
	// operation.
	ErrDeviceOffline = errors.New("adb: device offline")
	// ErrUnauthorized: USB debugging has not been authorized on the device.
	ErrUnauthorized = errors.New("adb: device unauthorized")
	// ErrDeviceNotFound: no device with that key on its adb server.
	ErrDeviceNotFound = errors.New("adb: device not found")
	// ErrBusy: the per-device wait queue is full.
	ErrBusy = errors.New("adb: device busy")
	// ErrTimeout: the operation's deadline passed. Errors carrying it also
	// match context.DeadlineExceeded.
	ErrTimeout = errors.New("adb: timeout")
	// ErrServerUnavailable: the adb server at an endpoint cannot be reached.
	ErrServerUnavailable = errors.New("adb: adb server unavailable")
	// ErrClosed: the Client was closed.
	ErrClosed = errors.New("adb: client closed")
	// ErrNotExist: the remote file or directory does not exist.
	ErrNotExist = errors.New("adb: no such file or directory")
	// ErrProtocol: the adb server or device sent something malformed.
	ErrProtocol = errors.New("adb: protocol error")
)

// DeviceError is a failure of an operation on one device. The device's key
// ("endpoint/serial") is a field, never part of the text: a serial is a
// hardware identifier that callers may not show or log, so Error() says only
// the operation and the cause, and a caller that needs the device reads Key.
type DeviceError struct {
	Key string // "endpoint/serial"
	Op  string // what was attempted, e.g. "open shell", "check online"
	Err error
}

func (e *DeviceError) Error() string { return e.Op + ": " + e.Err.Error() }

// Unwrap returns the cause, so errors.Is sees the sentinel errors.
func (e *DeviceError) Unwrap() error { return e.Err }

// ExitError is returned when a shell command exits with a non-zero status.
// The Result is returned alongside it.
type ExitError struct {
	Code   int
	Stderr []byte
}

func (e *ExitError) Error() string {
	msg := strings.TrimSpace(string(e.Stderr))
	if len(msg) > 200 {
		msg = msg[:200] + "..."
	}
	if msg == "" {
		return fmt.Sprintf("adb: command exited with status %d", e.Code)
	}
	return fmt.Sprintf("adb: command exited with status %d: %s", e.Code, msg)
}

// FailError is a FAIL answer from the adb server that maps to no sentinel.
type FailError struct {
	Message string
}

func (e *FailError) Error() string { return "adb server: " + e.Message }

// failToError maps an adb server FAIL message to a typed error.
func failToError(msg string) error {
	m := strings.ToLower(msg)
	switch {
	case strings.Contains(m, "unauthorized"), strings.Contains(m, "authorizing"):
		return fmt.Errorf("%w: %s", ErrUnauthorized, msg)
	case strings.Contains(m, "offline"), strings.Contains(m, "connecting"):
		return fmt.Errorf("%w: %s", ErrDeviceOffline, msg)
	case strings.Contains(m, "not found"), strings.Contains(m, "no devices"):
		return fmt.Errorf("%w: %s", ErrDeviceNotFound, msg)
	}
	return &FailError{Message: msg}
}

// ctxError turns a context error into our typed error; it returns err
// unchanged when ctx is still live.
func ctxError(ctx context.Context, op string, err error) error {
	cerr := ctx.Err()
	if cerr == nil {
		// A dial or read cut by the context's deadline can fail ("i/o
		// timeout") a moment before ctx.Err is set: the poller uses the
		// same instant as the context's timer. Such an error is our
		// deadline, not an unavailable server or an offline device.
		if dl, ok := ctx.Deadline(); !ok || time.Now().Before(dl) {
			return err
		}
		cerr = context.DeadlineExceeded
	}
	if errors.Is(cerr, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w (%w)", op, ErrTimeout, cerr)
	}
	return fmt.Errorf("%s: %w", op, cerr)
}
