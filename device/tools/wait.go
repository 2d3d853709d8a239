package tools

import (
	"context"
	"errors"
	"time"
)

// android_wait_for conditions and bounds.
const (
	conditionAppears    = "appears"
	conditionDisappears = "disappears"
	conditionIdle       = "idle"

	defaultWaitTimeout = 5000 * time.Millisecond
	minWaitTimeoutMS   = 100
	maxWaitTimeoutMS   = 60000
	defaultStableCount = 2
	maxStableCount     = 10
	// waitPoll is the pause between two looks at the screen.
	waitPoll = 250 * time.Millisecond
)

// waitResult is android_wait_for's result. Not meeting the condition in
// time is a result (met false), not an error.
type waitResult struct {
	Met      bool     `json:"met"`
	WaitedMS int64    `json:"waited_ms"`
	Element  *element `json:"element,omitempty"`   // appears: the element that appeared
	ScreenID string   `json:"screen_id,omitempty"` // of the last screen looked at, for the element's ref
}

// waitArgs are android_wait_for's arguments: a condition, the selector
// fields flat (appears, disappears), a timeout and, for idle, how many
// equal trees in a row count as idle.
type waitArgs struct {
	Condition   string `json:"condition"`
	TimeoutMS   *int   `json:"timeout_ms"`
	StableCount *int   `json:"stable_count"`
	selector
}

func waitTool(t *Tools) *toolDef {
	props := selectorProperties()
	props["condition"] = map[string]any{"type": "string", "enum": []any{conditionAppears, conditionDisappears, conditionIdle},
		"description": "appears / disappears: until an element matching the selector is on screen / gone; idle: until the UI tree is the same stable_count times in a row."}
	props["timeout_ms"] = map[string]any{"type": "integer", "minimum": minWaitTimeoutMS, "maximum": maxWaitTimeoutMS,
		"description": "How long to wait at most (default 5000)."}
	props["stable_count"] = map[string]any{"type": "integer", "minimum": 2, "maximum": maxStableCount,
		"description": "idle: equal trees in a row (default 2)."}
	delete(props, "ref")
	delete(props, "screen_id")
	return declare(t, decl[waitArgs]{
		id: "android_wait_for", title: "Wait for the Android screen",
		props: props, required: []string{"condition"}, readOnly: true, run: (*Tools).runWait,
		// idle, or a selector without ref (a ref names an element
		// of one screen, never one still to come).
		anyOf: append([]any{map[string]any{"properties": map[string]any{"condition": map[string]any{"const": conditionIdle}}}},
			requiredAnyOf([]string{"text"}, []string{"resource_id"}, []string{"content_desc"})...),
		description: "Waits until an element appears or disappears (text, resource_id or content_desc, compared by " +
			"match, index among several) or the screen is idle (the UI tree unchanged stable_count times in a row), " +
			"at most timeout_ms. Sends progress while waiting. The result says met true or false, waited_ms, and " +
			"for appears the element with the screen_id of its ref. Not meeting the condition is a result, not an " +
			"error. Read-only.",
	})
}

func (t *Tools) runWait(ctx context.Context, inv *invocation, a waitArgs) (_ any, err error) {
	var sel *compiled
	switch {
	case a.Condition == conditionIdle && (!a.selector.empty() || a.Index != nil || a.Match != ""):
		return nil, &argError{Field: "condition", Reason: "idle takes no selector"}
	case a.Condition != conditionIdle && a.StableCount != nil:
		return nil, &argError{Field: "stable_count", Reason: "applies to condition idle only"}
	case a.Condition != conditionIdle:
		if sel, err = a.selector.compile(""); err != nil {
			return nil, err
		}
	}
	timeout, stable := defaultWaitTimeout, defaultStableCount
	if a.TimeoutMS != nil {
		timeout = time.Duration(*a.TimeoutMS) * time.Millisecond
	}
	if a.StableCount != nil {
		stable = *a.StableCount
	}
	start := time.Now()
	deadline := start.Add(timeout)
	// A dump that starts just before the deadline may finish a moment
	// after it; none starts later.
	ctx, cancel := context.WithDeadline(ctx, deadline.Add(time.Second))
	defer cancel()
	var (
		res  waitResult
		last string
		same int
	)
	for {
		s, err := t.dump(ctx, inv.dev)
		var ue *uiUnavailableError
		switch {
		case errors.As(err, &ue):
			// An animating screen is not idle and shows nothing yet.
			last, same = "", 0
		case err != nil:
			return nil, err
		default:
			res.ScreenID = s.id
			res.Met, res.Element = t.waitMet(s, a.Condition, sel)
			if a.Condition == conditionIdle {
				if s.id == last {
					same++
				} else {
					last, same = s.id, 1
				}
				res.Met = same >= stable
			}
		}
		// Look until the deadline and once at it: the last pause is only
		// what is left, so a change in the last poll interval is seen.
		left := time.Until(deadline)
		if res.Met || left <= 0 || !sleepCtx(ctx, min(waitPoll, left)) {
			break
		}
	}
	res.WaitedMS = time.Since(start).Milliseconds()
	return res, nil
}

// waitMet says whether an appears or disappears condition holds on s, and
// the element that appeared (the first match, or the one index names).
func (t *Tools) waitMet(s *screen, condition string, sel *compiled) (bool, *element) {
	if sel == nil {
		return false, nil
	}
	i, err := s.resolve(sel, nil)
	var ee *elementError
	if errors.As(err, &ee) && ee.Code == codeElementAmbiguous {
		i, err = s.first(sel), nil
	}
	found := err == nil
	if condition == conditionDisappears {
		return !found, nil
	}
	if !found {
		return false, nil
	}
	e := s.element(i)
	return true, &e
}

// first is the first node sel matches in document order.
func (s *screen) first(sel *compiled) int {
	for i := range s.nodes {
		if sel.matches(&s.nodes[i]) {
			return i
		}
	}
	return -1
}
