package tools

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/ask"
	"github.com/adb-connector/adb-connector/device/audit"
	"github.com/adb-connector/adb-connector/device/policy"
	"github.com/adb-connector/adb-connector/files"
	"github.com/adb-connector/adb-connector/internal/ratelimit"
	"github.com/adb-connector/adb-connector/store"
)

// profileID is the Device Profile every android_* tool belongs to.
const profileID = "xagent.device.v1"

// skillID is the primary Skill the tools point agents to.
const skillID = "connector-device-adb"

// Resolver finds the device bound to a channel. device.Service
// implements it; tests use a resolver over adbtest devices.
type Resolver interface {
	// DeviceFor returns the bound, online, authorized device of channelID,
	// or an error: ErrNotBound (=> connection_not_authenticated),
	// adb.ErrDeviceOffline (=> device_offline), adb.ErrUnauthorized
	// (=> device_unauthorized). It must be safe for concurrent use.
	DeviceFor(ctx context.Context, channelID string) (*adb.Device, Meta, error)
}

// Meta describes the resolved device for audit rows, logs and metrics.
type Meta struct {
	Key   string // "endpoint/serial": internal only, never sent nor logged
	Model string
	// Manufacturer is ro.product.manufacturer, when known (policy tags
	// match on it).
	Manufacturer string
	Hint         string // redacted display hint (SerialHint), never the full serial
	// Transport is how tracking last saw the device attached (usb, tcp).
	Transport adb.Transport
}

// Defaults of Config.
const (
	DefaultRatePerMinute  = 120
	defaultProgressAfter  = time.Second
	defaultIdempotencyTTL = 24 * time.Hour
	// maxArgumentsBytes bounds tool.invoke arguments; larger is invalid_arguments.
	maxArgumentsBytes = 64 << 10
)

// Config configures Tools. Resolver and DB are required; the zero value
// of every other field means its default.
type Config struct {
	// Resolver maps a channel to its bound device. Required.
	Resolver Resolver
	// Files stores screenshots. When nil, android_screenshot is not
	// registered (a tool is in the Card only if it works).
	Files *files.Store
	// DB holds the audit trail and the idempotency records. Required.
	DB *store.DB
	// Logger receives Debug lines per call and Warn lines for unexpected
	// failures. Default: discard.
	Logger *slog.Logger
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// RatePerMinute is the per-channel tool call budget (token bucket, burst
	// of the same size). Default DefaultRatePerMinute.
	RatePerMinute int
	// ProgressAfter is when a running call starts sending tool.progress.push
	// (then once per ProgressAfter until the ack). Default 1 s.
	ProgressAfter time.Duration
	// IdempotencyTTL is how long a completed call's ack is kept for repeated
	// tool_call_ids. Default 24 h.
	IdempotencyTTL time.Duration
	// Audit writes the calls' audit rows (shared with the resets, so one
	// writer prunes the trail). Nil: one on DB with AuditRetention.
	Audit *audit.Writer
	// AuditRetention is how long audit rows are kept when Audit is nil.
	// Default audit.DefaultRetention.
	AuditRetention time.Duration
	// URLSchemes are the URL schemes android_open_url may open (the
	// operator's policy; others are not_permitted). Default
	// http and https.
	URLSchemes []string
	// MaxRecordDuration caps android_screen_record's duration_ms (the
	// operator's policy). Default 30 s; at most
	// adb.MaxScreenRecord, screenrecord's own limit.
	MaxRecordDuration time.Duration
	// Questions is the board android_ask_operator puts its questions on,
	// which the operator API answers (device.Service.Questions). Nil: a
	// board of its own, whose questions nobody answers (they time out).
	Questions *ask.Board
	// Policy, when set, is the operator's config file in force: per
	// device, the tools offered, package and URL rules, the rate, caps and
	// text input (checkPolicy). Nil: none, Config's values apply.
	Policy *policy.Holder
}

// Tools is the android_* tool set and the tool.invoke pipeline that runs
// them (validation, idempotency, rate limit, progress, audit). Safe for
// concurrent use.
type Tools struct {
	cfg     Config
	log     *slog.Logger
	defs    []*toolDef
	idem    *idempotency
	limit   *ratelimit.Limiter
	rates   rateLimiters // per policy rate
	trees   treeCache
	ui      uiCache     // each phone's last dump, for an acting call's ref
	sent    sentScreens // the screens each channel received, for since
	shelf   shelfCache  // the shelf's APKs as read (appinstall.go)
	metrics *toolMetrics
	// persistTimeout bounds writing a call's audit row and idempotency
	// record (defaultPersistTimeout; tests shorten it).
	persistTimeout time.Duration
	// afterHook, when set (tests), replaces time.After for
	// android_ask_operator's timeout.
	afterHook func(time.Duration) <-chan time.Time

	audit *audit.Writer
}

// toolDef is one tool: its Card declaration, the schema compiled from the
// very input_schema the Card publishes, and how to run and audit it.
type toolDef struct {
	tool   connector.Tool // Handler is set by add
	schema *compiledSchema
	// run executes the call on the resolved device.
	run func(ctx context.Context, inv *invocation) (any, error)
	// needsDevice is false only for test tools that run without a device.
	needsDevice bool
	// readOnly: the tool never acts on the phone. Every other call takes
	// the phone's cached UI tree out before it runs (uicache.go).
	readOnly bool
	// ownProgress: run sends its own tool.progress.push (saying what it
	// waits for) instead of the pipeline's generic one.
	ownProgress bool
	// args is the type run decodes the arguments into (declare); nil for
	// test tools.
	args reflect.Type
}

// New checks cfg and builds the tool set. It starts no goroutine.
func New(cfg Config) (*Tools, error) {
	if cfg.Resolver == nil {
		return nil, errors.New("device tools: nil Resolver")
	}
	if cfg.DB == nil {
		return nil, errors.New("device tools: nil DB")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.RatePerMinute <= 0 {
		cfg.RatePerMinute = DefaultRatePerMinute
	}
	if cfg.ProgressAfter <= 0 {
		cfg.ProgressAfter = defaultProgressAfter
	}
	if cfg.IdempotencyTTL <= 0 {
		cfg.IdempotencyTTL = defaultIdempotencyTTL
	}
	if cfg.Audit == nil {
		cfg.Audit = audit.NewWriter(cfg.DB.Write, cfg.AuditRetention, cfg.Now)
	}
	if cfg.Questions == nil {
		cfg.Questions = ask.NewBoard()
	}
	if cfg.MaxRecordDuration <= 0 {
		cfg.MaxRecordDuration = defaultMaxRecord
	}
	cfg.MaxRecordDuration = min(max(cfg.MaxRecordDuration, minRecordMS*time.Millisecond), adb.MaxScreenRecord)
	t := &Tools{
		cfg:     cfg,
		log:     cfg.Logger,
		idem:    newIdempotency(cfg.DB, cfg.IdempotencyTTL, cfg.Now),
		limit:   ratelimit.New(ratelimit.Rate{Burst: cfg.RatePerMinute, Per: time.Minute}),
		metrics: newToolMetrics(),
		audit:   cfg.Audit,

		persistTimeout: defaultPersistTimeout,
	}
	for _, spec := range toolSpecs {
		if !spec.offered(cfg.Set()) {
			continue
		}
		if err := t.add(spec.build(t)); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// Set is the optional part of a deployment's tool set: a tool is in the
// Card only if it works there.
type Set struct {
	// Files: a file store exists, so android_screenshot is offered.
	Files bool
	// Shell: the operator's config enables android_shell for some phones
	// (the Card is built once, at start).
	Shell bool
	// Install, Uninstall: the operator's config names a shelf of APKs,
	// allows uninstalling, for some phones.
	Install, Uninstall bool
}

// FullSet is the set with every optional tool: the whole catalogue (the
// tool ids a policy may name).
func FullSet() Set { return Set{Files: true, Shell: true, Install: true, Uninstall: true} }

// Set is the optional part of the tool set c offers: what New registers
// and IDs(c.Set()) lists, the one decision of both.
func (c Config) Set() Set {
	cur := c.Policy.Current()
	return Set{Files: c.Files != nil, Shell: cur.ShellEnabled(), Install: cur.InstallEnabled(), Uninstall: cur.UninstallEnabled()}
}

// toolSpecs is the catalogue: every tool in Card order, and when it is
// offered. Adding a tool is a file with its build function and a line here.
var toolSpecs = []struct {
	build   func(*Tools) *toolDef
	offered func(Set) bool
}{
	{statusTool, always},
	{screenshotTool, func(s Set) bool { return s.Files }},
	{tapTool, always},
	{uiElementsTool, always},
	{waitTool, always},
	{observeTool, func(s Set) bool { return s.Files }},
	{keyTool, always},
	{typeTool, always},
	{swipeTool, always},
	{pinchTool, always},
	{rotateTool, always},
	{notificationsTool, always},
	{clipboardTool, always},
	{appListTool, always},
	{appLaunchTool, always},
	{appStopTool, always},
	{appInstallTool, func(s Set) bool { return s.Install }},
	{appUninstallTool, func(s Set) bool { return s.Uninstall }},
	{permissionTool, always},
	{openURLTool, always},
	{recordTool, func(s Set) bool { return s.Files }},
	{logcatTool, always},
	{shellTool, func(s Set) bool { return s.Shell }},
	{askTool, always},
	{batchTool, always},
}

func always(Set) bool { return true }

// IDs returns the ids of the tools offered with s, in Card order, known
// without a running Service or Tools: the Descriptor's tools[] are wired
// from it before either exists (IDs(cfg.Set()) with the Config New gets).
func IDs(s Set) []string {
	var ids []string
	var t Tools
	for _, spec := range toolSpecs {
		if spec.offered(s) {
			ids = append(ids, spec.build(&t).tool.ID)
		}
	}
	return ids
}

// add compiles d's published input_schema and appends it.
func (t *Tools) add(d *toolDef) error {
	s, err := compileInputSchema(d.tool.ID, connector.WithConnectorChannelIDInputSchema(d.tool.InputSchema))
	if err != nil {
		return fmt.Errorf("device tools: %w", err)
	}
	d.schema = s
	d.tool.Profile = profileID
	d.tool.RelatedSkillIDs = []string{skillID}
	d.tool.Handler = t.handler(d)
	t.defs = append(t.defs, d)
	return nil
}

// Register adds the tools to reg in Card order (toolSpecs).
func (t *Tools) Register(reg *connector.Registry) error {
	for _, d := range t.defs {
		if err := reg.Register(d.tool); err != nil {
			return err
		}
	}
	return nil
}

// IDs returns the registered tool ids in Card order (for the Descriptor).
func (t *Tools) IDs() []string {
	ids := make([]string, len(t.defs))
	for i, d := range t.defs {
		ids[i] = d.tool.ID
	}
	return ids
}
