package tools

import (
	"context"
	"time"

	"github.com/adb-connector/adb-connector/adb"
)

// Settle bounds of verify (settle_ms).
const (
	defaultSettle = 2000 * time.Millisecond
	maxSettleMS   = 30000
	// verifyPoll is the pause between fingerprints while waiting for a change.
	verifyPoll = 150 * time.Millisecond
)

// verifyArgs are the arguments every acting tool shares.
type verifyArgs struct {
	Verify   bool `json:"verify"`
	SettleMS *int `json:"settle_ms"`
}

// verifyProperties are their input_schema properties.
func verifyProperties() map[string]any {
	return map[string]any{
		"verify": map[string]any{"type": "boolean",
			"description": "After acting, wait up to settle_ms for the UI to change and report ui_changed, foreground and the new screen_id. Default false: return as soon as the phone accepted the action."},
		"settle_ms": map[string]any{"type": "integer", "minimum": 0, "maximum": maxSettleMS,
			"description": "With verify: how long to wait for the UI to change (default 2000)."},
	}
}

func (a verifyArgs) check() error {
	if a.SettleMS != nil && !a.Verify {
		return &argError{Field: "settle_ms", Reason: "applies with verify: true only"}
	}
	return nil
}

func (a verifyArgs) settle() time.Duration {
	if a.SettleMS != nil {
		return time.Duration(*a.SettleMS) * time.Millisecond
	}
	return defaultSettle
}

// Verified is what verify: true adds to an acting tool's result.
type Verified struct {
	UIChanged  bool             `json:"ui_changed"`
	Foreground statusForeground `json:"foreground"`
	ScreenID   string           `json:"screen_id"`
}

// verify waits up to settle for the UI tree to differ from before and
// reports the screen it ends on. The fingerprint is the tree's screen_id:
// it changes with any text, state, bounds or window change an agent can
// act on, and stays put for what only animates pixels (a clock, a blinking
// cursor, a spinner), which a screenshot hash would call a change.
func (t *Tools) verify(ctx context.Context, d *adb.Device, before *screen, settle time.Duration) (*Verified, error) {
	deadline := time.Now().Add(settle)
	var after *screen
	for {
		s, err := t.dump(ctx, d)
		if err != nil {
			return nil, err
		}
		after = s
		if after.id != before.id || time.Until(deadline) < verifyPoll || !sleepCtx(ctx, verifyPoll) {
			break
		}
	}
	pkg, act, err := d.ForegroundApp(ctx)
	if err != nil {
		return nil, err
	}
	return &Verified{UIChanged: after.id != before.id, Foreground: statusForeground{Package: pkg, Activity: act}, ScreenID: after.id}, nil
}

// beforeAction is the screen an acting tool compares against when verify
// is on (nil otherwise).
func (t *Tools) beforeAction(ctx context.Context, inv *invocation, a verifyArgs) (*screen, error) {
	if !a.Verify {
		return nil, nil
	}
	return t.dump(ctx, inv.dev)
}

// afterAction verifies when asked (nil otherwise).
func (t *Tools) afterAction(ctx context.Context, inv *invocation, a verifyArgs, before *screen) (*Verified, error) {
	if !a.Verify {
		return nil, nil
	}
	return t.verify(ctx, inv.dev, before, a.settle())
}
