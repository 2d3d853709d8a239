package tools

import (
	"context"
	"time"
)

// Pinch argument bounds.
const (
	minPinchScale, maxPinchScale = 0.2, 5.0
	defaultPinchMS, maxPinchMS   = 400, 5000
)

// pinchResult is android_pinch's result: the centre, the element when the
// call targeted one, and the verification when asked for.
type pinchResult struct {
	Center  TapPoint `json:"center"`
	Scale   float64  `json:"scale"`
	Element *element `json:"element,omitempty"`
	*Verified
}

type pinchArgs struct {
	Scale      float64 `json:"scale"`
	X          *int    `json:"x"`
	Y          *int    `json:"y"`
	DurationMS int     `json:"duration_ms"`
	selector
	verifyArgs
}

func pinchTool(t *Tools) *toolDef {
	props := selectorProperties()
	props["scale"] = map[string]any{"type": "number", "minimum": minPinchScale, "maximum": maxPinchScale,
		"description": "How much to zoom: 2 spreads two fingers to double the size, 0.5 pinches them in to halve it (0.2-5)."}
	props["x"] = map[string]any{"type": "integer", "minimum": 0, "description": "The centre's horizontal device pixel (with y)."}
	props["y"] = map[string]any{"type": "integer", "minimum": 0, "description": "The centre's vertical device pixel (with x)."}
	props["duration_ms"] = map[string]any{"type": "integer", "minimum": 50, "maximum": maxPinchMS, "description": "How long the fingers move. Default 400."}
	return declare(t, decl[pinchArgs]{
		id: "android_pinch", title: "Pinch or spread two fingers on the Android screen",
		props: props, required: []string{"scale"}, run: (*Tools).runPinch,
		anyOf: requiredAnyOf(append([][]string{{"x", "y"}}, selectorTargets...)...),
		description: "Zooms with two fingers around x,y (device pixels) or an element's centre (ref with screen_id, " +
			"text, resource_id or content_desc, as android_tap): scale above 1 spreads the fingers (zoom in), below 1 " +
			"pinches them together. Through the connector's phone helper (input has no multi-touch): where it does " +
			"not run, not_supported says why and nothing is touched. verify: true reports ui_changed. Repeating a " +
			"call zooms again; the same tool_call_id returns the first result.",
	})
}

func (t *Tools) runPinch(ctx context.Context, inv *invocation, a pinchArgs) (any, error) {
	ta := tapArgs{X: a.X, Y: a.Y, selector: a.selector}
	sel, err := ta.target()
	if err != nil {
		return nil, err
	}
	if err := a.verifyArgs.check(); err != nil {
		return nil, err
	}
	res := pinchResult{Scale: a.Scale}
	var before *screen
	res.Center, res.Element, before, err = t.pointOf(ctx, inv, sel, a.X, a.Y, a.Verify)
	if err != nil {
		return nil, err
	}
	dur := time.Duration(a.DurationMS) * time.Millisecond
	if dur == 0 {
		dur = defaultPinchMS * time.Millisecond
	}
	if err := inv.dev.Pinch(ctx, res.Center.X, res.Center.Y, a.Scale, dur); err != nil {
		return nil, helperError(err, "pinching needs the connector's phone helper (input has no multi-touch)", "nothing was touched")
	}
	if res.Verified, err = t.afterAction(ctx, inv, a.verifyArgs, before); err != nil {
		return nil, err
	}
	return res, nil
}
