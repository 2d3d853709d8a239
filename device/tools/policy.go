package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/adb-connector/adb-connector/device/policy"
	"github.com/adb-connector/adb-connector/internal/ratelimit"
)

// The operator's policy in the pipeline (Config.Policy): after the device
// is resolved and before the tool runs, checkPolicy refuses what the
// device's policy does not allow, with not_permitted and a reason the agent
// can read, counted by rule; the pipeline writes the audit row as for
// every call. Checks that need the phone (the app in front) run only when
// the policy has something to check.

// Rules of adb_connector_policy_refusals_total (a bounded label set).
const (
	ruleTool          = "tool"          // the tool is not offered on the device
	ruleTextInput     = "text_input"    // typing is off
	ruleNotifications = "notifications" // android_notifications is off
	ruleClipboard     = "clipboard"     // android_clipboard is off or write-only
	ruleAskOperator   = "ask_operator"  // android_ask_operator is off
	rulePackage       = "package"       // android_app_launch of a package the policy refuses
	ruleForeground    = "foreground"    // acting while a denied package is in front
	ruleURLScheme     = "url_scheme"
	ruleURLHost       = "url_host"
	ruleMaxRecord     = "max_record"
	rulePolicy        = "policy" // a policyError without a rule
)

// actingTools touch the phone's UI: none runs while a denied package is in
// front. Launching or stopping an app or opening a URL leaves the app in
// front, and so do the keys in leavingKeys, so they stay allowed: an agent
// that found itself on such a screen can get away from it.
var actingTools = map[string]bool{
	"android_tap": true, "android_swipe": true, "android_pinch": true, "android_type_text": true, "android_press_key": true,
}

var leavingKeys = map[string]bool{"home": true, "back": true, "app_switch": true}

// effective is the policy of the resolved device; nil without a policy.
func (t *Tools) effective(m Meta) *policy.Effective {
	if t.cfg.Policy == nil || m.Key == "" {
		return nil
	}
	return t.cfg.Policy.For(policy.DeviceFromKey(m.Key, m.Model, m.Manufacturer))
}

// allow applies the per-channel rate: the policy's, else Config's.
func (t *Tools) allow(eff *policy.Effective, channelID string) (bool, time.Duration) {
	lim := t.limit
	if eff != nil && eff.RatePerMinute > 0 && eff.RatePerMinute != t.cfg.RatePerMinute {
		lim = t.rates.get(eff.RatePerMinute)
	}
	return lim.Allow(t.cfg.Now(), channelID)
}

// rateLimiters are the limiters of the policies' rates, one per rate (a
// handful: one per policy).
type rateLimiters struct {
	mu sync.Mutex
	m  map[int]*ratelimit.Limiter
}

func (r *rateLimiters) get(perMinute int) *ratelimit.Limiter {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[int]*ratelimit.Limiter{}
	}
	l := r.m[perMinute]
	if l == nil {
		l = ratelimit.New(ratelimit.Rate{Burst: perMinute, Per: time.Minute})
		r.m[perMinute] = l
	}
	return l
}

func refuse(rule, format string, args ...any) *policyError {
	return &policyError{Rule: rule, Message: fmt.Sprintf(format, args...)}
}

// checkPolicy refuses a call the device's policy does not allow, before
// the tool runs. It may rewrite inv.raw to apply a cap (screenshot size).
func (t *Tools) checkPolicy(ctx context.Context, d *toolDef, inv *invocation) error {
	eff := inv.policy
	if inv.dev != nil {
		// phone_helper: the device's policy now (a reload may have changed it).
		inv.dev.SetHelper(eff.HelperOn())
	}
	if eff == nil {
		return nil
	}
	id := d.tool.ID
	if !eff.Offers(id) {
		return refuse(ruleTool, "%s is not offered on this device by the operator's policy (the Descriptor lists it not_supported)", id)
	}
	var args map[string]any
	if err := json.Unmarshal(inv.raw, &args); err != nil || args == nil {
		args = map[string]any{}
	}
	str := func(k string) string { s, _ := args[k].(string); return s }
	switch id {
	case "android_type_text":
		if !eff.TextInput {
			return refuse(ruleTextInput, "typing text is not allowed on this device by the operator's policy")
		}
	case "android_app_launch":
		if r := eff.LaunchRefusal(str("package")); r != "" {
			return refuse(rulePackage, "%s; nothing was started", r)
		}
	case "android_clipboard":
		if r := clipboardRefusal(eff, str("action")); r != "" {
			return refuse(ruleClipboard, "%s", r)
		}
	case "android_notifications":
		if !eff.Notifications {
			return refuse(ruleNotifications, "reading the notifications is not allowed on this device by the operator's policy")
		}
	case "android_ask_operator":
		if !eff.AskOperator {
			return refuse(ruleAskOperator, "asking the operator is not allowed on this device by the operator's policy")
		}
	case "android_permission":
		if r := eff.LaunchRefusal(str("package")); r != "" {
			return refuse(rulePackage, "%s; no permission was changed", r)
		}
	case policy.UninstallToolID:
		if r := eff.LaunchRefusal(str("package")); r != "" {
			return refuse(rulePackage, "%s; nothing was uninstalled", r)
		}
	case "android_open_url":
		if err := checkURLPolicy(eff, str("url")); err != nil {
			return err
		}
	case "android_screen_record":
		// A device whose policy sets no cap keeps the default one, even when
		// another policy's longer cap widened the published schema.
		limit := cmp.Or(eff.MaxRecord, defaultMaxRecord)
		if ms, ok := args["duration_ms"].(float64); ok && time.Duration(ms)*time.Millisecond > limit {
			return refuse(ruleMaxRecord, "the operator's policy caps recordings on this device at duration_ms %d", limit.Milliseconds())
		}
	case "android_screenshot", "android_observe":
		if capSide := eff.MaxScreenshotSide; capSide > 0 {
			side, ok := args["max_side"].(float64)
			if !ok && id == "android_observe" {
				side, ok = observeMaxSide, true // its default, when within the cap
			}
			if !ok || int(side) > capSide {
				// Scaled down rather than refused: the agent still sees
				// the screen, at the size the operator allows.
				args["max_side"] = capSide
				if b, err := json.Marshal(args); err == nil {
					inv.raw = b
				}
			}
		}
	}
	if actingTools[id] && !(id == "android_press_key" && leavingKeys[str("key")]) {
		if err := t.checkForeground(ctx, eff, inv); err != nil {
			return err
		}
	}
	return nil
}

// checkForeground refuses to act while a denied package is in front; it
// asks the phone only when the policy denies some package.
func (t *Tools) checkForeground(ctx context.Context, eff *policy.Effective, inv *invocation) error {
	if !eff.HasDenyList() {
		return nil
	}
	pkg, _, err := inv.dev.ForegroundApp(ctx)
	if err != nil {
		return err
	}
	if p, denied := eff.DeniedPackage(pkg); denied {
		return refuse(ruleForeground, "%s is in front, and the operator's policy forbids acting in it (rule %q); "+
			"nothing was done. Leave it (android_press_key home or back) or ask the user", pkg, p)
	}
	return nil
}

// checkURLPolicy applies the policy's schemes and hosts to a URL that
// parses (one that does not is the tool's invalid_arguments).
func checkURLPolicy(eff *policy.Effective, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return nil
	}
	scheme := strings.ToLower(u.Scheme)
	if !slices.Contains(eff.Schemes, scheme) {
		return refuse(ruleURLScheme, "URLs of scheme %q are not allowed on this device by the operator's policy (allowed: %s); nothing was opened",
			scheme, strings.Join(eff.Schemes, ", "))
	}
	if h := u.Hostname(); h != "" && !eff.HostAllowed(h) {
		return refuse(ruleURLHost, "the operator's policy does not allow opening %s on this device (allowed hosts: %s); nothing was opened",
			h, strings.Join(eff.Hosts, ", "))
	}
	return nil
}

// schemesFor is the URL schemes android_open_url allows for this call: the
// device policy's, else Config's.
func (t *Tools) schemesFor(inv *invocation) []string {
	if inv.policy != nil {
		return inv.policy.Schemes
	}
	return t.urlSchemes()
}

// refusals counts policy refusals by tool and rule.
func newRefusals() *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "adb_connector_policy_refusals_total",
		Help: "Tool calls refused with not_permitted by the operator's policy, by tool and rule.",
	}, []string{"tool", "rule"})
}
