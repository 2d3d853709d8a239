package tools

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/policy"
)

// maxClipboardChars bounds android_clipboard's text.
const maxClipboardChars = 4000

// clipboardResult is android_clipboard's result: the text for get, its
// length for set (the text is never echoed back).
type clipboardResult struct {
	Text *string `json:"text,omitempty"`
	Set  int     `json:"set,omitempty"`
}

type clipboardArgs struct {
	Action string `json:"action"`
	Text   string `json:"text"`
}

func clipboardTool(t *Tools) *toolDef {
	return declare(t, decl[clipboardArgs]{
		id: "android_clipboard", title: "Read or set the Android phone's clipboard",
		required: []string{"action"}, run: (*Tools).runClipboard,
		// set needs text: a call is a get, or carries text.
		anyOf: []any{map[string]any{"properties": map[string]any{"action": map[string]any{"const": "get"}}}, map[string]any{"required": []any{"text"}}},
		props: map[string]any{
			"action": map[string]any{"type": "string", "enum": []any{"get", "set"}, "description": "get reads the clipboard's text; set replaces it with text."},
			"text": map[string]any{"type": "string", "minLength": 1, "maxLength": maxClipboardChars,
				"description": "For set: the text (1-4000 characters, any script)."},
		},
		description: "get returns the bound phone's clipboard text ({text}); set replaces it with text (then a long " +
			"press and Paste, or android_press_key, pastes it), returning its length. Through the connector's phone " +
			"helper: where it cannot run, not_supported says why. The operator's policy may allow set only, or " +
			"neither (not_permitted). The text set is never logged nor echoed. Repeating a set changes nothing more.",
	})
}

func (t *Tools) runClipboard(ctx context.Context, inv *invocation, a clipboardArgs) (any, error) {
	switch a.Action {
	case "get":
		if a.Text != "" {
			return nil, &argError{Field: "text", Reason: "is only for set"}
		}
		text, err := inv.dev.Clipboard(ctx)
		if err != nil {
			return nil, clipboardError(err)
		}
		return clipboardResult{Text: &text}, nil
	case "set":
		if a.Text == "" {
			return nil, &argError{Field: "text", Reason: "is required for set"}
		}
		if utf8.RuneCountInString(a.Text) > maxClipboardChars {
			return nil, &argError{Field: "text", Reason: "is longer than 4000 characters"}
		}
		if err := inv.dev.SetClipboard(ctx, a.Text); err != nil {
			return nil, clipboardError(err)
		}
		return clipboardResult{Set: utf8.RuneCountInString(a.Text)}, nil
	}
	return nil, &argError{Field: "action", Reason: "is not get or set"}
}

// clipboardError is helperError for the clipboard.
func clipboardError(err error) error {
	return helperError(err, "the clipboard needs the connector's phone helper", "nothing was read or set")
}

// helperError is not_supported, saying need, why the helper does not run
// and done, when err is adb.ErrNoHelper; other errors go to the one
// mapping.
func helperError(err error, need, done string) error {
	if errors.Is(err, adb.ErrNoHelper) {
		why := strings.TrimPrefix(err.Error(), adb.ErrNoHelper.Error()+" ")
		return &connector.Error{Code: codeNotSupported, Message: need + ", which does not run on this phone " + why + "; " + done}
	}
	return err
}

// clipboardRefusal is the policy's refusal of action, "" when allowed.
func clipboardRefusal(eff *policy.Effective, action string) string {
	switch {
	case eff.Clipboard == policy.ClipboardNone:
		return "the clipboard is off on this device by the operator's policy"
	case eff.Clipboard == policy.ClipboardWrite && action == "get":
		return "reading the clipboard is not allowed on this device by the operator's policy (set is)"
	}
	return ""
}
