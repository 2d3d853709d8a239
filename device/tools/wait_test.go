package tools

import (
	"context"
	"io"
	"testing"

	"github.com/adb-connector/adb-connector/emulator/android"
)

// TestWaitForPollsUntilDeadline checks through the real adb server that
// android_wait_for keeps looking until its deadline and answers there: a
// change the phone makes after the second look (at about 250 ms of 500) is
// seen by the look at the deadline, and a condition never met is answered
// no sooner than timeout_ms. The phone changes on a command-log signal,
// not after a sleep.
func TestWaitForPollsUntilDeadline(t *testing.T) {
	e := newToolsEnv(t, 1, func(c *Config) { c.RatePerMinute = 1 << 20 })
	ph := e.device(0).Android()
	ch := devChannel(0)
	mustOK(t, e.call(t, t.Context(), ch, "android_press_key", `{"key":"home"}`, "w1", nil), nil)
	mustOK(t, e.call(t, t.Context(), ch, "android_tap", `{"text":"Settings"}`, "w2", nil), nil)
	if pkg, _ := ph.Foreground(); pkg != "com.android.settings" {
		t.Fatalf("foreground %q, want com.android.settings", pkg)
	}

	t.Run("a change after the second look is seen at the deadline", func(t *testing.T) {
		ph.ClearCommands()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		done := make(chan error, 1)
		go func() {
			dumps := 0
			_, err := ph.WaitCommand(ctx, func(c android.Command) bool {
				if isDump(c) {
					dumps++
				}
				return dumps == 2
			})
			if err == nil {
				ph.Run(ctx, "input keyevent KEYCODE_HOME", nil, io.Discard, io.Discard)
			}
			done <- err
		}()
		var w waitResult
		mustOK(t, e.call(t, t.Context(), ch, "android_wait_for", `{"condition":"disappears","text":"Network & internet","timeout_ms":500}`, "w3", nil), &w)
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("the tool looked fewer than two times: %v", err)
		}
		if !w.Met {
			t.Errorf("gone after the second look, not seen: %+v (%d dumps)", w, uiDumps(e.device(0)))
		}
	})
	t.Run("never met is answered at the deadline", func(t *testing.T) {
		var w waitResult
		mustOK(t, e.call(t, t.Context(), ch, "android_wait_for", `{"condition":"appears","text":"No such text","timeout_ms":500}`, "w4", nil), &w)
		if w.Met || w.WaitedMS < 500 {
			t.Errorf("got %+v, want met false after waited_ms >= 500", w)
		}
	})
}

// isDump says whether c ran `uiautomator dump`.
func isDump(c android.Command) bool {
	for _, argv := range c.Argv {
		if len(argv) > 1 && argv[0] == "uiautomator" && argv[1] == "dump" {
			return true
		}
	}
	return false
}
