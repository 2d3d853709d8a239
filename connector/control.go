package connector

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/adb-connector/adb-connector/internal/buildinfo"
)

// Health is the GET /health body (§4.3).
type Health struct {
	Status          string         `json:"status"`
	CardID          string         `json:"connector_card_id"`
	CardVersion     string         `json:"connector_card_version"`
	ProtocolVersion string         `json:"protocol_version"`
	Build           buildinfo.Info `json:"build"`
}

func (s *Server) routes() {
	s.mux.HandleFunc("GET /connector-card.json", s.serveCard)
	s.mux.HandleFunc("GET /skill.md", s.serveSkill)
	s.mux.Handle("GET /health", s.RequireAPIKey(http.HandlerFunc(s.serveHealth)))
	s.mux.Handle("GET /metrics", s.RequireAPIKey(promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{Registry: s.reg})))
	s.mux.Handle("GET /ws", s.RequireAPIKey(http.HandlerFunc(s.serveWS)))
}

func (s *Server) serveCard(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.card)
}

func (s *Server) serveSkill(w http.ResponseWriter, r *http.Request) {
	if len(s.cfg.Skill) == 0 {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.Write(s.cfg.Skill)
}

func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, Health{
		Status:          "ok",
		CardID:          s.card.CardID,
		CardVersion:     s.card.Connector.Version,
		ProtocolVersion: s.card.ProtocolVersion,
		Build:           s.card.Build,
	})
}

// RequireAPIKey wraps h so that, when an API key is configured, a request
// without "Authorization: Bearer <key>" gets 401 and one with a wrong key 403
// (§4.3). The comparison is constant-time over SHA-256 digests, so neither
// content nor length leaks. With no key configured h is returned unchanged.
func (s *Server) RequireAPIKey(h http.Handler) http.Handler {
	if s.cfg.APIKey == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		scheme, tok, ok := strings.Cut(auth, " ")
		if auth == "" || !ok || !strings.EqualFold(scheme, "Bearer") {
			s.metrics.authFailures.WithLabelValues("missing").Inc()
			w.Header().Set("WWW-Authenticate", `Bearer realm="adb-connector"`)
			http.Error(w, "missing API key", http.StatusUnauthorized)
			return
		}
		got := sha256.Sum256([]byte(strings.TrimSpace(tok)))
		if subtle.ConstantTimeCompare(got[:], s.keyHash[:]) != 1 {
			s.metrics.authFailures.WithLabelValues("wrong").Inc()
			http.Error(w, "wrong API key", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}
