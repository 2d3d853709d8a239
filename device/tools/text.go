package tools

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/connector"
)

// maxTextChars bounds android_type_text's text, in characters.
const maxTextChars = 4000

// codeNotSupported: the phone cannot do what was asked as it is set up
// (text outside ASCII without the ADB Keyboard IME); the message says how
// the operator can change that.
const codeNotSupported = "not_supported"

// msgNeedsIME is the not_supported message of non-ASCII text.
const msgNeedsIME = "this text has characters outside printable ASCII, which the phone can only type through the " +
	"ADB Keyboard IME (com.android.adbkeyboard), not installed on it; the operator can install it " +
	"(adb install ADBKeyboard.apk from github.com/senzhk/ADBKeyBoard). Nothing was typed"

// typeResult is android_type_text's result. The text itself is never
// echoed (it may be a password): only its length.
type typeResult struct {
	Typed     int      `json:"typed"` // characters
	Cleared   bool     `json:"cleared,omitempty"`
	Submitted bool     `json:"submitted,omitempty"`
	Element   *element `json:"element,omitempty"` // the target tapped first
	// TypedExactly (verify): the field reads back as expected; null for a
	// password field, which reads back masked.
	TypedExactly *bool `json:"typed_exactly,omitempty"`
	*Verified
}

type typeArgs struct {
	Text   string    `json:"text"`
	Clear  bool      `json:"clear"`
	Submit bool      `json:"submit"`
	Target *selector `json:"target"`
	verifyArgs
}

func typeTool(t *Tools) *toolDef {
	props := map[string]any{
		"text": map[string]any{"type": "string", "minLength": 1, "maxLength": maxTextChars,
			"description": "What to type, exactly (any script; without the connector's phone helper, which needs Android 10+, characters outside ASCII need the ADB Keyboard IME on the phone)."},
		"clear":  map[string]any{"type": "boolean", "description": "Empty the field first (select all, delete)."},
		"submit": map[string]any{"type": "boolean", "description": "Press enter after typing."},
		"target": selectorSchema("The field to tap before typing (a selector, as for android_tap); default: the focused field."),
	}
	props["verify"] = map[string]any{"type": "boolean",
		"description": "Read the field back and report typed_exactly (null for password fields), and whether the UI changed."}
	return declare(t, decl[typeArgs]{
		id: "android_type_text", title: "Type text on the Android phone",
		props: props, required: []string{"text"}, run: (*Tools).runType,
		description: "Types text into the focused field (or target, tapped first): exactly the text, special " +
			"characters included, in any script through the connector's phone helper (Android 10+); where it does not " +
			"run, characters outside ASCII go through the ADB Keyboard IME when the phone has it, " +
			"else not_supported and nothing is typed. clear empties the field first, submit presses enter after. " +
			"verify reads the field back (typed_exactly). The text is never logged nor echoed (length only). " +
			"Repeating a call with the same tool_call_id returns the first result without typing again.",
	})
}

func (t *Tools) runType(ctx context.Context, inv *invocation, a typeArgs) (_ any, err error) {
	if err := a.verifyArgs.check(); err != nil {
		return nil, err
	}
	var sel *compiled
	if a.Target != nil {
		if sel, err = a.Target.compile("target"); err != nil {
			return nil, err
		}
	}
	res := typeResult{Typed: utf8.RuneCountInString(a.Text), Cleared: a.Clear, Submitted: a.Submit}
	before := forRef(inv.ui, sel)
	if before == nil && (sel != nil || a.Verify) {
		if before, err = t.dump(ctx, inv.dev); err != nil {
			return nil, err
		}
	}
	if sel != nil {
		i, err := before.resolve(sel, t.trees.get(inv.dev.Key(), sel.ScreenID))
		if err != nil {
			return nil, err
		}
		e := before.element(i)
		res.Element = &e
		if err := inv.dev.Tap(ctx, e.Center[0], e.Center[1]); err != nil {
			return nil, err
		}
	}
	if a.Clear {
		if err := t.clearField(ctx, inv.dev); err != nil {
			return nil, err
		}
	}
	if err := inv.dev.Text(ctx, a.Text); err != nil {
		if errors.Is(err, adb.ErrUnsupportedText) {
			return nil, &connector.Error{Code: codeNotSupported, Message: msgNeedsIME}
		}
		return nil, err
	}
	if a.Submit {
		if err := inv.dev.KeyEvent(ctx, "KEYCODE_ENTER"); err != nil {
			return nil, err
		}
	}
	if a.Verify {
		after, err := t.dump(ctx, inv.dev)
		if err != nil {
			return nil, err
		}
		res.TypedExactly = readBack(before, after, res.Element, a)
		if res.Verified, err = t.verify(ctx, inv.dev, before, a.settle()); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// clearField selects everything in the focused field and deletes it:
// ctrl+A then delete (`input keycombination`, Android 13+; older phones
// answer it as an unknown command, then the field is emptied with
// move-end and one delete per character).
func (t *Tools) clearField(ctx context.Context, d *adb.Device) error {
	err := d.KeyCombination(ctx, "KEYCODE_CTRL_LEFT", "KEYCODE_A")
	if err == nil {
		return d.KeyEvent(ctx, "KEYCODE_DEL")
	}
	var ee *adb.ExitError
	if !errors.As(err, &ee) {
		return err
	}
	s, err := t.dump(ctx, d)
	if err != nil {
		return err
	}
	n := 0
	for i := range s.nodes {
		if s.nodes[i].Focused && editable(&s.nodes[i]) {
			n = utf8.RuneCountInString(s.nodes[i].Text)
		}
	}
	if n == 0 {
		return nil
	}
	keys := append([]string{"KEYCODE_MOVE_END"}, strings.Fields(strings.Repeat("KEYCODE_DEL ", min(n, maxTextChars)))...)
	return d.KeyEvent(ctx, keys...)
}

// readBack compares the field after typing with what it should hold: the
// text (after clear), or what it held plus the text. The field is the
// target, else the focused text field. nil when it cannot say: a
// password field reads back masked, or no field is found.
func readBack(before, after *screen, target *element, a typeArgs) *bool {
	field := func(s *screen) (text string, password, ok bool) {
		for i := range s.nodes {
			n := &s.nodes[i]
			hit := target != nil && n.ResourceID == target.ResourceID && n.Class == cmp.Or(target.ClassName, target.Class) ||
				target == nil && n.Focused && editable(n)
			if hit {
				return n.Text, n.Password, true
			}
		}
		return "", false, false
	}
	got, password, ok := field(after)
	if !ok || password {
		return nil
	}
	want := a.Text
	if prev, _, ok := field(before); ok && !a.Clear {
		want = prev + a.Text
	}
	exact := got == want
	return &exact
}
