package tools

import (
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb"
)

// TestScreenCacheHeldUntilAction: a geometry serves for the TTL whatever
// happens, then for up to adb.GeometryIdleTTL only while the device's
// ActionSeq is the one it was read under.
func TestScreenCacheHeldUntilAction(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	c := newScreenCache(2*time.Second, func() time.Time { return now })
	si := adb.ScreenInfo{Width: 1080, Height: 2400}
	c.put("k", si, 7)
	for _, tc := range []struct {
		after time.Duration
		seq   uint64
		ok    bool
	}{
		{time.Second, 8, true},                            // within the TTL, even after an action
		{3 * time.Second, 7, true},                        // past it, no action since
		{3 * time.Second, 8, false},                       // past it, an action since
		{adb.GeometryIdleTTL - time.Millisecond, 7, true}, // no action, just under the bound
		{adb.GeometryIdleTTL, 7, false},                   // no action, but too old
		{time.Second, 7, true},                            // sanity
	} {
		now = time.Unix(1_700_000_000, 0).Add(tc.after)
		if _, ok := c.get("k", tc.seq); ok != tc.ok {
			t.Errorf("after %v at seq %d: cached %v, want %v", tc.after, tc.seq, ok, tc.ok)
		}
	}
	if _, ok := c.get("other", 7); ok {
		t.Error("a device never read is cached")
	}
}
