package tools

import (
	"context"
	"fmt"
	"time"

	"github.com/adb-connector/adb-connector/adb"
)

// Tap argument bounds.
const (
	// longPressFrom is the duration_ms from which android_tap long-presses.
	longPressFrom = 500
	// maxTapDuration is the largest duration_ms.
	maxTapDuration = 10000
)

// TapResult is android_tap's result: the point tapped, the element when
// the tap targeted one, and the verification when asked for.
type TapResult struct {
	Tapped    TapPoint `json:"tapped"`
	LongPress bool     `json:"long_press"`
	Double    bool     `json:"double,omitempty"`
	Element   *element `json:"element,omitempty"`
	*Verified
}

// TapPoint is a point in device pixels.
type TapPoint struct {
	X int `json:"x"`
	Y int `json:"y"`
}

func tapTool(t *Tools) *toolDef {
	props := selectorProperties()
	props["x"] = map[string]any{"type": "integer", "minimum": 0, "description": "Horizontal device pixel, 0 at the left edge (with y)."}
	props["y"] = map[string]any{"type": "integer", "minimum": 0, "description": "Vertical device pixel, 0 at the top edge (with x)."}
	props["duration_ms"] = map[string]any{"type": "integer", "minimum": 0, "maximum": maxTapDuration,
		"description": "Press duration; 500 or more is a long press. Default: a short tap."}
	props["double"] = map[string]any{"type": "boolean", "description": "Tap twice (a double tap)."}
	return declare(t, decl[tapArgs]{
		id: "android_tap", title: "Tap the Android screen",
		props: props, anyOf: requiredAnyOf(append([][]string{{"x", "y"}}, selectorTargets...)...), run: (*Tools).runTap,
		description: "Taps the bound phone's screen, at x,y in device pixels of the current orientation (origin top-left; " +
			"from a scaled screenshot multiply by its scale), or on an element: exactly one of ref (with its screen_id), " +
			"text, resource_id or content_desc, compared by match (exact, contains, regex) with index to pick among " +
			"several. No match: element_not_found with near matches; several without index: element_ambiguous with " +
			"the candidates. duration_ms >= 500 long-presses; double taps twice. verify: true waits up to settle_ms " +
			"for the UI to change and reports ui_changed, foreground and the new screen_id. A point outside the " +
			"screen is refused with invalid_arguments and nothing is touched. Repeating a call with the same " +
			"tool_call_id returns the first result without tapping again.",
	})
}

// tapArgs are android_tap's arguments (its input_schema bounds them): a
// point (X and Y) or a Selector.
type tapArgs struct {
	X          *int `json:"x"`
	Y          *int `json:"y"`
	DurationMS int  `json:"duration_ms"` // 0: a tap
	Double     bool `json:"double"`
	selector
	verifyArgs
}

// target checks that the call names exactly one target, before anything
// touches the phone: a point, or a compiled selector.
func (a *tapArgs) target() (*compiled, error) {
	point := a.X != nil || a.Y != nil
	switch {
	case point && (a.X == nil || a.Y == nil):
		field := "y"
		if a.X == nil {
			field = "x"
		}
		return nil, &argError{Field: field, Reason: "is required"}
	case point && !a.selector.empty():
		return nil, &argError{Reason: "give either x and y or one element selector, not both"}
	case point && a.Index != nil:
		return nil, &argError{Field: "index", Reason: "needs a selector (ref, text, resource_id or content_desc)"}
	case point:
		return nil, nil
	case a.selector.empty() && a.Index == nil:
		return nil, &argError{Field: "x", Reason: "is required (or one of ref, text, resource_id, content_desc)"}
	}
	return a.selector.compile("")
}

// runTap checks the target before touching the device: a point against the
// current screen size, a selector against the current UI tree; then taps,
// double-taps or long-presses (inputs are serialized per device by package
// adb; a full queue is device_busy), and verifies when asked.
func (t *Tools) runTap(ctx context.Context, inv *invocation, a tapArgs) (any, error) {
	sel, err := a.target()
	if err != nil {
		return nil, err
	}
	if err := a.verifyArgs.check(); err != nil {
		return nil, err
	}
	var res TapResult
	var before *screen
	res.Tapped, res.Element, before, err = t.pointOf(ctx, inv, sel, a.X, a.Y, a.Verify)
	if err != nil {
		return nil, err
	}
	x, y, dur := res.Tapped.X, res.Tapped.Y, a.DurationMS
	res.LongPress, res.Double = dur >= longPressFrom, a.Double && dur < longPressFrom
	switch {
	case res.LongPress:
		err = inv.dev.LongPress(ctx, x, y, time.Duration(dur)*time.Millisecond)
	case res.Double:
		err = inv.dev.DoubleTap(ctx, x, y)
	default:
		err = inv.dev.Tap(ctx, x, y)
	}
	if err != nil {
		return nil, err
	}
	if res.Verified, err = t.afterAction(ctx, inv, a.verifyArgs, before); err != nil {
		return nil, err
	}
	return res, nil
}

// pointOf is where a call targeting sel (or, nil, the point x,y) acts:
// the element's centre, found on the screen its ref came from or a new
// dump, or the point checked against the screen. before is the screen
// seen, dumped when verify needs one.
func (t *Tools) pointOf(ctx context.Context, inv *invocation, sel *compiled, x, y *int, verify bool) (p TapPoint, el *element, before *screen, err error) {
	if sel != nil {
		s := forRef(inv.ui, sel)
		if s == nil {
			if s, err = t.dump(ctx, inv.dev); err != nil {
				return p, nil, nil, err
			}
		}
		i, err := s.resolve(sel, t.trees.get(inv.dev.Key(), sel.ScreenID))
		if err != nil {
			return p, nil, nil, err
		}
		e := s.element(i)
		return TapPoint{X: e.Center[0], Y: e.Center[1]}, &e, s, nil
	}
	p = TapPoint{X: *x, Y: *y}
	if err := t.checkPoint(ctx, inv.dev, p); err != nil {
		return p, nil, nil, err
	}
	if verify {
		if before, err = t.dump(ctx, inv.dev); err != nil {
			return p, nil, nil, err
		}
	}
	return p, nil, before, nil
}

// checkPoint refuses a point off the current screen.
func (t *Tools) checkPoint(ctx context.Context, d *adb.Device, p TapPoint) error {
	si, err := d.RecentScreenInfo(ctx)
	if err != nil {
		return err
	}
	w, h := si.Oriented()
	if w > 0 && p.X >= w {
		return &argError{Field: "x", Reason: fmt.Sprintf("is outside the screen (width %d px, valid 0..%d)", w, w-1)}
	}
	if h > 0 && p.Y >= h {
		return &argError{Field: "y", Reason: fmt.Sprintf("is outside the screen (height %d px, valid 0..%d)", h, h-1)}
	}
	return nil
}
