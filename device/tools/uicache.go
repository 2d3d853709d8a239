package tools

import (
	"sync"

	"github.com/adb-connector/adb-connector/adb"
)

// A `uiautomator dump` costs a phone well over a second (its Java start
// and its idle wait), and an agent's usual step is to observe and then tap
// an element of what it saw. The tree it saw is kept per phone with the
// marks of that moment: an acting tap may use it instead of a new dump,
// when its ref names that very screen and nothing can have acted on the
// phone since. The rule, conservative on purpose:
//
//   - Every dump refreshes the phone's entry; nothing that must see the
//     live screen (android_ui_elements, android_observe, android_wait_for,
//     verify's after-dumps, a text selector's lookup) reads the entry.
//   - Every call of a tool that is not read-only takes the entry out
//     before it runs (a second call finds none): only that call may use
//     it, and only to resolve a ref whose screen_id is the entry's.
//   - The entry is void when an action started on the phone after its
//     dump began: an acting tool call (the per-phone epoch), or any input,
//     app start/stop, reset or shell command through package adb, the
//     operator's reset included (adb.Device.ActionSeq).
//
// What stays uncovered is what the phone does on its own between the dump
// and the tap (an animation that moves the element, a dialog that pops
// up); a fresh dump just before the tap narrows that window, it does not
// close it.

// uiCache is the last dump of each phone. Safe for concurrent use.
type uiCache struct {
	mu     sync.Mutex
	epochs map[string]uint64 // device key -> acting tool calls begun
	last   map[string]uiEntry
}

// uiEntry is a phone's last dump and the marks of when it began.
type uiEntry struct {
	s     *screen
	epoch uint64 // uiCache.epochs at the dump's start
	seq   uint64 // adb.Device.ActionSeq at the dump's start
}

// uiMark is the state a dump began in.
type uiMark struct{ epoch, seq uint64 }

// begin marks the start of a dump of d.
func (c *uiCache) begin(d *adb.Device) uiMark {
	c.mu.Lock()
	defer c.mu.Unlock()
	return uiMark{epoch: c.epochs[d.Key()], seq: d.ActionSeq()}
}

// put records s, dumped from m on, as d's last screen, unless an acting
// call began meanwhile.
func (c *uiCache) put(d *adb.Device, s *screen, m uiMark) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := d.Key()
	if c.epochs[key] != m.epoch {
		return
	}
	if c.last == nil {
		c.last = map[string]uiEntry{}
	}
	if len(c.last) > 1024 {
		clear(c.last) // a bound, not an eviction policy: a lab has far fewer phones
	}
	c.last[key] = uiEntry{s: s, epoch: m.epoch, seq: m.seq}
}

// take starts an acting call on d: it ends the current epoch and returns
// the last screen if nothing acted on d since its dump began (nil
// otherwise). Later calls get nil until the next dump.
func (c *uiCache) take(d *adb.Device) *screen {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := d.Key()
	if c.epochs == nil {
		c.epochs = map[string]uint64{}
	}
	e, ok := c.last[key]
	delete(c.last, key)
	valid := ok && e.epoch == c.epochs[key] && e.seq == d.ActionSeq()
	c.epochs[key]++
	if !valid {
		return nil
	}
	return e.s
}

// forRef returns s if it is the screen sel's ref names (nil otherwise, or
// when sel selects by text, id or description: those name no screen).
func forRef(s *screen, sel *compiled) *screen {
	if s == nil || sel == nil || sel.Ref == "" || sel.ScreenID != s.id {
		return nil
	}
	return s
}
