package tools

import (
	"context"
	"strings"
)

// keyCodes maps android_press_key's key names to Android KeyEvent codes
// (AOSP frameworks/base/core/java/android/view/KeyEvent.java).
var keyCodes = map[string]string{
	"home": "KEYCODE_HOME", "back": "KEYCODE_BACK", "enter": "KEYCODE_ENTER", "app_switch": "KEYCODE_APP_SWITCH",
	"delete": "KEYCODE_DEL", "forward_delete": "KEYCODE_FORWARD_DEL", "tab": "KEYCODE_TAB", "escape": "KEYCODE_ESCAPE",
	"space": "KEYCODE_SPACE", "menu": "KEYCODE_MENU", "search": "KEYCODE_SEARCH",
	"dpad_up": "KEYCODE_DPAD_UP", "dpad_down": "KEYCODE_DPAD_DOWN", "dpad_left": "KEYCODE_DPAD_LEFT",
	"dpad_right": "KEYCODE_DPAD_RIGHT", "dpad_center": "KEYCODE_DPAD_CENTER",
	"page_up": "KEYCODE_PAGE_UP", "page_down": "KEYCODE_PAGE_DOWN", "move_home": "KEYCODE_MOVE_HOME", "move_end": "KEYCODE_MOVE_END",
	"volume_up": "KEYCODE_VOLUME_UP", "volume_down": "KEYCODE_VOLUME_DOWN", "volume_mute": "KEYCODE_VOLUME_MUTE",
	"wakeup": "KEYCODE_WAKEUP", "sleep": "KEYCODE_SLEEP", "power": "KEYCODE_POWER", "camera": "KEYCODE_CAMERA",
	"media_play_pause": "KEYCODE_MEDIA_PLAY_PAUSE",
}

// keyNames is the enum of android_press_key's key, in a stable order.
var keyNames = []any{"home", "back", "enter", "app_switch", "delete", "forward_delete", "tab", "escape", "space", "menu",
	"search", "dpad_up", "dpad_down", "dpad_left", "dpad_right", "dpad_center", "page_up", "page_down", "move_home",
	"move_end", "volume_up", "volume_down", "volume_mute", "wakeup", "sleep", "power", "camera", "media_play_pause"}

// maxKeyRepeat bounds android_press_key's repeat.
const maxKeyRepeat = 50

// keyResult is android_press_key's result.
type keyResult struct {
	Key       string `json:"key"`
	Repeat    int    `json:"repeat"`
	LongPress bool   `json:"long_press"`
	*Verified
}

type keyArgs struct {
	Key       string `json:"key"`
	Repeat    *int   `json:"repeat"`
	LongPress bool   `json:"long_press"`
	verifyArgs
}

func keyTool(t *Tools) *toolDef {
	return declare(t, decl[keyArgs]{
		id: "android_press_key", title: "Press a key on the Android phone",
		required: []string{"key"}, run: (*Tools).runKey,
		props: map[string]any{
			"key": map[string]any{"type": "string", "enum": keyNames,
				"description": "The key: home, back, enter, app_switch (recent apps), delete (backspace), forward_delete, tab, escape, space, menu, search, dpad_*, page_up/down, move_home/end, volume_*, wakeup, sleep, power, camera, media_play_pause."},
			"repeat":     map[string]any{"type": "integer", "minimum": 1, "maximum": maxKeyRepeat, "description": "Press it this many times (default 1)."},
			"long_press": map[string]any{"type": "boolean", "description": "Hold the key (a long press)."},
		},
		description: "Presses a key on the bound phone (home, back, enter, delete, volume, power, ...), repeat times, " +
			"or holds it with long_press. verify: true waits up to settle_ms for the UI to change. Repeating a call " +
			"with the same tool_call_id returns the first result without pressing again.",
	})
}

func (t *Tools) runKey(ctx context.Context, inv *invocation, a keyArgs) (any, error) {
	if err := a.verifyArgs.check(); err != nil {
		return nil, err
	}
	code, repeat := keyCodes[a.Key], 1
	if a.Repeat != nil {
		repeat = *a.Repeat
	}
	if a.LongPress && repeat > 1 {
		return nil, &argError{Field: "repeat", Reason: "does not apply with long_press"}
	}
	before, err := t.beforeAction(ctx, inv, a.verifyArgs)
	if err != nil {
		return nil, err
	}
	keys := strings.Fields(strings.Repeat(code+" ", repeat))
	if a.LongPress {
		err = inv.dev.LongKeyEvent(ctx, keys...)
	} else {
		err = inv.dev.KeyEvent(ctx, keys...)
	}
	if err != nil {
		return nil, err
	}
	res := keyResult{Key: a.Key, Repeat: repeat, LongPress: a.LongPress}
	res.Verified, err = t.afterAction(ctx, inv, a.verifyArgs, before)
	return res, err
}
