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
	"github.com/adb-connector/adb-connector/internal/ratelimit"
)

// Ops are the operator operations the console acts through: the admin
// socket's (errors as *admin.Error carry a message fit to show; any other
// error is shown as an internal error and logged), plus reads of the live
// state. Methods are called concurrently.
type Ops interface {
	// Devices lists the devices adb sees and the bound or owing ones it
	// does not, with their holder, lease and battery.
	Devices(ctx context.Context) ([]Device, error)
	// Pair issues a one-time pairing code for the device (ttl 0: default).
	Pair(ctx context.Context, device string, ttl time.Duration) (code string, err error)
	// Approve answers a device_request code, binding its channel to the
	// device; it returns the device key.
	Approve(ctx context.Context, code, device string) (string, error)
	// Unbind revokes the device's binding; it returns the device key.
	Unbind(ctx context.Context, device string) (string, error)
	// ClearReset drops the reset the device owes; it returns the device key.
	ClearReset(ctx context.Context, device string) (string, error)
	// ResetNow starts the reset the device owes, without waiting for it;
	// it returns the device key.
	ResetNow(ctx context.Context, device string) (string, error)
	// Requests lists the device_request sessions waiting for approval.
	Requests(ctx context.Context) ([]Request, error)
	// Thumbnail is a JPEG of the device's screen, taken now, never stored.
	Thumbnail(ctx context.Context, device string) ([]byte, error)
	// Audit reads the audit trail, newest first, filtered as the `audit`
	// command filters it.
	Audit(ctx context.Context, f AuditFilter) ([]AuditRow, error)
	// Policy is the configuration in force and how its last reload went.
	Policy(ctx context.Context) Policy
}

// Device is one device on the devices page. Devices are named by Key
// ("endpoint/serial"), which every operation accepts.
type Device struct {
	admin.DeviceRow
	Key string
	// Hint is the redacted serial the audit trail stores.
	Hint string
	// Channel holds the device (Bound), since Since.
	Channel string
	Since   time.Time
	// LeaseEnds is when the binding ends unless a tool call renews it
	// (zero: unbounded), LeaseReason which bound ends it.
	LeaseEnds   time.Time
	LeaseReason string
	// Battery is the level in percent; -1 when unknown.
	Battery int
	// Helper says whether the phone helper runs, its version, and why
	// not ("" when unknown).
	Helper string
}

// Request is a device_request session waiting for an operator.
type Request struct {
	Code      string // "" when this process does not know it (after a restart)
	ChannelID string
	ExpiresAt time.Time
}

// AuditFilter selects audit rows as `adb-connector audit`'s flags do:
// Since and Until are a duration back from now (90m, 7d) or an RFC 3339
// time, Device a serial, key or hint; "" means no bound. AfterID keeps only
// rows written after that one (oldest first), for the live tail.
type AuditFilter struct {
	Since, Until, Device, Channel, Tool, Outcome string
	Limit                                        int
	AfterID                                      int64
}

// AuditRow is one audit record as the console shows it.
type AuditRow struct {
	ID         int64
	At         time.Time
	ChannelID  string
	Device     string // redacted hint
	ToolID     string
	ToolCallID string
	Args       string // redacted arguments, JSON
	Outcome    string
	Latency    time.Duration
	Replayed   bool
}

// Policy is the configuration page's content.
type Policy struct {
	// Settings are serve's settings in force (no secret: a key is "set").
	Settings []Setting
	// ConfigPath is the config file ("" none); YAML what of it is in force.
	ConfigPath string
	YAML       string
	// AppliedAt is when the file was last applied; Error why the last
	// reload was refused (since ErrorAt), "" when it was not.
	AppliedAt time.Time
	Error     string
	ErrorAt   time.Time
}

// Setting is one server setting.
type Setting struct{ Name, Value string }

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
	Ops Ops
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
	m.HandleFunc("POST /device/reset", c.action(c.deviceOp("reset", "Reset started; the state shows how it ends.", c.cfg.Ops.ResetNow)))
	m.HandleFunc("POST /device/approve", c.action(c.approve))
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
