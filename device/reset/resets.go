package reset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/device/audit"
	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/device/redact"
)

// Defaults of Config.
const (
	DefaultTimeout = time.Minute
	DefaultRetry   = 5 * time.Minute
	// DefaultBaselineTimeout bounds the read of the apps running as a
	// binding begins.
	DefaultBaselineTimeout = 5 * time.Second
)

// Audit outcomes of a reset beyond "ok".
const (
	outcomeFailed = "reset_failed"
	outcomeAway   = "device_offline" // retried when the device answers
)

// tableTimeout bounds one read or write of the binding table.
const tableTimeout = 10 * time.Second

// Config configures Resets. ADB, Bindings and Audit are required.
type Config struct {
	ADB      *adb.Client
	Bindings *binding.Table
	// Audit receives one row per attempt.
	Audit *audit.Writer
	// Policy gives a device's reset; it is asked at every release and
	// reset. Nil: DefaultPolicy.
	Policy func(deviceKey string) Policy
	// Online reports whether tracking counts the device as answering.
	// Nil: never (resets wait for Answered).
	Online func(deviceKey string) bool
	// Bound reports whether the device is bound now (a baseline is kept
	// only for a bound device). Nil: never.
	Bound func(deviceKey string) bool
	// Changed is called after a reset ends and after a baseline is taken,
	// so monitors and tests re-read the state. Nil: nothing.
	Changed func()
	// Logger receives each attempt's line. Default: discard.
	Logger *slog.Logger
	// Now is the clock of the audit rows. Default time.Now.
	Now func() time.Time
	// Timeout bounds one reset. Default DefaultTimeout.
	Timeout time.Duration
	// Retry is how often failed resets of devices that answer are retried.
	// Default DefaultRetry.
	Retry time.Duration
	// BaselineTimeout bounds the baseline read. Default
	// DefaultBaselineTimeout.
	BaselineTimeout time.Duration
}

// Resets runs the resets devices owe, one at a time per device, and keeps
// each bound device's baseline (the apps running when its binding began).
// Safe for concurrent use; Close stops it and waits for its resets.
type Resets struct {
	cfg    Config
	log    *slog.Logger
	ctx    context.Context // canceled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	resets   *prometheus.CounterVec
	duration prometheus.Histogram

	mu        sync.Mutex
	closed    bool
	running   map[string]chan struct{} // device key -> closed when its running reset ends
	baselines map[string]baseline      // device key -> what the phone was as its binding began
}

// New returns Resets; Start begins its retries.
func New(cfg Config) *Resets {
	if cfg.Policy == nil {
		cfg.Policy = func(string) Policy { return DefaultPolicy() }
	}
	if cfg.Online == nil {
		cfg.Online = func(string) bool { return false }
	}
	if cfg.Bound == nil {
		cfg.Bound = func(string) bool { return false }
	}
	if cfg.Changed == nil {
		cfg.Changed = func() {}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Retry <= 0 {
		cfg.Retry = DefaultRetry
	}
	if cfg.BaselineTimeout <= 0 {
		cfg.BaselineTimeout = DefaultBaselineTimeout
	}
	r := &Resets{cfg: cfg, log: cfg.Logger, running: map[string]chan struct{}{}, baselines: map[string]baseline{},
		resets: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adb_connector_device_resets_total",
			Help: "Resets of released devices, by outcome (ok, reset_failed, device_offline).",
		}, []string{"outcome"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "adb_connector_device_reset_duration_seconds",
			Help:    "How long a reset of a released device took.",
			Buckets: []float64{0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60},
		})}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	return r
}

// Start retries, every Retry, the owed resets of devices that answer (a
// failed reset, or one whose device came back unnoticed), until Close.
func (r *Resets) Start() { r.goSafe(r.retryLoop) }

// Close stops the retries and waits for the resets and baseline reads
// running. A reset cut short stays running in the table, which the next
// start turns into pending. Idempotent.
func (r *Resets) Close() {
	r.mu.Lock()
	r.closed = true
	r.cancel()
	r.mu.Unlock()
	r.wg.Wait()
}

// Collectors returns the reset metrics: resets by outcome, their duration.
func (r *Resets) Collectors() []prometheus.Collector {
	return []prometheus.Collector{r.resets, r.duration}
}

// goSafe runs f on a goroutine Close waits for, unless Close has begun.
func (r *Resets) goSafe(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.wg.Go(f)
	}
}

// Owed is binding.Options.ResetOnRelease: a device whose policy resets
// something owes a reset, run at once when it answers, else pending.
func (r *Resets) Owed(key string) binding.ResetStatus {
	switch {
	case r.cfg.Policy(key).Empty():
		return binding.ResetNone
	case r.cfg.Online(key):
		return binding.ResetRunning
	}
	return binding.ResetPending
}

// Released is binding.Options.OnRelease: a reset owed now starts.
func (r *Resets) Released(rel binding.Release) {
	if rel.Reset == binding.ResetRunning {
		r.start(binding.Reset{DeviceKey: rel.DeviceKey, ChannelID: rel.ChannelID, Reason: rel.Reason, Status: binding.ResetRunning})
	}
}

// Bound is the binding table's bind event for a device: the baseline of
// an earlier binding goes, and one is read now when the device answers
// (else when it does, see Answered).
func (r *Resets) Bound(key string) {
	r.mu.Lock()
	delete(r.baselines, key)
	r.mu.Unlock()
	if r.cfg.Online(key) {
		r.goSafe(func() { r.takeBaseline(key) })
	}
}

// Answered runs what waits for a device to answer: a baseline for its
// binding when it has none, and the reset it owes.
func (r *Resets) Answered(key string) {
	if r.cfg.Bound(key) {
		r.mu.Lock()
		_, has := r.baselines[key]
		r.mu.Unlock()
		if !has {
			r.goSafe(func() { r.takeBaseline(key) })
		}
		return
	}
	r.RunOwed(key)
}

// Running reports whether a reset runs on the device now.
func (r *Resets) Running(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.running[key]
	return ok
}

// RunOwed starts the reset the device owes (pending or failed), if any,
// without waiting for it: the operator's "reset now", or a device back.
func (r *Resets) RunOwed(key string) { r.goSafe(func() { r.Claim(key) }) }

// HasBaseline reports whether the apps running when the device's binding
// began are known.
func (r *Resets) HasBaseline(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.baselines[key].running != nil
}

// Claim takes the reset key owes (pending or failed), if any, and starts
// it; it returns once the reset runs (Running), without waiting for its
// end.
func (r *Resets) Claim(key string) {
	if r.Running(key) {
		return
	}
	ctx, cancel := context.WithTimeout(r.ctx, tableTimeout)
	defer cancel()
	rs, ok, err := r.cfg.Bindings.ClaimReset(ctx, key, binding.ResetPending, binding.ResetFailed)
	if err != nil {
		if r.ctx.Err() == nil {
			r.log.Warn("reset claim failed", "device", redact.KeyHint(key), "err", err)
		}
		return
	}
	if ok {
		r.start(rs)
	}
}

// start runs a claimed reset on its own goroutine (one per device).
func (r *Resets) start(rs binding.Reset) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.running[rs.DeviceKey]; dup || r.closed {
		return
	}
	done := make(chan struct{})
	r.running[rs.DeviceKey] = done
	r.wg.Go(func() {
		defer func() {
			r.mu.Lock()
			delete(r.running, rs.DeviceKey)
			r.mu.Unlock()
			r.cfg.Changed()
			close(done)
		}()
		r.run(rs)
	})
}

// Wait waits, at most until ctx ends, for the resets running on the
// devices serial names (bare, or "endpoint/serial"), so a bind right after
// a release finds the device free instead of "being reset".
func (r *Resets) Wait(ctx context.Context, serial string) {
	if serial == "" {
		return
	}
	r.mu.Lock()
	var waits []chan struct{}
	for key, done := range r.running {
		if _, sr := binding.SplitKey(key); key == serial || sr == serial {
			waits = append(waits, done)
		}
	}
	r.mu.Unlock()
	for _, w := range waits {
		select {
		case <-w:
		case <-ctx.Done():
			return
		}
	}
}

// run resets one device and records the outcome: the debt goes on
// success, becomes failed (needs-reset) on failure, pending again when the
// device went away. Resets closing mid-reset leaves it running, which the
// next start turns into pending.
func (r *Resets) run(rs binding.Reset) {
	start := r.cfg.Now()
	pol := r.cfg.Policy(rs.DeviceKey)
	ctx, cancel := context.WithTimeout(r.ctx, r.cfg.Timeout)
	defer cancel()
	var rep report
	if d, err := r.cfg.ADB.Device(rs.DeviceKey); err != nil {
		rep.step("device", err)
	} else {
		r.mu.Lock()
		base := r.baselines[rs.DeviceKey]
		r.mu.Unlock()
		rep = resetDevice(ctx, d, pol, base)
	}
	if r.ctx.Err() != nil {
		return
	}
	fctx, fcancel := context.WithTimeout(context.WithoutCancel(r.ctx), tableTimeout)
	defer fcancel()
	hint := redact.KeyHint(rs.DeviceKey)
	// The log line and the audit row come before the outcome is recorded:
	// once the device is free, its reset is on file.
	outcome, to, why := audit.OutcomeOK, binding.ResetNone, ""
	switch {
	case rep.away:
		outcome, to = outcomeAway, binding.ResetPending
		r.log.Info("reset postponed until the device answers", "device", hint, "reason", rs.Reason)
	case len(rep.failed) > 0:
		outcome, to, why = outcomeFailed, binding.ResetFailed, errors.Join(rep.errs...).Error()
		r.log.Warn("reset failed; the device is not handed out until a reset succeeds or the operator clears it",
			"device", hint, "reason", rs.Reason, "failed", strings.Join(rep.failed, ","), "err", why)
	default:
		r.mu.Lock()
		delete(r.baselines, rs.DeviceKey)
		r.mu.Unlock()
		r.log.Info("device reset", "device", hint, "reason", rs.Reason, "stopped", len(rep.stopped), "cleared", len(rep.cleared))
	}
	took := r.cfg.Now().Sub(start)
	r.resets.WithLabelValues(outcome).Inc()
	r.duration.Observe(took.Seconds())
	r.audit(fctx, rs, pol, rep, outcome, took)
	if err := r.cfg.Bindings.FinishReset(fctx, rs.DeviceKey, to == binding.ResetNone, to, why); err != nil {
		r.log.Warn("reset outcome not recorded", "device", hint, "err", err)
	}
}

// audit writes the reset's audit row: counts and step names only.
func (r *Resets) audit(ctx context.Context, rs binding.Reset, p Policy, rep report, outcome string, took time.Duration) {
	args := map[string]any{
		"reason": rs.Reason, "home": p.Home, "force_stopped": len(rep.stopped), "cleared": len(rep.cleared), "uninstalled": len(rep.uninstalled),
		"delete_files": p.DeleteFiles, "screen_off": p.ScreenOff,
	}
	if len(rep.failed) > 0 {
		args["failed"] = strings.Join(rep.failed, ",")
	}
	b, _ := json.Marshal(args)
	err := r.cfg.Audit.Write(ctx, audit.Record{
		At: r.cfg.Now(), ChannelID: rs.ChannelID, DeviceHint: redact.KeyHint(rs.DeviceKey), ToolID: audit.ResetToolID,
		Args: b, Outcome: outcome, Latency: took,
	})
	if err != nil {
		r.log.Warn("reset audit row not written", "err", err)
	}
}

// baseline is what a phone was as its binding began.
type baseline struct {
	// running are the packages running, so a reset can tell the apps the
	// binding launched.
	running []string
	// rotation are the rotation settings, which a reset puts back (nil:
	// unknown).
	rotation *adb.RotationSettings
	// userApps are the user-installed packages, taken when the policy
	// uninstalls what the binding installed (nil: not taken or unknown).
	userApps []string
}

// takeBaseline records the packages running on a device and its rotation
// settings as its binding begins.
func (r *Resets) takeBaseline(key string) {
	d, err := r.cfg.ADB.Device(key)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(r.ctx, r.cfg.BaselineTimeout)
	defer cancel()
	running, err := d.RunningPackages(ctx)
	if err != nil {
		r.log.Debug("running apps unknown at bind", "device", redact.KeyHint(key), "err", err)
		return
	}
	base := baseline{running: running}
	if rot, err := d.RotationSettings(ctx); err == nil {
		base.rotation = &rot
	}
	if r.cfg.Policy(key).UninstallInstalled {
		base.userApps, _ = userPackages(ctx, d)
	}
	if r.cfg.Bound(key) {
		r.mu.Lock()
		r.baselines[key] = base
		r.mu.Unlock()
	}
	r.cfg.Changed()
}

// retryLoop retries, every Retry, the owed resets of devices that answer.
func (r *Resets) retryLoop() {
	t := time.NewTicker(r.cfg.Retry)
	defer t.Stop()
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(r.ctx, tableTimeout)
		owed, err := r.cfg.Bindings.Resets(ctx)
		cancel()
		if err != nil {
			continue
		}
		for _, rs := range owed {
			if rs.Status != binding.ResetRunning && r.cfg.Online(rs.DeviceKey) {
				r.Claim(rs.DeviceKey)
			}
		}
	}
}

// report is what one reset did.
type report struct {
	stopped     []string
	cleared     []string
	uninstalled []string
	failed      []string // steps that failed, in order
	errs        []error
	away        bool // the device stopped answering: retried when it answers
}

func (r *report) step(name string, err error) {
	if err == nil {
		return
	}
	r.failed = append(r.failed, name)
	r.errs = append(r.errs, fmt.Errorf("%s: %w", name, err))
	if errors.Is(err, adb.ErrDeviceOffline) || errors.Is(err, adb.ErrDeviceNotFound) ||
		errors.Is(err, adb.ErrServerUnavailable) || errors.Is(err, adb.ErrUnauthorized) {
		r.away = true
	}
}
