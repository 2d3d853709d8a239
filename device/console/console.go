package console

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/operator"
	"github.com/adb-connector/adb-connector/internal/ratelimit"
)

// Defaults of Config.
const (
	DefaultSessionTTL = 12 * time.Hour
	DefaultRefresh    = 2 * time.Second
	// maxSessions bounds the sessions kept; the oldest goes first.
	maxSessions = 256
	// maxForm bounds a POST body.
	maxForm = 16 << 10
)

// Config configures a Console. Ops and Token are required; the zero value
// of every other field means its default.
type Config struct {
	// Ops is the operator API the console acts through, as the CLI does
	// over the admin socket: its *admin.Error messages are fit to show;
	// any other error is shown as an internal error and logged.
	Ops *operator.API
	// Token is the operator's token, asked for at login.
	Token string
	// Logger receives logins, actions and internal errors (never a token,
	// a code or a session id). Default: discard.
	Logger *slog.Logger
	// SessionTTL is how long a login lasts. Default DefaultSessionTTL.
	SessionTTL time.Duration
	// Refresh is how often the pages' script refreshes live parts and
	// visible thumbnails. Default DefaultRefresh.
	Refresh time.Duration
	// LoginRate bounds login attempts per remote address. Default 10 a
	// minute.
	LoginRate ratelimit.Rate
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Console is the console's http.Handler. Safe for concurrent use.
type Console struct {
	cfg      Config
	log      *slog.Logger
	pages    map[string]*template.Template
	mux      *http.ServeMux
	sessions *sessions
	logins   *ratelimit.Limiter
}

// New returns the console over cfg.Ops.
func New(cfg Config) (*Console, error) {
	if cfg.Ops == nil {
		return nil, errors.New("console: nil Ops")
	}
	if cfg.Token == "" {
		return nil, errors.New("console: empty operator token")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = DefaultSessionTTL
	}
	if cfg.Refresh <= 0 {
		cfg.Refresh = DefaultRefresh
	}
	if cfg.LoginRate == (ratelimit.Rate{}) {
		cfg.LoginRate = ratelimit.Rate{Burst: 10, Per: time.Minute}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	c := &Console{cfg: cfg, log: cfg.Logger, sessions: newSessions(cfg.Now, cfg.SessionTTL),
		logins: ratelimit.New(cfg.LoginRate)}
	var err error
	if c.pages, err = parsePages(); err != nil {
		return nil, err
	}
	c.routes()
	return c, nil
}

func (c *Console) routes() {
	static, _ := fs.Sub(staticFS, "static")
	m := http.NewServeMux()
	m.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	m.HandleFunc("GET /login", c.loginPage)
	m.HandleFunc("POST /login", c.login)
	m.HandleFunc("POST /logout", c.action(c.logout))
	m.HandleFunc("GET /{$}", c.page(c.devicesPage))
	m.HandleFunc("GET /device", c.page(c.devicePage))
	m.HandleFunc("GET /thumb", c.part(c.thumb))
	m.HandleFunc("POST /device/pair", c.action(c.pair))
	m.HandleFunc("POST /device/unbind", c.action(c.deviceOp("unbind", "Unbound; the phone is being reset.", c.cfg.Ops.Unbind)))
	m.HandleFunc("POST /device/clear-reset", c.action(c.deviceOp("clear reset", "Reset cleared; the phone is handed out again.", c.cfg.Ops.ClearReset)))
	m.HandleFunc("POST /device/reset", c.action(c.deviceOp("reset", "Reset started; the state shows how it ends.", c.cfg.Ops.Reset)))
	m.HandleFunc("POST /device/approve", c.action(c.approve))
	m.HandleFunc("POST /question/answer", c.action(c.answer))
	m.HandleFunc("POST /question/decline", c.action(c.decline))
	m.HandleFunc("GET /audit", c.page(c.auditPage))
	m.HandleFunc("GET /audit/tail", c.part(c.auditTail))
	m.HandleFunc("GET /policy", c.page(c.policyPage))
	c.mux = m
}

// ServeHTTP sets the security headers every answer carries and routes.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// Nothing but this server: no inline script or style, no framing, no
	// form posted elsewhere, no plugin.
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "+
		"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	if r.TLS != nil {
		h.Set("Strict-Transport-Security", "max-age=31536000")
	}
	c.mux.ServeHTTP(w, r)
}

// userError is what the operator is shown of a failed operation: an
// admin error's message, else a generic line (the cause is logged).
func (c *Console) userError(op string, err error) string {
	var ae *admin.Error
	if errors.As(err, &ae) {
		return ae.Message
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return op + ": timed out"
	}
	c.log.Error("console "+op+" failed", "err", err)
	return fmt.Sprintf("%s failed: internal error, see the server log", op)
}
