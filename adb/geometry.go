package adb

import (
	"context"
	"time"
)

// The screen geometry (size and rotation) a Device last read, kept for the
// touch path's mapping and for callers that check a point against the
// screen (RecentScreenInfo): one cache per device, one freshness rule.

// geometryTTL is how long a screen geometry read by ScreenInfo or Status,
// or a rotation a UI dump showed, serves whatever happens: a burst of taps
// costs one query. A caller that observes the screen (ScreenInfo, Status,
// UIDump) before acting never waits for that query.
const geometryTTL = 2 * time.Second

// geometryIdleTTL is how long a screen geometry serves while no action
// went through this handle since it was read (ActionSeq): an agent looks
// (observe), thinks for seconds, then acts, and only an action, or the
// phone turning on its own (auto-rotate), changes the geometry. The
// second is why it is bounded.
const geometryIdleTTL = 30 * time.Second

// geometryFresh reports whether a geometry read at `at` (zero: never),
// when ActionSeq was atSeq, still serves at now, ActionSeq being seq.
func geometryFresh(at, now time.Time, atSeq, seq uint64) bool {
	age := now.Sub(at)
	return !at.IsZero() && (age < geometryTTL || atSeq == seq && age < geometryIdleTTL)
}

// noteScreen remembers a ScreenInfo read when ActionSeq was seq.
func (d *Device) noteScreen(si ScreenInfo, seq uint64) {
	d.mu.Lock()
	d.geo, d.geoAt, d.geoSeq = si, time.Now(), seq
	d.mu.Unlock()
}

// noteRotation refreshes the remembered geometry's rotation (a UI dump
// says it): the size is still the last ScreenInfo's.
func (d *Device) noteRotation(r int, seq uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.geoAt.IsZero() && r >= 0 && r <= 3 {
		d.geo.Rotation, d.geo.RotationKnown, d.geoAt, d.geoSeq = r, true, time.Now(), seq
	}
}

// RecentScreenInfo returns the screen geometry this handle last read
// (ScreenInfo, Status, a UI dump's rotation) while it is fresh: for 2 s
// whatever happens, and for up to 30 s while no action went through this
// handle since (ActionSeq); else it reads ScreenInfo. For a bounds check
// before an action, as the touch path maps its points with the same
// geometry. Default timeout: DefaultQueryTimeout. Safe for concurrent use.
func (d *Device) RecentScreenInfo(ctx context.Context) (ScreenInfo, error) {
	seq := d.actions.Load()
	d.mu.Lock()
	si, at, atSeq := d.geo, d.geoAt, d.geoSeq
	d.mu.Unlock()
	if geometryFresh(at, time.Now(), atSeq, seq) {
		return si, nil
	}
	return d.ScreenInfo(ctx)
}
