package tools

import (
	"context"
	"time"

	"github.com/adb-connector/adb-connector/adb"
)

// rotateWait bounds how long android_rotate waits for the display to turn
// once the settings are written: the window manager turns it
// asynchronously, after the rotation animation starts (a few hundred ms on
// a phone; longer while an app is relaunched for the new configuration).
const rotateWait = 5 * time.Second

// orientations are android_rotate's orientation values other than auto,
// in Surface.ROTATION_* order for a phone whose natural orientation is
// portrait.
var orientations = []string{"portrait", "landscape", "reverse_portrait", "reverse_landscape"}

// rotationOf is the Surface.ROTATION_* that shows orientation on a display
// whose natural (rotation 0) size is w x h, as AOSP
// DisplayRotation.configure sets mPortraitRotation and friends with
// config_reverseDefaultRotation false (the framework default): a
// natural-portrait panel (a phone) is portrait at 0, landscape at 90,
// reverse portrait at 180, reverse landscape at 270; a natural-landscape
// one (a tablet) is landscape at 0, reverse portrait at 90, reverse
// landscape at 180, portrait at 270.
func rotationOf(orientation string, w, h int) int {
	for i, o := range orientations {
		if o == orientation {
			if w > h {
				return [4]int{3, 0, 1, 2}[i]
			}
			return i
		}
	}
	return -1
}

// orientationOf is rotationOf's converse.
func orientationOf(rotation, w, h int) string {
	for _, o := range orientations {
		if rotationOf(o, w, h) == rotation {
			return o
		}
	}
	return "portrait"
}

// rotateResult is android_rotate's result: the display as read back.
type rotateResult struct {
	Orientation string `json:"orientation"`
	Width       int    `json:"width"`
	Height      int    `json:"height"`
}

type rotateArgs struct {
	Orientation string `json:"orientation"`
}

func rotateTool(t *Tools) *toolDef {
	return declare(t, decl[rotateArgs]{
		id: "android_rotate", title: "Turn the Android phone's display",
		required: []string{"orientation"}, run: (*Tools).runRotate,
		props: map[string]any{
			"orientation": map[string]any{"type": "string", "enum": []any{"portrait", "landscape", "reverse_portrait", "reverse_landscape", "auto"},
				"description": "The orientation to lock the display in, or auto to let the phone's sensor decide."},
		},
		description: "Turns the bound phone's display (locks auto-rotation and sets the rotation; auto hands " +
			"it back to the sensor) and returns the orientation, width and height read back once the display has " +
			"turned (up to 5 s): an app that fixes its own orientation may keep the display as it was, which the " +
			"result then shows. Coordinates of later taps and screenshots follow the new orientation. The " +
			"rotation settings found are put back when the phone is released. Repeating a call changes nothing " +
			"more; with the same tool_call_id it returns the first result.",
	})
}

func (t *Tools) runRotate(ctx context.Context, inv *invocation, a rotateArgs) (any, error) {
	d := inv.dev
	si, err := d.ScreenInfo(ctx)
	if err != nil {
		return nil, err
	}
	// auto keeps user_rotation as it is: the rotation the phone goes back
	// to when auto-rotation is next turned off.
	target := rotationOf(a.Orientation, si.Width, si.Height)
	want := adb.RotationSettings{User: target}
	if target < 0 {
		was, err := d.RotationSettings(ctx)
		if err != nil {
			return nil, err
		}
		want = adb.RotationSettings{Auto: true, User: was.User}
	}
	if err := d.SetRotationSettings(ctx, want); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(rotateWait)
	for {
		if si, err = d.ScreenInfo(ctx); err != nil {
			return nil, err
		}
		if target < 0 || (si.RotationKnown && si.Rotation == target) || !time.Now().Before(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(foregroundPoll):
		}
	}
	w, h := si.Oriented()
	return rotateResult{Orientation: orientationOf(si.Rotation, si.Width, si.Height), Width: w, Height: h}, nil
}
