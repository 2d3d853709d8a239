package testkit

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
)

// LogBuffer is an in-memory log sink: an io.Writer that collects what is
// written to it. Its zero value is ready to use. It is safe for concurrent
// use, so it can back a logger shared by a server's goroutines while the test
// reads it.
type LogBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed by the next Write; nil until Wait needs it
}

// Write appends p to the buffer. It never fails.
func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
	return l.b.Write(p)
}

// Wait returns true once what was written contains s, or false when ctx
// ends first: for output that another process writes on a stream of its
// own (stderr beside stdout), whose order against the other stream no
// one promises.
func (l *LogBuffer) Wait(ctx context.Context, s string) bool {
	for {
		l.mu.Lock()
		if strings.Contains(l.b.String(), s) {
			l.mu.Unlock()
			return true
		}
		if l.changed == nil {
			l.changed = make(chan struct{})
		}
		ch := l.changed
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
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
