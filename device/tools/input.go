package tools

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/connector"
)

// Tap argument bounds.
const (
	// LongPressFrom is the duration_ms from which android_tap long-presses.
	LongPressFrom = 500
	// MaxTapDuration is the largest duration_ms.
	MaxTapDuration = 10000
)

// TapResult is android_tap's result.
type TapResult struct {
	Tapped    TapPoint `json:"tapped"`
	LongPress bool     `json:"long_press"`
}

// TapPoint is a point in device pixels.
type TapPoint struct {
	X int `json:"x"`
	Y int `json:"y"`
}

func tapTool(t *Tools) *toolDef {
	return &toolDef{
		tool: connector.Tool{
			ID:    "android_tap",
			Title: "Tap the Android screen",
			Description: "Taps the bound phone's screen at x,y in device pixels of the current orientation (origin top-left; " +
				"from a scaled screenshot multiply by its scale). duration_ms >= 500 long-presses for that long. A point " +
				"outside the screen is refused with invalid_arguments and nothing is touched. Repeating a call with the " +
				"same tool_call_id returns the first result without tapping again.",
			InputSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"x": map[string]any{"type": "integer", "minimum": 0, "description": "Horizontal device pixel, 0 at the left edge."},
					"y": map[string]any{"type": "integer", "minimum": 0, "description": "Vertical device pixel, 0 at the top edge."},
					"duration_ms": map[string]any{"type": "integer", "minimum": 0, "maximum": MaxTapDuration,
						"description": "Press duration; 500 or more is a long press. Default: a short tap."},
				},
				"required":             []any{"x", "y"},
				"additionalProperties": false,
			},
			OutputSchema: map[string]any{"type": "object"},
		},
		needsDevice: true,
		run:         t.runTap,
	}
}

// tapArgs are android_tap's arguments (its input_schema bounds them).
type tapArgs struct {
	X          int `json:"x"`
	Y          int `json:"y"`
	DurationMS int `json:"duration_ms"` // 0: a tap
}

// runTap checks the point against the current screen size before touching
// the device, then taps or long-presses (inputs are serialized per device
// by package adb; a full queue is device_busy).
func (t *Tools) runTap(ctx context.Context, inv *invocation) (any, error) {
	a, err := decodeArgs[tapArgs](inv)
	if err != nil {
		return nil, err
	}
	x, y, dur := a.X, a.Y, a.DurationMS
	si, err := t.screenInfo(ctx, inv.dev)
	if err != nil {
		return nil, err
	}
	w, h := si.Oriented()
	if w > 0 && x >= w {
		return nil, &ArgError{Field: "x", Reason: fmt.Sprintf("is outside the screen (width %d px, valid 0..%d)", w, w-1)}
	}
	if h > 0 && y >= h {
		return nil, &ArgError{Field: "y", Reason: fmt.Sprintf("is outside the screen (height %d px, valid 0..%d)", h, h-1)}
	}
	long := dur >= LongPressFrom
	if long {
		err = inv.dev.LongPress(ctx, x, y, time.Duration(dur)*time.Millisecond)
	} else {
		err = inv.dev.Tap(ctx, x, y)
	}
	if err != nil {
		return nil, err
	}
	return TapResult{Tapped: TapPoint{X: x, Y: y}, LongPress: long}, nil
}

// screenInfo returns the device's screen geometry, cached for
// ScreenCacheTTL so a burst of taps costs one query.
func (t *Tools) screenInfo(ctx context.Context, d *adb.Device) (adb.ScreenInfo, error) {
	if si, ok := t.screens.get(d.Key()); ok {
		return si, nil
	}
	si, err := d.ScreenInfo(ctx)
	if err != nil {
		return adb.ScreenInfo{}, err
	}
	t.screens.put(d.Key(), si)
	return si, nil
}

// screenCache keeps recent ScreenInfo per device key. Safe for concurrent use.
type screenCache struct {
	ttl time.Duration
	now func() time.Time
	mu  sync.Mutex
	m   map[string]cachedScreen
}

type cachedScreen struct {
	si adb.ScreenInfo
	at time.Time
}

func newScreenCache(ttl time.Duration, now func() time.Time) *screenCache {
	return &screenCache{ttl: ttl, now: now, m: map[string]cachedScreen{}}
}

func (c *screenCache) get(key string) (adb.ScreenInfo, bool) {
	if c.ttl <= 0 {
		return adb.ScreenInfo{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok || c.now().Sub(e.at) >= c.ttl {
		return adb.ScreenInfo{}, false
	}
	return e.si, true
}

func (c *screenCache) put(key string, si adb.ScreenInfo) {
	if c.ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) > 1024 {
		clear(c.m)
	}
	c.m[key] = cachedScreen{si: si, at: c.now()}
}
