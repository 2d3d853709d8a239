package adb

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/adb-connector/adb-connector/adb/helper"
)

// Paths an operation took (HelperCounts.Calls' key).
const (
	PathHelper = "helper"
	PathStock  = "stock"
)

// HelperOps are the operations HelperCounts.Calls counts.
var HelperOps = []string{"tree", "tap", "swipe", "key", "text", "shot"}

// HelperFailureReasons are the reasons HelperCounts.Failures counts.
var HelperFailureReasons = []string{HelperWhyStart, HelperWhyPush, HelperWhyCrashed, HelperWhyHung, HelperWhyGarbage}

// HelperCall is a key of HelperCounts.Calls: an operation ("tree", "tap",
// "swipe", "key", "text", "shot") and the path that served it.
type HelperCall struct {
	Op, Path string
}

// HelperCounts are the Client's helper counters since New, for metrics.
type HelperCounts struct {
	// Calls counts operations by op and path (PathHelper, PathStock),
	// counted once they succeeded or failed on that path.
	Calls map[HelperCall]uint64
	// Starts counts helper starts attempted (a process launched).
	Starts uint64
	// Failures counts helper failures by reason (HelperWhy...).
	Failures map[string]uint64
}

// helperCounters is the Client's counters, safe for concurrent use.
type helperCounters struct {
	mu       sync.Mutex
	calls    map[HelperCall]uint64
	starts   uint64
	failures map[string]uint64
}

func (c *helperCounters) call(op helper.Op, path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls == nil {
		c.calls = map[HelperCall]uint64{}
	}
	c.calls[HelperCall{Op: op.String(), Path: path}]++
}

func (c *helperCounters) start() {
	c.mu.Lock()
	c.starts++
	c.mu.Unlock()
}

func (c *helperCounters) failure(why string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failures == nil {
		c.failures = map[string]uint64{}
	}
	c.failures[why]++
}

// HelperCounts returns a copy of the helper counters of every device.
// Safe for concurrent use.
func (c *Client) HelperCounts() HelperCounts {
	hc := &c.helperCounts
	hc.mu.Lock()
	defer hc.mu.Unlock()
	out := HelperCounts{Calls: make(map[HelperCall]uint64, len(hc.calls)), Starts: hc.starts, Failures: make(map[string]uint64, len(hc.failures))}
	for k, v := range hc.calls {
		out.Calls[k] = v
	}
	for k, v := range hc.failures {
		out.Failures[k] = v
	}
	return out
}

// helperConfig is what a Client runs as the helper and its deadlines
// (tests shorten them and run a jar of their own).
type helperConfig struct {
	jar    []byte
	hash16 string
	path   string
	// start bounds a start until HELLO; tree, act (plus the gesture),
	// text and shot bound one request's answer.
	start, tree, act, text, shot time.Duration
}

func defaultHelperConfig() helperConfig {
	return helperConfig{jar: helper.Jar, hash16: helper.Hash16(), path: helper.PhonePath(),
		start: helperStartTimeout, tree: helperTreeTimeout, act: helperActTimeout, text: helperTextTimeout, shot: helperShotTimeout}
}

// placeholder reports whether the binary carries no real helper (a jar
// is a zip: it starts with "PK").
func (hc *helperConfig) placeholder() bool {
	return len(hc.jar) < 4 || string(hc.jar[:2]) != "PK"
}

// helperCloseTimeout bounds Client.Close's removal of the helpers.
const helperCloseTimeout = 3 * time.Second

// closeHelpers stops every device's helper and deletes its jar, in
// parallel, bounded by helperCloseTimeout: a phone that does not answer
// does not hold Close up.
func (c *Client) closeHelpers(devs []*Device) {
	ctx, cancel := context.WithTimeout(context.Background(), helperCloseTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, d := range devs {
		wg.Go(func() { d.closeHelper(ctx) })
	}
	wg.Wait()
}

// Summary is one line for an operator: "running VERSION (FEATURES)", with
// why a feature is missing, or "not running: WHY (DETAIL)".
func (s HelperStatus) Summary() string {
	switch {
	case s.Running:
		out := fmt.Sprintf("running %s on SDK %d (%s)", s.Version, s.SDK, s.Features)
		if s.Reason != "" {
			out += "; " + s.Reason
		}
		return out
	case s.Why == HelperWhyOff:
		return "off (phone_helper: off in the operator's policy)"
	case s.Why == HelperWhyIdle || s.Why == "":
		return "not running (started on first use; stopped when idle)"
	}
	out := "not running: " + s.Why
	if s.Detail != "" {
		out += " (" + s.Detail + ")"
	}
	if !s.RetryAt.IsZero() && s.Why != HelperWhySDK {
		out += "; retried after " + s.RetryAt.UTC().Format(time.TimeOnly) + " UTC"
	}
	return out
}
