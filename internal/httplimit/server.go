package httplimit

import (
	"log/slog"
	"net/http"
)

// Server returns an http.Server for h with the Listener's timeouts and its
// ConnState hook; serve it with hs.Serve(l). net/http's own errors (TLS
// junk, accept retries) go to the Logger at Debug.
func (l *Listener) Server(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: l.cfg.ReadHeaderTimeout,
		ReadTimeout:       l.cfg.ReadTimeout,
		WriteTimeout:      l.cfg.WriteTimeout,
		IdleTimeout:       l.cfg.IdleTimeout,
		ConnState:         l.connState,
		ErrorLog:          slog.NewLogLogger(l.log.Handler(), slog.LevelDebug),
	}
}
