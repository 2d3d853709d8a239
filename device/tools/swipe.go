package tools

import (
	"context"
	"errors"
	"time"
)

// android_swipe bounds and defaults.
const (
	defaultSwipeMS   = 300
	minSwipeMS       = 50
	maxSwipeMS       = 10000
	defaultSwipeDist = 0.6
	defaultMaxSwipes = 10
	maxSwipes        = 50
	swipeUp          = "up"
	swipeDown        = "down"
	swipeLeft        = "left"
	swipeRight       = "right"
	swipeEdgeDivisor = 20 // 1/20 of the area kept clear at each edge
)

// swipeResult is android_swipe's result. Found and Element are set only
// with until (Found is a pointer so that it is absent otherwise);
// ScreenID is the screen the element's ref belongs to, which is also the
// verified screen (it shadows Verified's field of the same name).
type swipeResult struct {
	Swipes   int      `json:"swipes"`
	Found    *bool    `json:"found,omitempty"`
	Element  *element `json:"element,omitempty"`
	ScreenID string   `json:"screen_id,omitempty"`
	*Verified
}

// swipeArgs are android_swipe's arguments: From and To, or Direction with
// Distance and Within; Until repeats the swipe.
type swipeArgs struct {
	From       *[2]int   `json:"from"`
	To         *[2]int   `json:"to"`
	DurationMS *int      `json:"duration_ms"`
	Direction  string    `json:"direction"`
	Distance   *float64  `json:"distance"`
	Within     *selector `json:"within"`
	Until      *selector `json:"until"`
	MaxSwipes  *int      `json:"max_swipes"`
	verifyArgs
}

func swipeTool(t *Tools) *toolDef {
	point := func(desc string) map[string]any {
		return map[string]any{"type": "array", "description": desc, "minItems": 2, "maxItems": 2,
			"items": map[string]any{"type": "integer", "minimum": 0}}
	}
	return declare(t, decl[swipeArgs]{
		id: "android_swipe", title: "Swipe on the Android screen",
		anyOf: requiredAnyOf([]string{"from", "to"}, []string{"direction"}), run: (*Tools).runSwipe,
		props: map[string]any{
			"from": point("Start [x, y] in device pixels (with to)."),
			"to":   point("End [x, y] in device pixels (with from)."),
			"duration_ms": map[string]any{"type": "integer", "minimum": minSwipeMS, "maximum": maxSwipeMS,
				"description": "How long the finger moves (default 300; longer is a slow drag, shorter a fling)."},
			"direction": map[string]any{"type": "string", "enum": []any{swipeUp, swipeDown, swipeLeft, swipeRight},
				"description": "The way the finger moves: up scrolls a list towards its end, down towards its start."},
			"distance": map[string]any{"type": "number", "minimum": 0.1, "maximum": 1,
				"description": "With direction: how far, as a fraction of the screen or of within (default 0.6)."},
			"within": selectorSchema("With direction: the element to swipe inside (a scrollable list), a selector as for android_tap; default the whole screen."),
			"until":  selectorSchema("Swipe again until this element is on screen (text, resource_id or content_desc, as for android_tap), at most max_swipes times, stopping when the screen stops changing."),
			"max_swipes": map[string]any{"type": "integer", "minimum": 1, "maximum": maxSwipes,
				"description": "With until: at most this many swipes (default 10)."},
		},
		description: "Swipes on the bound phone: from [x,y] to [x,y] in device pixels over duration_ms, or in a " +
			"direction (up, down, left, right: the way the finger moves; up scrolls a list towards its end) over distance " +
			"(a fraction of the screen, or of the within element). until (a selector) repeats the swipe, at most " +
			"max_swipes times, until that element is on screen, and stops early at the end of a list (the screen " +
			"no longer changes); the result says swipes, found and the element with its screen_id. verify: true " +
			"waits up to settle_ms for the UI to change. Points outside the screen or a within that matches " +
			"nothing are refused and nothing is touched. Repeating a call with the same tool_call_id returns " +
			"the first result without swiping again.",
	})
}

// check refuses a call that mixes the two forms or gives a field that does
// not apply, before anything touches the phone; it returns the compiled
// within and until selectors (nil when absent).
func (a *swipeArgs) check() (within, until *compiled, err error) {
	points := a.From != nil || a.To != nil
	switch {
	case points && a.Direction != "":
		return nil, nil, &argError{Reason: "give either from and to or direction, not both"}
	case points && a.From == nil:
		return nil, nil, &argError{Field: "from", Reason: "is required with to"}
	case points && a.To == nil:
		return nil, nil, &argError{Field: "to", Reason: "is required with from"}
	case !points && a.Direction == "":
		return nil, nil, &argError{Field: "direction", Reason: "is required (or from and to)"}
	case points && a.Distance != nil:
		return nil, nil, &argError{Field: "distance", Reason: "applies with direction only"}
	case points && a.Within != nil:
		return nil, nil, &argError{Field: "within", Reason: "applies with direction only"}
	case a.Until == nil && a.MaxSwipes != nil:
		return nil, nil, &argError{Field: "max_swipes", Reason: "applies with until only"}
	}
	if err := a.verifyArgs.check(); err != nil {
		return nil, nil, err
	}
	if a.Within != nil {
		if within, err = a.Within.compile("within"); err != nil {
			return nil, nil, err
		}
	}
	if a.Until != nil {
		if a.Until.Ref != "" {
			return nil, nil, &argError{Field: "until.ref", Reason: "names an element of one screen; use text, resource_id or content_desc"}
		}
		if until, err = a.Until.compile("until"); err != nil {
			return nil, nil, err
		}
	}
	return within, until, nil
}

// area is a rectangle [x1, y1, x2, y2) in device pixels.
type area [4]int

// swipePath is the swipe of a direction over distance of ar: centred on
// it, and kept a twentieth of its size away from its edges, where a swipe
// would start outside a list, or, on the whole screen, be taken by
// Android's gesture navigation as back or home (AOSP
// EdgeBackGestureHandler, SystemUI's navigation bar gestures).
func swipePath(ar area, direction string, distance float64) (from, to [2]int) {
	cx, cy := (ar[0]+ar[2])/2, (ar[1]+ar[3])/2
	w, h := ar[2]-ar[0], ar[3]-ar[1]
	span := func(lo, size int) (start, end int) {
		margin := size / swipeEdgeDivisor
		half := int(distance * float64(size) / 2)
		mid := lo + size/2
		start, end = mid+half, mid-half
		start = min(start, lo+size-1-margin)
		end = max(end, lo+margin)
		return start, end
	}
	switch direction {
	case swipeUp:
		y1, y2 := span(ar[1], h)
		return [2]int{cx, y1}, [2]int{cx, y2}
	case swipeDown:
		y1, y2 := span(ar[1], h)
		return [2]int{cx, y2}, [2]int{cx, y1}
	case swipeLeft:
		x1, x2 := span(ar[0], w)
		return [2]int{x1, cy}, [2]int{x2, cy}
	default: // right
		x1, x2 := span(ar[0], w)
		return [2]int{x2, cy}, [2]int{x1, cy}
	}
}

// runSwipe checks everything before touching the phone: the form, the
// points against the screen, within against the current UI tree. With
// until it looks before each swipe and after the last: already on screen
// is zero swipes, and a swipe that leaves the same screen_id means the
// list has ended.
func (t *Tools) runSwipe(ctx context.Context, inv *invocation, a swipeArgs) (any, error) {
	within, until, err := a.check()
	if err != nil {
		return nil, err
	}
	dur := time.Duration(defaultSwipeMS) * time.Millisecond
	if a.DurationMS != nil {
		dur = time.Duration(*a.DurationMS) * time.Millisecond
	}
	var (
		before   *screen
		from, to [2]int
	)
	if a.From != nil {
		from, to = *a.From, *a.To
		for _, p := range []struct {
			field string
			pt    [2]int
		}{{"from", from}, {"to", to}} {
			if err := t.checkPoint(ctx, inv.dev, TapPoint{X: p.pt[0], Y: p.pt[1]}); err != nil {
				var ae *argError
				if errors.As(err, &ae) {
					ae.Field = p.field + "." + ae.Field
				}
				return nil, err
			}
		}
	}
	if until == nil {
		before = forRef(inv.ui, within) // until must look at the live screen
	}
	if before == nil && (within != nil || until != nil || a.Verify) {
		if before, err = t.dump(ctx, inv.dev); err != nil {
			return nil, err
		}
	}
	if a.From == nil {
		ar, err := t.swipeArea(ctx, inv, before, within)
		if err != nil {
			return nil, err
		}
		dist := defaultSwipeDist
		if a.Distance != nil {
			dist = *a.Distance
		}
		from, to = swipePath(ar, a.Direction, dist)
	}
	var res swipeResult
	if until == nil {
		if err := inv.dev.Swipe(ctx, from[0], from[1], to[0], to[1], dur); err != nil {
			return nil, err
		}
		res.Swipes = 1
	} else {
		limit := defaultMaxSwipes
		if a.MaxSwipes != nil {
			limit = *a.MaxSwipes
		}
		found, e, last, err := t.swipeUntil(ctx, inv, before, until, limit, func() error {
			res.Swipes++
			return inv.dev.Swipe(ctx, from[0], from[1], to[0], to[1], dur)
		})
		if err != nil {
			return nil, err
		}
		res.Found, res.Element, res.ScreenID = &found, e, last.id
	}
	if res.Verified, err = t.afterAction(ctx, inv, a.verifyArgs, before); err != nil {
		return nil, err
	}
	if v := res.Verified; v != nil && until != nil && v.ScreenID != res.ScreenID {
		// The list moved on after the last look: one screen_id in the
		// result, so the element is looked up again on verify's screen.
		if s := t.trees.get(inv.dev.Key(), v.ScreenID); s != nil {
			found, e := t.waitMet(s, conditionAppears, until)
			res.Found, res.Element, res.ScreenID = &found, e, s.id
		}
	}
	return res, nil
}

// swipeArea is the rectangle a direction swipe crosses: within's bounds on
// the screen s, else the whole screen in its current orientation.
func (t *Tools) swipeArea(ctx context.Context, inv *invocation, s *screen, within *compiled) (area, error) {
	if within != nil {
		i, err := s.resolve(within, t.trees.get(inv.dev.Key(), within.ScreenID))
		var ee *elementError
		if errors.As(err, &ee) {
			// Name the argument: until and within are both selectors.
			return area{}, &elementError{Code: ee.Code, Message: "within: " + ee.Message}
		}
		if err != nil {
			return area{}, err
		}
		b := s.nodes[i].Bounds
		return area{b.Left, b.Top, b.Right, b.Bottom}, nil
	}
	si, err := inv.dev.RecentScreenInfo(ctx)
	if err != nil {
		return area{}, err
	}
	w, h := si.Oriented()
	return area{0, 0, w, h}, nil
}

// swipeUntil swipes until sel matches on screen, at most limit times, and
// stops when a swipe leaves the screen as it was (the end of the list).
// It returns whether it found the element, the element and the last
// screen looked at.
func (t *Tools) swipeUntil(ctx context.Context, inv *invocation, s *screen, sel *compiled, limit int, swipe func() error) (bool, *element, *screen, error) {
	for n := 0; ; n++ {
		if ok, e := t.waitMet(s, conditionAppears, sel); ok {
			return true, e, s, nil
		}
		if n == limit {
			return false, nil, s, nil
		}
		if err := swipe(); err != nil {
			return false, nil, nil, err
		}
		next, err := t.dump(ctx, inv.dev)
		if err != nil {
			return false, nil, nil, err
		}
		if next.id == s.id {
			// Nothing moved: the end of the list (or nothing scrolls there).
			return false, nil, next, nil
		}
		s = next
	}
}
