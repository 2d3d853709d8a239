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

// formatErr builds "parse <what>: <detail>: unrecognized command output".
func formatErr(what, detail string) error {
	return fmt.Errorf("parse %s: %s: %w", what, detail, ErrFormat)
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
