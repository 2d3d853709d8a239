package tools

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/adb-connector/adb-connector/adb/parse"
)

// selector is how an agent names an element: a ref from a screen it saw
// (with that screen_id), or text, resource_id or content_desc compared by
// match; index picks among several matches. Flat on android_tap and
// android_wait_for, a nested object (target, within, until) elsewhere.
type selector struct {
	Ref         string `json:"ref,omitempty"`
	ScreenID    string `json:"screen_id,omitempty"`
	Text        string `json:"text,omitempty"`
	ResourceID  string `json:"resource_id,omitempty"`
	ContentDesc string `json:"content_desc,omitempty"`
	Match       string `json:"match,omitempty"` // exact (default), contains, regex
	Index       *int   `json:"index,omitempty"`
}

// Match modes.
const (
	matchExact    = "exact"
	matchContains = "contains"
	matchRegex    = "regex"
	// maxRegexBytes bounds a match: regex pattern (RE2: linear time).
	maxRegexBytes = 256
)

// selectorProperties are the selector fields of an input_schema, for the
// tools that take them flat and for the nested selector object.
func selectorProperties() map[string]any {
	str := func(desc string) map[string]any {
		return map[string]any{"type": "string", "minLength": 1, "maxLength": 4000, "description": desc}
	}
	return map[string]any{
		"ref":          map[string]any{"type": "string", "minLength": 2, "maxLength": 16, "description": "An element ref (\"e12\") from android_ui_elements or android_observe; give its screen_id too."},
		"screen_id":    map[string]any{"type": "string", "minLength": 1, "maxLength": 64, "description": "The screen_id the ref came from."},
		"text":         str("The element's text, compared by match."),
		"resource_id":  str("The element's resource id, full (\"com.example:id/login\") or after \":id/\" (\"login\")."),
		"content_desc": str("The element's content description (accessibility label), compared by match."),
		"match":        map[string]any{"type": "string", "enum": []any{matchExact, matchContains, matchRegex}, "description": "How text, resource_id and content_desc compare: exact (default), contains (case-insensitive) or regex (RE2, at most 256 bytes)."},
		"index":        map[string]any{"type": "integer", "minimum": 0, "maximum": 1000, "description": "0-based, among the matches in document order, when several match."},
	}
}

// selectorSchema is the nested selector object (target, within, until).
func selectorSchema(desc string) map[string]any {
	return map[string]any{
		"type": "object", "description": desc,
		"properties": selectorProperties(), "additionalProperties": false,
		"anyOf": requiredAnyOf(selectorTargets...),
	}
}

// selectorTargets are the argument sets that each name one element: what
// selector.compile needs at least one of.
var selectorTargets = [][]string{{"ref", "screen_id"}, {"text"}, {"resource_id"}, {"content_desc"}}

// requiredAnyOf is an input_schema "anyOf" of "required" sets (JSON Schema
// 2020-12 §10.2.1.2, §6.5.3): the object must hold every property of at
// least one set. It is how a schema says which combinations a tool needs,
// so that a client reading the Card knows {} is incomplete.
func requiredAnyOf(sets ...[]string) []any {
	out := make([]any, len(sets))
	for i, set := range sets {
		req := make([]any, len(set))
		for j, p := range set {
			req[j] = p
		}
		out[i] = map[string]any{"required": req}
	}
	return out
}

// empty reports whether s names nothing.
func (s *selector) empty() bool {
	return s.Ref == "" && s.Text == "" && s.ResourceID == "" && s.ContentDesc == ""
}

// compiled is a checked Selector ready to match.
type compiled struct {
	selector
	re *regexp.Regexp
}

// compile checks s (field is its name in the arguments, "" when flat):
// exactly one target, index and screen_id only with one, match known and
// a regex that compiles within maxRegexBytes. Errors are *argError.
func (s selector) compile(field string) (*compiled, error) {
	name := func(f string) string {
		if field == "" {
			return f
		}
		return field + "." + f
	}
	n := 0
	for _, v := range []string{s.Ref, s.Text, s.ResourceID, s.ContentDesc} {
		if v != "" {
			n++
		}
	}
	switch {
	case n == 0 && s.Index != nil:
		return nil, &argError{Field: name("index"), Reason: "needs a selector (ref, text, resource_id or content_desc)"}
	case n == 0:
		return nil, &argError{Field: field, Reason: "needs one of ref, text, resource_id, content_desc"}
	case n > 1:
		return nil, &argError{Field: field, Reason: "give exactly one of ref, text, resource_id, content_desc"}
	}
	c := &compiled{selector: s}
	if s.Ref != "" {
		if _, ok := refIndex(s.Ref); !ok {
			return nil, &argError{Field: name("ref"), Reason: "is not an element ref such as e12"}
		}
		if s.ScreenID == "" {
			return nil, &argError{Field: name("screen_id"), Reason: "is required with ref"}
		}
		if s.Match != "" || s.Index != nil {
			return nil, &argError{Field: name("ref"), Reason: "takes no match or index"}
		}
		return c, nil
	}
	if s.ScreenID != "" {
		return nil, &argError{Field: name("screen_id"), Reason: "goes with ref only"}
	}
	if s.Match == matchRegex {
		pat := s.Text + s.ResourceID + s.ContentDesc
		if len(pat) > maxRegexBytes {
			return nil, &argError{Field: name("match"), Reason: fmt.Sprintf("regex longer than %d bytes", maxRegexBytes)}
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			return nil, &argError{Field: name("match"), Reason: "regex does not compile (RE2 syntax)"}
		}
		c.re = re
	}
	return c, nil
}

// value is the node field c compares, and the query.
func (c *compiled) value(n *parse.UINode) (got, want string) {
	switch {
	case c.Text != "":
		return n.Text, c.Text
	case c.ContentDesc != "":
		return n.ContentDesc, c.ContentDesc
	}
	return n.ResourceID, c.ResourceID
}

// matches reports whether n is selected by c's text, resource_id or
// content_desc. An exact resource_id also matches the part after ":id/".
func (c *compiled) matches(n *parse.UINode) bool {
	got, want := c.value(n)
	if got == "" {
		return false
	}
	switch c.Match {
	case matchContains:
		return strings.Contains(strings.ToLower(got), strings.ToLower(want))
	case matchRegex:
		return c.re.MatchString(got)
	}
	if got == want {
		return true
	}
	_, short, ok := strings.Cut(got, ":id/")
	return c.ResourceID != "" && ok && short == want
}

// Errors of element resolution: element_not_found and element_ambiguous,
// with the candidates in the message (refs, texts, ids: data from the
// phone, for the model).
const (
	codeElementAmbiguous = "element_ambiguous"
	// maxNear is how many near matches a not-found error lists.
	maxNear = 5
	// maxCandidates is how many matches an ambiguous error lists.
	maxCandidates = 10
)

// elementError is a selector that found no element, or several.
type elementError struct {
	Code    string // codeElementNotFound or codeElementAmbiguous
	Message string
}

func (e *elementError) Error() string { return e.Message }

// describe is a compact line per element for an error message.
func (s *screen) describe(is []int, max int) string {
	var b strings.Builder
	for k, i := range is {
		if k == max {
			fmt.Fprintf(&b, "; and %d more", len(is)-max)
			break
		}
		if k > 0 {
			b.WriteString("; ")
		}
		n := &s.nodes[i]
		fmt.Fprintf(&b, "%s", ref(i))
		if n.Text != "" {
			fmt.Fprintf(&b, " text=%q", clipText(n.Text))
		}
		if n.ContentDesc != "" {
			fmt.Fprintf(&b, " content_desc=%q", clipText(n.ContentDesc))
		}
		if n.ResourceID != "" {
			fmt.Fprintf(&b, " resource_id=%q", clipText(n.ResourceID))
		}
	}
	return b.String()
}

func clipText(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// msgNoNear is what an agent can do when nothing on the screen is near
// what it asked for: the element may be further down, behind the keyboard,
// not there yet, or named otherwise.
const msgNoNear = "; nothing similar is on it: call android_observe (or android_ui_elements) to see what is there, " +
	"android_swipe to scroll if it may be further down, or android_wait_for if it is still loading"

// resolve finds the one node c selects in s, or an *elementError. A ref
// from an earlier screen (prev, nil when unknown) is found again by
// identity when that is unambiguous.
func (s *screen) resolve(c *compiled, prev *screen) (int, error) {
	if c.Ref != "" {
		i, _ := refIndex(c.Ref)
		if c.ScreenID == s.id {
			if i >= len(s.nodes) {
				return 0, &elementError{Code: codeElementNotFound, Message: fmt.Sprintf("no element %s on screen %s", c.Ref, s.id)}
			}
			return i, nil
		}
		if prev == nil || prev.id != c.ScreenID || i >= len(prev.nodes) {
			return 0, &elementError{Code: codeElementNotFound, Message: fmt.Sprintf(
				"the screen changed since %s (now %s) and %s cannot be found again: list the elements anew", c.ScreenID, s.id, c.Ref)}
		}
		if j, ok := s.reidentify(&prev.nodes[i]); ok {
			return j, nil
		}
		return 0, &elementError{Code: codeElementNotFound, Message: fmt.Sprintf(
			"the screen changed since %s (now %s) and %s is not on it, or not only once: list the elements anew", c.ScreenID, s.id, c.Ref)}
	}
	var hits []int
	for i := range s.nodes {
		if c.matches(&s.nodes[i]) {
			hits = append(hits, i)
		}
	}
	_, want := c.value(&parse.UINode{})
	switch {
	case c.Index != nil && *c.Index < len(hits):
		return hits[*c.Index], nil
	case c.Index != nil:
		return 0, &elementError{Code: codeElementNotFound, Message: fmt.Sprintf("index %d, but %d element(s) match %q", *c.Index, len(hits), want)}
	case len(hits) == 1:
		return hits[0], nil
	case len(hits) > 1:
		return 0, &elementError{Code: codeElementAmbiguous, Message: fmt.Sprintf(
			"%d elements match %q; add index (0-based) or use a ref: %s", len(hits), want, s.describe(hits, maxCandidates))}
	}
	msg := fmt.Sprintf("no element matches %q on screen %s", want, s.id)
	if near := s.near(want); len(near) > 0 {
		msg += "; near: " + s.describe(near, maxNear)
	} else {
		msg += msgNoNear
	}
	return 0, &elementError{Code: codeElementNotFound, Message: msg}
}

// reidentify finds old's element in s: the same class, resource id, text
// and description; among several, the one whose centre is strictly
// nearest to old's.
func (s *screen) reidentify(old *parse.UINode) (int, bool) {
	best, bestD, tie := -1, 0, false
	for i := range s.nodes {
		n := &s.nodes[i]
		if n.Class != old.Class || n.ResourceID != old.ResourceID || n.Text != old.Text || n.ContentDesc != old.ContentDesc {
			continue
		}
		dx, dy := n.Center.X-old.Center.X, n.Center.Y-old.Center.Y
		d := dx*dx + dy*dy
		switch {
		case best < 0 || d < bestD:
			best, bestD, tie = i, d, false
		case d == bestD:
			tie = true
		}
	}
	return best, best >= 0 && !tie
}

// near lists nodes whose text, description or id contains q or is
// contained in it, case-insensitively: what the agent may have meant.
func (s *screen) near(q string) []int {
	q = strings.ToLower(strings.TrimSpace(q))
	if q == "" {
		return nil
	}
	var out []int
	for i := range s.nodes {
		n := &s.nodes[i]
		for _, v := range []string{n.Text, n.ContentDesc, n.ResourceID} {
			v = strings.ToLower(v)
			if v != "" && (strings.Contains(v, q) || len(v) >= 3 && strings.Contains(q, v)) {
				out = append(out, i)
				break
			}
		}
		if len(out) > maxNear {
			break
		}
	}
	return out
}
