package parse

import (
	"errors"
	"fmt"
)

// ErrFormat is wrapped by every error a parser returns for output it does not
// recognise (empty, truncated, or of an unknown shape).
var ErrFormat = errors.New("unrecognized command output")

// ErrNotFound is wrapped when the output is well formed but says the thing
// asked for does not exist (e.g. "No activity found", no resumed activity).
var ErrNotFound = errors.New("not found")

// FormatError is the error every parser returns for output it does not
// recognise. It wraps ErrFormat; callers that read several outputs for one
// answer (a status made of battery, window and power) use errors.As to see
// which one could not be read and leave that part out rather than fail.
type FormatError struct {
	// Output names the command whose output it was, e.g. "dumpsys battery".
	Output string
	// Detail says what was wrong, with at most a clipped excerpt of the
	// input.
	Detail string
}

// Error is "parse <output>: <detail>: unrecognized command output".
func (e *FormatError) Error() string {
	return fmt.Sprintf("parse %s: %s: %v", e.Output, e.Detail, ErrFormat)
}

// Unwrap returns ErrFormat.
func (e *FormatError) Unwrap() error { return ErrFormat }

// formatErr builds a *FormatError.
func formatErr(what, detail string) error {
	return &FormatError{Output: what, Detail: detail}
}

// maxInputLine bounds how much of one line ends up in an error message, so a
// huge or hostile input never produces a huge error.
const maxInputLine = 80

// clip shortens s for error messages.
func clip(s string) string {
	if len(s) > maxInputLine {
		return fmt.Sprintf("%q...", s[:maxInputLine])
	}
	return fmt.Sprintf("%q", s)
}
