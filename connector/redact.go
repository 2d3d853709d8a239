package connector

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
)

// redactHandler removes a secret (the API key) from every log message and
// attribute before it reaches the real handler: a last line of defence
// should a tool or library error ever quote it.
type redactHandler struct {
	inner  slog.Handler
	secret string
}

const redacted = "[REDACTED]"

func newRedactingLogger(l *slog.Logger, secret string) *slog.Logger {
	if secret == "" {
		return l
	}
	return slog.New(&redactHandler{inner: l.Handler(), secret: secret})
}

func (h *redactHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *redactHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.clean(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.inner.Handle(ctx, out)
}

func (h *redactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(as))
	for i, a := range as {
		clean[i] = h.attr(a)
	}
	return &redactHandler{inner: h.inner.WithAttrs(clean), secret: h.secret}
}

func (h *redactHandler) WithGroup(name string) slog.Handler {
	return &redactHandler{inner: h.inner.WithGroup(name), secret: h.secret}
}

func (h *redactHandler) clean(s string) string { return strings.ReplaceAll(s, h.secret, redacted) }

func (h *redactHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.clean(v.String()))
	case slog.KindGroup:
		g := v.Group()
		out := make([]any, len(g))
		for i, ga := range g {
			out[i] = h.attr(ga)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, h.clean(x.Error()))
		case fmt.Stringer:
			return slog.String(a.Key, h.clean(x.String()))
		case []string:
			c := make([]string, len(x))
			for i, s := range x {
				c[i] = h.clean(s)
			}
			return slog.Any(a.Key, c)
		}
		return slog.String(a.Key, h.clean(fmt.Sprint(v.Any())))
	}
	return slog.Attr{Key: a.Key, Value: v}
}
