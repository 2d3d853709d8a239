package testkit

import (
	"bytes"
	"log/slog"
	"sync"
)

// LogBuffer is an in-memory log sink: an io.Writer that collects what is
// written to it. Its zero value is ready to use. It is safe for concurrent
// use, so it can back a logger shared by a server's goroutines while the test
// reads it.
type LogBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p to the buffer. It never fails.
func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns everything written so far.
func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TextLogger returns a Debug-level logger that writes slog text lines
// (key=value) to l.
func (l *LogBuffer) TextLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// JSONLogger returns a Debug-level logger that writes one JSON object per
// line to l.
func (l *LogBuffer) JSONLogger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
