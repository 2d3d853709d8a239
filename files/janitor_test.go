package files

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestJanitorRemovesExpired runs the real janitor goroutine on synctest's
// fake clock: no sleeping on the wall clock.
func TestJanitorRemovesExpired(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, Config{TTL: 10 * time.Minute, JanitorInterval: time.Minute})
		old := e.put("ch", []byte("old"), Meta{}).FileRef
		time.Sleep(5 * time.Minute)
		young := e.put("ch", []byte("young"), Meta{}).FileRef

		time.Sleep(5*time.Minute + 30*time.Second) // the 10m tick has swept old
		synctest.Wait()
		if e.exists(old) {
			t.Fatal("janitor left an expired file")
		}
		assertLive(t, e, []string{young}, []string{old})
		if got := testutil.ToFloat64(e.st.metrics.expired); got != 1 {
			t.Fatalf("expired_total = %v, want 1", got)
		}

		time.Sleep(5 * time.Minute)
		synctest.Wait()
		assertLive(t, e, nil, []string{old, young})

		// Close stops the goroutine; the bubble would fail on a leak.
		if err := e.st.Close(); err != nil {
			t.Fatal(err)
		}
		if err := e.st.Sweep(context.Background()); err != nil {
			t.Fatalf("Sweep after Close: %v", err)
		}
	})
}
