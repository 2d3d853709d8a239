package device

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/device/audit"
	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/device/redact"
)

// Resets: every release of a bound device (logout, a closed channel,
// operator unbind, a lease's end) owes the phone a reset under its
// ResetPolicy before anyone binds it again. The binding table records the
// debt in the release's transaction and refuses binds while it stands
// (binding.ErrResetting, binding.ErrNeedsReset). A device away at the
// release is reset when it answers; a failed reset is retried when the
// device comes back and every ResetRetry, until it succeeds or the operator
// clears it. Each attempt is an audit row (tool "reset") and a log line.

// Defaults of the reset settings.
const (
	DefaultResetTimeout = time.Minute
	DefaultResetRetry   = 5 * time.Minute
)

// Audit outcomes of a reset beyond "ok".
const (
	outcomeResetFailed = "reset_failed"
	outcomeResetAway   = "device_offline" // retried when the device answers
)

// notLaunched are packages a reset never force-stops: the system's own.
var notLaunched = []string{"android", "com.android.systemui", "com.android.phone"}

// resetOwed is binding.Options.ResetOnRelease: a device whose policy
// resets something owes a reset, run now when it answers, else pending.
func (s *Service) resetOwed(key string) binding.ResetStatus {
	if s.leasePolicy(key).Reset.empty() {
		return binding.ResetNone
	}
	s.mu.RLock()
	pres, _ := s.presenceLocked(key)
	s.mu.RUnlock()
	if pres == PresenceOnline {
		return binding.ResetRunning
	}
	return binding.ResetPending
}

// released is binding.Options.OnRelease: a reset owed now starts.
func (s *Service) released(r binding.Release) {
	if r.Reset == binding.ResetRunning {
		s.startReset(binding.Reset{DeviceKey: r.DeviceKey, ChannelID: r.ChannelID, Reason: r.Reason, Status: binding.ResetRunning})
	}
}

// deviceAnswered runs what waits for a device to answer: a baseline for
// its binding when it has none, and the reset it owes.
func (s *Service) deviceAnswered(key string) {
	s.mu.RLock()
	_, bound := s.byDevice[key]
	_, hasBase := s.baselines[key]
	s.mu.RUnlock()
	if bound && !hasBase {
		s.goSafe(func() { s.takeBaseline(key) })
	}
	if !bound {
		s.goSafe(func() { s.claimReset(key) })
	}
}

// claimReset runs the reset key owes (pending or failed), if any.
func (s *Service) claimReset(key string) {
	if s.resetRunning(key) {
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	r, ok, err := s.bindings.ClaimReset(ctx, key, binding.ResetPending, binding.ResetFailed)
	if err != nil {
		if s.ctx.Err() == nil {
			s.log.Warn("reset claim failed", "device", redact.KeyHint(key), "err", err)
		}
		return
	}
	if ok {
		s.startReset(r)
	}
}

func (s *Service) resetRunning(key string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.resetting[key]
	return ok
}

// startReset runs a claimed reset on its own goroutine (one per device).
func (s *Service) startReset(r binding.Reset) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.resetting[r.DeviceKey]; dup || s.ctx.Err() != nil {
		return
	}
	done := make(chan struct{})
	s.resetting[r.DeviceKey] = done
	s.wg.Go(func() {
		defer func() {
			s.mu.Lock()
			delete(s.resetting, r.DeviceKey)
			s.notifyLocked()
			s.mu.Unlock()
			close(done)
		}()
		s.runReset(r)
	})
}

// waitResets waits, at most until ctx ends, for the resets running on the
// devices serial names (bare, or "endpoint/serial"), so a bind right after
// a release finds the device free instead of "being reset".
func (s *Service) waitResets(ctx context.Context, serial string) {
	if serial == "" {
		return
	}
	s.mu.RLock()
	var waits []chan struct{}
	for key, done := range s.resetting {
		if _, sr := binding.SplitKey(key); key == serial || sr == serial {
			waits = append(waits, done)
		}
	}
	s.mu.RUnlock()
	for _, w := range waits {
		select {
		case <-w:
		case <-ctx.Done():
			return
		}
	}
}

// resetReport is what one reset did.
type resetReport struct {
	stopped []string
	cleared []string
	failed  []string // steps that failed, in order
	errs    []error
	away    bool // the device stopped answering: retried when it answers
}

func (r *resetReport) step(name string, err error) {
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

// runReset resets one device and records the outcome: the debt goes on
// success, becomes failed (needs-reset) on failure, pending again when the
// device went away. A Service closing mid-reset leaves it running, which
// the next start turns into pending.
func (s *Service) runReset(r binding.Reset) {
	start := s.cfg.Now()
	pol := s.leasePolicy(r.DeviceKey).Reset
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.ResetTimeout)
	defer cancel()
	var rep resetReport
	if d, err := s.cfg.ADB.Device(r.DeviceKey); err != nil {
		rep.step("device", err)
	} else {
		s.mu.RLock()
		base := s.baselines[r.DeviceKey]
		s.mu.RUnlock()
		rep = resetDevice(ctx, d, pol, base)
	}
	if s.ctx.Err() != nil {
		return
	}
	fctx, fcancel := context.WithTimeout(context.WithoutCancel(s.ctx), 10*time.Second)
	defer fcancel()
	// The log line and the audit row come before the outcome is recorded:
	// once the device is free, its reset is on file.
	outcome, to, why := audit.OutcomeOK, binding.ResetNone, ""
	switch {
	case rep.away:
		outcome, to = outcomeResetAway, binding.ResetPending
		s.log.Info("reset postponed until the device answers", "device", redact.KeyHint(r.DeviceKey), "reason", r.Reason)
	case len(rep.failed) > 0:
		outcome, to, why = outcomeResetFailed, binding.ResetFailed, errors.Join(rep.errs...).Error()
		s.log.Warn("reset failed; the device is not handed out until a reset succeeds or the operator clears it",
			"device", redact.KeyHint(r.DeviceKey), "reason", r.Reason, "failed", strings.Join(rep.failed, ","), "err", why)
	default:
		s.mu.Lock()
		delete(s.baselines, r.DeviceKey)
		s.mu.Unlock()
		s.log.Info("device reset", "device", redact.KeyHint(r.DeviceKey), "reason", r.Reason,
			"stopped", len(rep.stopped), "cleared", len(rep.cleared))
	}
	took := s.cfg.Now().Sub(start)
	s.metrics.resets.WithLabelValues(outcome).Inc()
	s.metrics.resetDur.Observe(took.Seconds())
	s.auditReset(fctx, r, pol, rep, outcome, took)
	if err := s.bindings.FinishReset(fctx, r.DeviceKey, to == binding.ResetNone, to, why); err != nil {
		s.log.Warn("reset outcome not recorded", "device", redact.KeyHint(r.DeviceKey), "err", err)
	}
}

// resetDevice runs the policy's steps on d, each whatever the others did:
// a failed step must not leave the rest undone. base is the packages
// running when the binding began (nil: unknown, then only the app in front
// counts as launched).
func resetDevice(ctx context.Context, d *adb.Device, p ResetPolicy, base []string) resetReport {
	var rep resetReport
	var front string
	if p.ForceStopLaunched {
		pkg, _, err := d.ForegroundApp(ctx)
		rep.step("foreground", err)
		front = pkg
	}
	if p.Home {
		rep.step("home", d.KeyEvent(ctx, "KEYCODE_HOME"))
	}
	if p.ForceStopLaunched && !rep.away {
		launched, err := launchedApps(ctx, d, front, base, p.Home)
		rep.step("find_launched", err)
		for _, pkg := range launched {
			err := d.ForceStop(ctx, pkg)
			rep.step("force_stop", err)
			if err == nil {
				rep.stopped = append(rep.stopped, pkg)
			}
		}
	}
	for _, pkg := range p.ClearPackages {
		if rep.away {
			break
		}
		ok, err := d.Installed(ctx, pkg)
		if err == nil && ok {
			err = d.ClearData(ctx, pkg)
			if err == nil {
				rep.cleared = append(rep.cleared, pkg)
			}
		}
		rep.step("clear", err)
	}
	if p.DeleteFiles && !rep.away {
		rep.step("delete_files", d.RemoveTempFiles(ctx))
	}
	if p.ScreenOff && !rep.away {
		rep.step("screen_off", d.KeyEvent(ctx, "KEYCODE_SLEEP"))
	}
	return rep
}

// launchedApps are the apps to stop: those with a launcher entry that run
// now and did not when the binding began, and front (the app that was in
// front at the release), never the system nor the launcher: after HOME it
// is in front; without HOME it ran when the binding began, so front is
// kept only when that is not so (or unknown).
func launchedApps(ctx context.Context, d *adb.Device, front string, base []string, pressedHome bool) ([]string, error) {
	var cands []string
	if front != "" && (pressedHome || base == nil || !slices.Contains(base, front)) {
		cands = append(cands, front)
	}
	if base != nil {
		running, err := d.RunningPackages(ctx)
		if err != nil {
			return nil, err
		}
		for _, p := range running {
			if !slices.Contains(base, p) && !slices.Contains(cands, p) {
				cands = append(cands, p)
			}
		}
	}
	home := ""
	if pressedHome {
		var err error
		if home, _, err = d.ForegroundApp(ctx); err != nil {
			return nil, err
		}
	}
	cands = slices.DeleteFunc(cands, func(p string) bool { return p == home || slices.Contains(notLaunched, p) })
	if len(cands) == 0 {
		return nil, nil
	}
	apps, err := d.Launchable(ctx, cands)
	if err != nil {
		return nil, err
	}
	cands = slices.DeleteFunc(cands, func(p string) bool { return !apps[p] })
	slices.Sort(cands)
	return cands, nil
}

// takeBaseline records the packages running on a device as its binding
// begins, so a reset can tell the apps the binding launched.
func (s *Service) takeBaseline(key string) {
	d, err := s.cfg.ADB.Device(key)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.ProbeTimeout)
	defer cancel()
	running, err := d.RunningPackages(ctx)
	if err != nil {
		s.log.Debug("running apps unknown at bind", "device", redact.KeyHint(key), "err", err)
		return
	}
	s.mu.Lock()
	if _, bound := s.byDevice[key]; bound {
		s.baselines[key] = running
	}
	s.notifyLocked()
	s.mu.Unlock()
}

// retryLoop retries, every ResetRetry, the owed resets of devices that
// answer (a failed reset, or one whose device came back unnoticed).
func (s *Service) retryLoop() {
	t := time.NewTicker(s.cfg.ResetRetry)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
		owed, err := s.bindings.Resets(ctx)
		cancel()
		if err != nil {
			continue
		}
		for _, r := range owed {
			s.mu.RLock()
			pres, _ := s.presenceLocked(r.DeviceKey)
			s.mu.RUnlock()
			if pres == PresenceOnline && r.Status != binding.ResetRunning {
				s.claimReset(r.DeviceKey)
			}
		}
	}
}

// auditReset writes the reset's audit row: counts and step names only.
func (s *Service) auditReset(ctx context.Context, r binding.Reset, p ResetPolicy, rep resetReport, outcome string, took time.Duration) {
	args := map[string]any{
		"reason": r.Reason, "home": p.Home, "force_stopped": len(rep.stopped), "cleared": len(rep.cleared),
		"delete_files": p.DeleteFiles, "screen_off": p.ScreenOff,
	}
	if len(rep.failed) > 0 {
		args["failed"] = strings.Join(rep.failed, ",")
	}
	b, _ := json.Marshal(args)
	err := s.cfg.Audit.Write(ctx, audit.Record{
		At: s.cfg.Now(), ChannelID: r.ChannelID, DeviceHint: redact.KeyHint(r.DeviceKey), ToolID: audit.ResetToolID,
		Args: b, Outcome: outcome, Latency: took,
	})
	if err != nil {
		s.log.Warn("reset audit row not written", "err", err)
	}
}
