package connector

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/adb-connector/adb-connector/store"
)

// Config configures a Server. The zero value of every optional field means
// the default documented on it. Card, DB are required.
type Config struct {
	// Card is the static part of the Connector Card; Tools come from Registry.
	Card CardConfig
	// Registry holds the tools; nil means no tools.
	Registry *Registry
	// Profile gives channels their meaning; nil means every channel stays
	// "created" and auth.* answers auth_not_supported.
	Profile Profile
	// DB persists connectors and channels (store migrations 0010-0019).
	DB *store.DB
	// APIKey, when non-empty, is required as "Authorization: Bearer <key>" on
	// /health, /metrics and /ws. Never logged.
	APIKey string
	// Skill is the primary SKILL.md served at /skill.md; empty means 204.
	Skill []byte
	// LeaseGrace is how long a connector_id survives with no data plane
	// (§8.2). Default 1h.
	LeaseGrace time.Duration
	// Logger receives structured logs; nil discards them.
	Logger *slog.Logger
	// MaxInFlight bounds concurrent control requests (channel.*,
	// descriptor.get, auth.*) per connection; the reader waits when it is
	// reached. These are short and never wait behind tool calls, which have
	// bounds of their own. Default 64.
	MaxInFlight int
	// MaxToolCalls bounds tool calls in flight per connection; beyond it a
	// tool.invoke is answered rate_limited at once, never by pausing the
	// reader (xAgent carries every user on one socket). Default 1024.
	MaxToolCalls int
	// MaxChannelToolCalls bounds tool calls in flight per channel, so one
	// user's slow phone cannot take the connection's whole budget; beyond
	// it a tool.invoke is answered rate_limited at once. Default 16.
	MaxChannelToolCalls int
	// WriteQueue is the per-connection outbound queue length. Default 256.
	WriteQueue int
	// WriteTimeout bounds one frame write and the wait for room in a full
	// queue; a peer that does not read within it is disconnected. Default 10s.
	WriteTimeout time.Duration
	// ReadLimit is the largest accepted frame; larger closes with 1009.
	// Default MaxPacketBytes (1 MiB).
	ReadLimit int64
	// HelloTimeout closes (1008) a socket that has not completed
	// connector.hello this long after it opened, so idle sockets cannot pile
	// up. Default 30s.
	HelloTimeout time.Duration
}

// Server is a Connector Server: an http.Handler for the control plane and
// /ws, plus the connector_id/channel state. Safe for concurrent use. Create
// with New, stop with Shutdown.
type Server struct {
	cfg     Config
	card    Card
	log     *slog.Logger
	reg     *prometheus.Registry
	metrics *metrics
	mux     *http.ServeMux
	ids     *ids
	keyHash [32]byte
	state   *state
	// tools are the Card's tools, fixed at New: a tool registered later is
	// not declared, so tool.invoke answers tool_not_found for it.
	tools map[string]Tool

	baseCtx    context.Context
	cancelBase context.CancelFunc
	inflight   sync.WaitGroup // request handlers
	connsWG    sync.WaitGroup // connection goroutines

	mu       sync.Mutex
	conns    map[*conn]struct{}
	draining bool
	// channelCalls counts tool calls in flight per channel id, across the
	// sockets of its connector_id (MaxChannelToolCalls). Entries at zero
	// are deleted.
	channelCalls map[string]int
}

// New builds the Card, validates it (a bad Card is an error: the server must
// not start), loads persisted connectors and channels and starts their lease
// timers (§8.2: restored channels with no hello within the grace are released).
func New(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.DB == nil {
		return nil, errors.New("connector: Config.DB is required")
	}
	if cfg.LeaseGrace <= 0 {
		cfg.LeaseGrace = time.Hour
	}
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = 64
	}
	if cfg.MaxToolCalls <= 0 {
		cfg.MaxToolCalls = 1024
	}
	if cfg.MaxChannelToolCalls <= 0 {
		cfg.MaxChannelToolCalls = 16
	}
	if cfg.WriteQueue <= 0 {
		cfg.WriteQueue = 256
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 10 * time.Second
	}
	if cfg.ReadLimit <= 0 {
		cfg.ReadLimit = MaxPacketBytes
	}
	if cfg.HelloTimeout <= 0 {
		cfg.HelloTimeout = 30 * time.Second
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	log = newRedactingLogger(log, cfg.APIKey)
	card := BuildCard(cfg.Card, cfg.Registry)
	card.Security.APIKeyRequired = cfg.APIKey != ""
	if err := ValidateCard(&card); err != nil {
		return nil, err
	}
	s := &Server{
		cfg:   cfg,
		card:  card,
		log:   log,
		reg:   prometheus.NewRegistry(),
		mux:   http.NewServeMux(),
		ids:   newIDs(),
		conns: map[*conn]struct{}{},

		channelCalls: map[string]int{},
		tools:        make(map[string]Tool, len(card.Tools)),
	}
	for _, ct := range card.Tools {
		if t, ok := cfg.Registry.Lookup(ct.ToolID); ok {
			s.tools[t.ID] = t
		}
	}
	if cfg.APIKey != "" {
		s.keyHash = sha256.Sum256([]byte(cfg.APIKey))
	}
	s.baseCtx, s.cancelBase = context.WithCancel(context.Background())
	s.metrics = newMetrics(s.reg)
	s.state = newState(s)
	if err := s.state.load(ctx); err != nil {
		s.cancelBase()
		return nil, fmt.Errorf("connector: load state: %w", err)
	}
	s.routes()
	if cfg.APIKey == "" {
		log.Warn("NO API KEY CONFIGURED: /health, /metrics and /ws are open to anyone who can reach this address",
			"security.api_key_required", false)
	}
	return s, nil
}

// Card returns the validated Connector Card as served.
func (s *Server) Card() Card { return s.card }

// Registry returns the Prometheus registry behind /metrics, for other
// packages' collectors.
func (s *Server) Registry() *prometheus.Registry { return s.reg }

// Handle mounts an extra handler on the server's mux (e.g. GET
// /files/refs/{file_ref}), with http.ServeMux pattern syntax. It adds no
// authentication; wrap with RequireAPIKey for endpoints only xAgent may call.
// Call before serving.
func (s *Server) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// ServeHTTP serves the control plane, /ws and mounted handlers.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Shutdown stops accepting requests on open sockets, waits for in-flight
// requests until ctx is done (then cancels them), closes every socket with
// 1001 going away after flushing queued acks, and waits for all goroutines it
// started. Lease timers stop without expiring: persisted state survives for
// the next start. It does not close the DB. Idempotent.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.draining = true
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.inflight.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
		s.cancelBase()
		<-done
	}
	s.cancelBase()
	s.mu.Lock()
	for c := range s.conns {
		c.close(statusGoingAway, "server shutting down")
	}
	s.mu.Unlock()
	s.connsWG.Wait()
	s.state.stopTimers()
	return err
}
