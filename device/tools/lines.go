package tools

import (
	"cmp"
	"strconv"
	"strings"
)

// Element formats of android_ui_elements and android_observe
// (element_format).
const (
	FormatObjects = "objects"
	FormatLines   = "lines"
)

// An element as one line costs a model about a third of the tokens of its
// JSON object: it keeps what an agent acts on (ref, what it says, where
// its centre is, what it can do) and drops the keys, the bounds and the
// full class and id. The grammar, which the Skill shows:
//
//	line  = ref SP class [SP text] [SP "desc=" text] [SP "#" id] SP "(" x "," y ")" *(SP flag)
//	text  = a double-quoted string with Go/JSON escapes (\" \\ \n \t \uXXXX)
//	class = the short class name ("Button"), "-" when the phone gives none
//	id    = the resource id after ":id/" ("sign_in"), whole when it has none
//	flag  = clickable | long_clickable | checkable | checked | scrollable |
//	        editable | focused | selected | password | disabled
//
// e.g. `e7 Button "Sign in" #sign_in (540,1620) clickable`. Flags appear
// only when true, in that order. Refs and screen_id are those of the
// objects: a line's ref taps as the object's does.

// elementLine is e as one line of the grammar above.
func elementLine(e *element) string {
	var b strings.Builder
	b.Grow(48 + len(e.Text) + len(e.ContentDesc) + len(e.ResourceID))
	b.WriteString(e.Ref)
	b.WriteByte(' ')
	b.WriteString(cmp.Or(e.Class, "-"))
	if e.Text != "" {
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(e.Text))
	}
	if e.ContentDesc != "" {
		b.WriteString(" desc=")
		b.WriteString(strconv.Quote(e.ContentDesc))
	}
	if e.ResourceID != "" {
		b.WriteString(" #")
		b.WriteString(shortID(e.ResourceID))
	}
	b.WriteString(" (")
	b.WriteString(strconv.Itoa(e.Center[0]))
	b.WriteByte(',')
	b.WriteString(strconv.Itoa(e.Center[1]))
	b.WriteByte(')')
	for _, f := range lineFlags(e) {
		if f.on {
			b.WriteByte(' ')
			b.WriteString(f.name)
		}
	}
	return b.String()
}

// lineFlag is one flag of the grammar and where it lives in an element.
type lineFlag struct {
	name string
	on   bool
}

// lineFlags are e's flags in grammar order.
func lineFlags(e *element) []lineFlag {
	return []lineFlag{
		{"clickable", e.Clickable}, {"long_clickable", e.LongClickable}, {"checkable", e.Checkable},
		{"checked", e.Checked}, {"scrollable", e.Scrollable}, {"editable", e.Editable},
		{"focused", e.Focused}, {"selected", e.Selected}, {"password", e.Password}, {"disabled", e.Disabled},
	}
}

// shortID is a resource id after ":id/", the form selectors accept too.
func shortID(id string) string {
	if _, s, ok := strings.Cut(id, ":id/"); ok && s != "" {
		return s
	}
	return id
}

// elementLines is es as lines.
func elementLines(es []element) []string {
	out := make([]string, len(es))
	for i := range es {
		out[i] = elementLine(&es[i])
	}
	return out
}

// elementViewArgs are the arguments android_ui_elements and
// android_observe share about how the elements come back.
type elementViewArgs struct {
	ElementFormat string `json:"element_format"` // objects (default), lines
	Since         string `json:"since"`          // a screen_id the channel received
}

// elementViewProperties are elementViewArgs' input_schema properties.
func elementViewProperties(props map[string]any) {
	props["element_format"] = map[string]any{"type": "string", "enum": []any{FormatObjects, FormatLines},
		"description": "objects (default): one JSON object per element; lines: one text line per element, " +
			`e.g. e7 Button "Sign in" desc="Log in" #sign_in (540,1620) clickable: ref, short class, text, desc=content ` +
			"description, #resource id after :id/, centre (x,y) in device pixels, the true flags (the Skill gives the grammar)."}
	props["since"] = map[string]any{"type": "string", "minLength": 1, "maxLength": 64, "pattern": "^s[0-9a-f]{1,63}$",
		"description": "A screen_id this channel received earlier: return only changes {added, changed, removed} " +
			"against it (refs of unchanged elements stay valid), or the full list with since_unknown: true when " +
			"that screen is no longer held."}
}

// check refuses element_format and since with android_observe's
// elements: none, before anything runs.
func (v elementViewArgs) check(filter string) error {
	if filter != filterNone {
		return nil
	}
	if v.ElementFormat != "" {
		return &argError{Field: "element_format", Reason: "does not apply with elements: none"}
	}
	if v.Since != "" {
		return &argError{Field: "since", Reason: "does not apply with elements: none"}
	}
	return nil
}
