package adb

import (
	"testing"
	"time"
)

// TestGeometryFresh: a geometry serves for geometryTTL whatever happens,
// then for up to geometryIdleTTL only while the device's ActionSeq is the
// one it was read under.
func TestGeometryFresh(t *testing.T) {
	t.Parallel()
	at := time.Unix(1_700_000_000, 0)
	for _, tc := range []struct {
		after time.Duration
		seq   uint64
		ok    bool
	}{
		{time.Second, 8, true},                        // within the TTL, even after an action
		{3 * time.Second, 7, true},                    // past it, no action since
		{3 * time.Second, 8, false},                   // past it, an action since
		{geometryIdleTTL - time.Millisecond, 7, true}, // no action, just under the bound
		{geometryIdleTTL, 7, false},                   // no action, but too old
		{time.Second, 7, true},                        // sanity
	} {
		if ok := geometryFresh(at, at.Add(tc.after), 7, tc.seq); ok != tc.ok {
			t.Errorf("after %v at seq %d: fresh %v, want %v", tc.after, tc.seq, ok, tc.ok)
		}
	}
	if geometryFresh(time.Time{}, at, 7, 7) {
		t.Error("a geometry never read is fresh")
	}
}
