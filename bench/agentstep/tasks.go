package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android"
)

// elem is one UI element as either side sees it: the agent's
// android_observe elements, or the baseline's parsed uiautomator dump.
type elem struct {
	Ref                           string // ours: the element's ref in ScreenID's tree
	Text, ResourceID, ContentDesc string
	Checkable, Checked            bool
	X, Y                          int // centre, device pixels
}

// view is what one observation tells the agent's logic.
type view struct {
	Elems   []elem
	Package string // app in front
	// ScreenID is ours: the tree the refs of Elems belong to.
	ScreenID string
	W, H     int // screen, device pixels
}

// find returns the first element (document order) sel matches: exact
// text, or a resource id given whole or as the part after ":id/".
func (v view) find(sel selector) (elem, bool) {
	for _, e := range v.Elems {
		if sel.Text != "" && e.Text == sel.Text ||
			sel.ResourceID != "" && (e.ResourceID == sel.ResourceID || strings.HasSuffix(e.ResourceID, ":id/"+sel.ResourceID)) {
			return e, true
		}
	}
	return elem{}, false
}

// selector names an element by text or resource id, as an agent would
// after reading the screen.
type selector struct {
	Text       string `json:"text,omitempty"`
	ResourceID string `json:"resource_id,omitempty"`
}

func (s selector) String() string {
	if s.Text != "" {
		return fmt.Sprintf("text %q", s.Text)
	}
	return fmt.Sprintf("resource id %q", s.ResourceID)
}

// The acts of a step.
const (
	actTap      = "tap"       // tap an element
	actType     = "type"      // tap a field, type text
	actScrollTo = "scroll_to" // swipe up until an element is on screen
	actOpenURL  = "open_url"  // VIEW intent
	actNone     = ""          // a last look: the task's check
)

// step is one observe + act of a task.
type step struct {
	Act    string
	Target selector
	Text   string // actType
	URL    string // actOpenURL
}

// task is a scripted agent task: a reset that puts the phone where the
// task starts (untimed, straight into the virtual phone), the steps, and
// the check of the last observation.
type task struct {
	Name  string
	Reset []string // device command lines
	Steps []step
	Check func(view) error
}

// listResetSwipes drag the list back to its top on a w x h screen (each
// moves over 80% of the screen, the 100 rows are about 8 screens):
// force-stop does not reset the virtual phone's scroll position.
func listResetSwipes(w, h int) []string {
	return slices.Repeat([]string{fmt.Sprintf("input swipe %d %d %d %d 50", w/2, h/8, w/2, h*15/16)}, 10)
}

// tasks are the scripted agent tasks, from the flows of the end-to-end
// tests (cmd/adb-connector: TestLoginFlows, TestWiFiToggleFlow,
// TestSwipeListFlow, TestOpenURLFlow). All run on the launcher scenario,
// which holds every app; the screen is w x h.
func tasks(w, h int) []task {
	return []task{{
		Name:  "login",
		Reset: []string{"am force-stop com.example.login", "am start -n com.example.login/.LoginActivity"},
		Steps: []step{
			{Act: actType, Target: selector{ResourceID: "username"}, Text: "ann"},
			{Act: actType, Target: selector{ResourceID: "password"}, Text: "pw"},
			{Act: actTap, Target: selector{ResourceID: "submit"}},
			{Act: actNone},
		},
		Check: func(v view) error { return want(v, selector{Text: "Welcome, ann!"}) },
	}, {
		Name:  "wifi",
		Reset: []string{"am force-stop com.android.settings", "settings put global wifi_on 1", "input keyevent 3"},
		Steps: []step{
			{Act: actTap, Target: selector{Text: "Settings"}},
			{Act: actTap, Target: selector{Text: "Network & internet"}},
			{Act: actTap, Target: selector{Text: "Wi-Fi"}},
			{Act: actNone},
		},
		Check: func(v view) error {
			for _, e := range v.Elems {
				if e.ContentDesc == "Wi-Fi" && e.Checkable {
					if e.Checked {
						return fmt.Errorf("the Wi-Fi switch is still on")
					}
					return nil
				}
			}
			return fmt.Errorf("no Wi-Fi switch on screen (%s)", v.Package)
		},
	}, {
		Name:  "list",
		Reset: append([]string{"am force-stop com.example.list", "am start -n com.example.list/.ListActivity"}, listResetSwipes(w, h)...),
		Steps: []step{
			{Act: actScrollTo, Target: selector{Text: "Item 80"}},
			{Act: actNone},
		},
		Check: func(v view) error { return want(v, selector{Text: "Item 80"}) },
	}, {
		Name:  "url",
		Reset: []string{"am force-stop com.android.chrome", "input keyevent 3"},
		Steps: []step{
			{Act: actOpenURL, URL: "https://example.com/"},
			{Act: actNone},
		},
		Check: func(v view) error {
			if v.Package != "com.android.chrome" {
				return fmt.Errorf("%s in front, want com.android.chrome", v.Package)
			}
			return nil
		},
	}}
}

func want(v view, sel selector) error {
	if _, ok := v.find(sel); !ok {
		return fmt.Errorf("no element with %s on screen (%s)", sel, v.Package)
	}
	return nil
}

// reset runs t's reset lines on the phone, straight into the model (no
// adb, no link), so neither side pays for it.
func reset(ctx context.Context, d *android.Device, t task) error {
	for _, line := range t.Reset {
		var stderr strings.Builder
		if rc := d.Run(ctx, line, nil, io.Discard, &stderr); rc != 0 {
			return fmt.Errorf("reset %s: %q: exit %d: %s", t.Name, line, rc, stderr.String())
		}
	}
	return nil
}

// side is one way of driving the phone: our server and tools, or the
// baseline's adb CLI processes.
type side interface {
	name() string
	// observe is the look at the screen an agent takes before acting: a
	// JPEG of at most 1024 pixels for the model and the UI elements.
	observe(ctx context.Context) (view, error)
	// act does s's act after observation v. actScrollTo may observe again
	// (the baseline's loop) and returns the observations it made.
	act(ctx context.Context, s step, v view) (observations int, err error)
}

// stepTiming is one step's measured parts.
type stepTiming struct {
	Act            string
	Observe, Total time.Duration
	Observations   int
}

// runTask runs t's steps on s and checks the outcome. think is the
// model's time between an observation and its act: waited, never timed
// (see -think).
func runTask(ctx context.Context, s side, t task, think time.Duration) ([]stepTiming, error) {
	var out []stepTiming
	for i, st := range t.Steps {
		start := time.Now()
		v, err := s.observe(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s step %d: observe: %w", t.Name, i+1, err)
		}
		obs := time.Since(start)
		n, acted := 1, time.Duration(0)
		if st.Act == actNone {
			if err := t.Check(v); err != nil {
				return nil, fmt.Errorf("%s: %s: %w", t.Name, s.name(), err)
			}
		} else {
			if err := pause(ctx, think); err != nil {
				return nil, err
			}
			start := time.Now()
			k, err := s.act(ctx, st, v)
			if err != nil {
				return nil, fmt.Errorf("%s step %d: %s: %w", t.Name, i+1, st.Act, err)
			}
			n += k
			acted = time.Since(start)
		}
		out = append(out, stepTiming{Act: st.Act, Observe: obs, Total: obs + acted, Observations: n})
	}
	return out, nil
}

// pause waits d (the model thinking), or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
