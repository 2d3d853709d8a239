package tools

import (
	"cmp"
	"encoding/json"
	"slices"
	"sync"

	"github.com/adb-connector/adb-connector/adb/parse"
)

// After an action an agent usually needs only what moved: a toggle that
// flipped, a dialog that opened. With since, a listing says what changed
// against a screen the channel received before (as agent-device's
// snapshot --diff and Android CLI's layout --diff do), in a tenth of the
// tokens of a new listing; the agent applies it to the listing it holds.
//
// The diff is by ref, because a ref is what the agent acts on: an element
// is unchanged when the old and new listings have it under the same ref
// with the same identity (what stale-ref re-finding matches on: class,
// resource id, text, description; sameIdentity) and the same fields, so
// its ref taps the same element with either screen_id. Under the same ref
// with the same identity but other fields (checked, bounds, flags) it is
// changed; a ref whose element is another one, or that is new, is added
// (and, when the ref was listed before, also in removed); a ref no longer
// listed is removed. Applying removed, then added and changed, to the old
// listing gives the new one exactly.

// ScreensKept is how many screens per channel a since may name: the last
// ones the channel received from android_ui_elements, android_observe
// and a batch's observe_after, in memory (a restart forgets them).
const ScreensKept = 8

// sentScreens remembers, per channel, the screens it received. Safe for
// concurrent use.
type sentScreens struct {
	mu sync.Mutex
	m  map[string][]sentScreen // channel id -> newest last
}

// sentScreen is a screen and the phone it came from: a since names a
// screen of the phone the channel is bound to now.
type sentScreen struct {
	dev string
	s   *screen
	// state is the result's foreground and screen as sent, which a
	// since result leaves out when they have not changed.
	state map[string]json.RawMessage
}

func (c *sentScreens) put(channel, dev string, s *screen, state map[string]json.RawMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string][]sentScreen{}
	}
	if len(c.m) > 4096 {
		clear(c.m) // a bound, not an eviction policy: a lab has far fewer channels
	}
	l := slices.DeleteFunc(c.m[channel], func(o sentScreen) bool { return o.dev == dev && o.s.id == s.id })
	l = append(l, sentScreen{dev: dev, s: s, state: state})
	if len(l) > ScreensKept {
		l = slices.Delete(l, 0, len(l)-ScreensKept)
	}
	c.m[channel] = l
}

// get returns the screen id the channel received from dev, or nil.
func (c *sentScreens) get(channel, dev, id string) *sentScreen {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, o := range c.m[channel] {
		if o.dev == dev && o.s.id == id {
			return &o // a copy: put reorders the list
		}
	}
	return nil
}

// stateKeys are the parts of a listing result a since result leaves out
// when they equal those of the screen it names.
var stateKeys = []string{"foreground", "screen"}

// sameIdentity: a and b are the same element for stale-ref re-finding
// (reidentify) and for since.
func sameIdentity(a, b *parse.UINode) bool {
	return a.Class == b.Class && a.ResourceID == b.ResourceID && a.Text == b.Text && a.ContentDesc == b.ContentDesc
}

// Changes is what a listing with since returns instead of elements.
// Added and Changed are in the requested element format, in document
// order; Removed are refs of the old listing, in order.
type Changes struct {
	Added   any      `json:"added,omitempty"`
	Changed any      `json:"changed,omitempty"`
	Removed []string `json:"removed,omitempty"`
}

// diffElements compares the listing of old (was) with the listing of now
// (is), both made with the same filter and bound.
func diffElements(old *screen, was []element, now *screen, is []element) (added, changed []element, removed []string) {
	byRef := make(map[string]int, len(was))
	for i, e := range was {
		byRef[e.Ref] = i
	}
	for _, e := range is {
		oi, ok := byRef[e.Ref]
		if !ok {
			added = append(added, e)
			continue
		}
		delete(byRef, e.Ref)
		k, _ := refIndex(e.Ref)
		switch {
		case !sameIdentity(&old.nodes[k], &now.nodes[k]):
			removed = append(removed, e.Ref)
			added = append(added, e)
		case was[oi] != e:
			changed = append(changed, e)
		}
	}
	for r := range byRef {
		removed = append(removed, r)
	}
	slices.SortFunc(removed, func(a, b string) int {
		i, _ := refIndex(a)
		j, _ := refIndex(b)
		return cmp.Compare(i, j)
	})
	return added, changed, removed
}

// listing is how a listing tool made its elements, to list an earlier
// screen the same way.
type listing struct {
	filter, pkg string
	max         int
}

// shapeElements turns a listing result base (today's shape: elements as
// objects) into what v asks for, and records s as received by the
// channel. With the defaults base is returned as it is. A since result
// leaves out foreground and screen when they are those of the since
// screen's result, and any of added, changed, removed that is empty.
func (t *Tools) shapeElements(inv *invocation, v elementViewArgs, base any, s *screen, is []element, l listing) (any, error) {
	b, err := json.Marshal(base)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	ch, dev := inv.call.Channel.ID, inv.meta.Key
	var old *sentScreen
	if v.Since != "" {
		old = t.sent.get(ch, dev, v.Since)
	}
	state := map[string]json.RawMessage{}
	for _, k := range stateKeys {
		state[k] = m[k]
	}
	t.sent.put(ch, dev, s, state)
	lines := v.ElementFormat == FormatLines
	if !lines && v.Since == "" {
		return base, nil
	}
	format := func(es []element) any {
		if lines {
			return elementLines(es)
		}
		return es
	}
	delta := func(es []element) any {
		if len(es) == 0 {
			return nil // left out
		}
		return format(es)
	}
	set := func(k string, v any) {
		m[k], _ = json.Marshal(v)
	}
	switch {
	case old != nil:
		was, _ := old.s.elements(l.filter, l.pkg, l.max)
		added, changed, removed := diffElements(old.s, was, s, is)
		delete(m, "elements")
		for _, k := range stateKeys {
			if string(old.state[k]) == string(m[k]) {
				delete(m, k)
			}
		}
		set("changes", Changes{Added: delta(added), Changed: delta(changed), Removed: removed})
	case v.Since != "":
		set("since_unknown", true)
		set("elements", format(is))
	default:
		set("elements", format(is))
	}
	return m, nil
}
