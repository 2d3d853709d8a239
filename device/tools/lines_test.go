package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/adbtest"
	"github.com/adb-connector/adb-connector/adb/parse"
)

// parseLine reads one element line back by the grammar of lines.go (as an
// agent would): the objects' fields it keeps, resource ids short.
func parseLine(line string) (element, error) {
	var e element
	head := regexp.MustCompile(`^(e[0-9]+) (\S+)`)
	m := head.FindStringSubmatch(line)
	if m == nil {
		return e, fmt.Errorf("no ref and class in %q", line)
	}
	e.Ref, e.Class = m[1], m[2]
	if e.Class == "-" {
		e.Class = ""
	}
	rest := line[len(m[0]):]
	quoted := func(prefix string) (string, bool, error) {
		if !strings.HasPrefix(rest, " "+prefix+`"`) {
			return "", false, nil
		}
		r := rest[1+len(prefix):]
		q, err := strconv.QuotedPrefix(r)
		if err != nil {
			return "", false, err
		}
		rest = r[len(q):]
		s, err := strconv.Unquote(q)
		return s, true, err
	}
	var err error
	if e.Text, _, err = quoted(""); err != nil {
		return e, err
	}
	if e.ContentDesc, _, err = quoted("desc="); err != nil {
		return e, err
	}
	tail := regexp.MustCompile(`^(?: #(\S+))? \((-?[0-9]+),(-?[0-9]+)\)((?: [a-z_]+)*)$`)
	t := tail.FindStringSubmatch(rest)
	if t == nil {
		return e, fmt.Errorf("bad tail %q", rest)
	}
	e.ResourceID = t[1]
	e.Center[0], _ = strconv.Atoi(t[2])
	e.Center[1], _ = strconv.Atoi(t[3])
	flags := map[string]*bool{"clickable": &e.Clickable, "long_clickable": &e.LongClickable, "checkable": &e.Checkable,
		"checked": &e.Checked, "scrollable": &e.Scrollable, "editable": &e.Editable, "focused": &e.Focused,
		"selected": &e.Selected, "password": &e.Password, "disabled": &e.Disabled}
	for _, f := range strings.Fields(t[4]) {
		p, ok := flags[f]
		if !ok {
			return e, fmt.Errorf("unknown flag %q", f)
		}
		*p = true
	}
	return e, nil
}

// lineFields is what a line keeps of an object.
func lineFields(e element) element {
	return element{Ref: e.Ref, Class: e.Class, Text: e.Text, ContentDesc: e.ContentDesc, ResourceID: shortID(e.ResourceID),
		Center: e.Center, Clickable: e.Clickable, LongClickable: e.LongClickable, Checkable: e.Checkable, Checked: e.Checked,
		Scrollable: e.Scrollable, Editable: e.Editable, Focused: e.Focused, Selected: e.Selected, Password: e.Password,
		Disabled: e.Disabled}
}

// TestElementLinesParseBack lists every real dump of adb/parse/testdata as
// lines and reads them back: the objects' fields, each one.
func TestElementLinesParseBack(t *testing.T) {
	t.Parallel()
	names, err := filepath.Glob(filepath.Join("..", "..", "adb", "parse", "testdata", "uidump", "*.xml"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no dumps: %v", err)
	}
	for _, path := range names {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			root, err := parse.UIDump(b)
			if err != nil {
				t.Skip("not a dump (a parser error case)")
			}
			s := newScreen(root)
			objs, _ := s.elements(filterAll, "", maxElements)
			for i, line := range elementLines(objs) {
				got, err := parseLine(line)
				if err != nil {
					t.Fatalf("line %q: %v", line, err)
				}
				if diff := cmp.Diff(lineFields(objs[i]), got); diff != "" {
					t.Errorf("line %q (-object +parsed):\n%s", line, diff)
				}
			}
		})
	}
	e := element{Ref: "e7", Class: "Button", Text: "Sign in", ResourceID: "com.example:id/sign_in", Center: [2]int{540, 1620}, Clickable: true}
	if got := elementLine(&e); got != `e7 Button "Sign in" #sign_in (540,1620) clickable` {
		t.Errorf("line = %s", got)
	}
	e = element{Ref: "e8", Text: "say \"hi\"\nthere", ContentDesc: "d", Center: [2]int{1, 2}, Checkable: true, Checked: true, Disabled: true}
	if got := elementLine(&e); got != `e8 - "say \"hi\"\nthere" desc="d" (1,2) checkable checked disabled` {
		t.Errorf("line = %s", got)
	}
}

// listed is a listing result in either format, with or without changes.
type listed struct {
	ScreenID     string          `json:"screen_id"`
	Omitted      int             `json:"omitted"`
	Screen       uiScreen        `json:"screen"`
	Foreground   *struct{}       `json:"foreground"`
	Elements     json.RawMessage `json:"elements"`
	SinceUnknown bool            `json:"since_unknown"`
	Changes      *struct {
		Added   json.RawMessage `json:"added"`
		Changed json.RawMessage `json:"changed"`
		Removed []string        `json:"removed"`
	} `json:"changes"`
}

// TestLinesAndSinceOnVirtualPhone: through the real adb server, lines
// carry the objects' refs and screen_id; after a Wi-Fi toggle, since
// returns that switch alone, an unchanged ref taps with the new screen_id,
// and a since the channel never received (another channel's) is unknown.
func TestLinesAndSinceOnVirtualPhone(t *testing.T) {
	e := newToolsEnvOpts(t, adbtest.Options{Devices: 2, Scenario: "launcher"}, adb.Limits{}, func(c *Config) { c.RatePerMinute = 1 << 20 })
	ch := devChannel(0)
	call := func(t *testing.T, tool, args string, v any) {
		t.Helper()
		mustOK(t, e.call(t, t.Context(), ch, tool, args, "", nil), v)
	}
	call(t, "android_tap", `{"text":"Settings"}`, nil)
	call(t, "android_tap", `{"text":"Network & internet"}`, nil)

	var objs uiElementsResult
	call(t, "android_ui_elements", `{}`, &objs)
	var lines listed
	call(t, "android_ui_elements", `{"element_format":"lines"}`, &lines)
	var ls []string
	if err := json.Unmarshal(lines.Elements, &ls); err != nil {
		t.Fatalf("lines: %s: %v", lines.Elements, err)
	}
	if lines.ScreenID != objs.ScreenID || lines.Screen != objs.Screen || len(ls) != len(objs.Elements) {
		t.Fatalf("lines %s %+v %d, objects %s %+v %d", lines.ScreenID, lines.Screen, len(ls), objs.ScreenID, objs.Screen, len(objs.Elements))
	}
	var sw element
	for i, l := range ls {
		got, err := parseLine(l)
		if err != nil || got != lineFields(objs.Elements[i]) {
			t.Errorf("line %q parses to %+v (%v), object %+v", l, got, err, objs.Elements[i])
		}
		if got.Class == "Switch" && got.ContentDesc == "Wi-Fi" {
			sw = objs.Elements[i]
		}
	}
	if sw.Ref == "" {
		t.Fatalf("no switch in %q", ls)
	}

	call(t, "android_tap", `{"text":"Wi-Fi","verify":true}`, nil)
	var ch1 listed
	call(t, "android_ui_elements", fmt.Sprintf(`{"element_format":"lines","since":%q}`, objs.ScreenID), &ch1)
	// The same app and screen size: left out.
	if ch1.Changes == nil || ch1.Elements != nil || ch1.SinceUnknown || ch1.ScreenID == objs.ScreenID || ch1.Foreground != nil || ch1.Screen.Width != 0 {
		t.Fatalf("since: %+v", ch1)
	}
	var added, changed []string
	if ch1.Changes.Added != nil || json.Unmarshal(ch1.Changes.Changed, &changed) != nil {
		t.Fatalf("changes %s %s", ch1.Changes.Added, ch1.Changes.Changed)
	}
	if len(added) != 0 || len(ch1.Changes.Removed) != 0 || len(changed) != 1 || !strings.HasPrefix(changed[0], sw.Ref+" Switch ") ||
		strings.Contains(changed[0], " checked") == sw.Checked {
		t.Fatalf("one toggle: added %q changed %q removed %q (switch was %+v)", added, changed, ch1.Changes.Removed, sw)
	}
	// Objects format: the changed element as an object.
	var ch2 listed
	call(t, "android_ui_elements", fmt.Sprintf(`{"since":%q}`, objs.ScreenID), &ch2)
	var changedObjs []element
	if ch2.Changes == nil || json.Unmarshal(ch2.Changes.Changed, &changedObjs) != nil || len(changedObjs) != 1 || changedObjs[0].Ref != sw.Ref {
		t.Fatalf("since, objects: %+v", ch2.Changes)
	}
	// An unchanged element's ref taps with the new screen_id: Wi-Fi's
	// row text, unchanged, turns the switch back.
	var row element
	for _, el := range objs.Elements {
		if el.Text == "Wi-Fi" {
			row = el
		}
	}
	var tap struct {
		Element element `json:"element"`
	}
	call(t, "android_tap", fmt.Sprintf(`{"ref":%q,"screen_id":%q}`, row.Ref, ch1.ScreenID), &tap)
	if tap.Element.Text != "Wi-Fi" {
		t.Errorf("unchanged ref %s on the new screen tapped %+v", row.Ref, tap.Element)
	}

	// Another channel never received the screen: unknown, full list.
	var other listed
	mustOK(t, e.call(t, t.Context(), devChannel(1), "android_ui_elements", fmt.Sprintf(`{"since":%q}`, objs.ScreenID), "", nil), &other)
	if !other.SinceUnknown || other.Changes != nil || len(other.Elements) == 0 {
		t.Errorf("since of another channel: %+v", other)
	}
	// Unknown format, malformed since: invalid_arguments.
	for _, args := range []string{`{"element_format":"yaml"}`, `{"since":"not a screen"}`} {
		if a := e.call(t, t.Context(), ch, "android_ui_elements", args, "", nil); a.Err == nil || a.Err.Code != "invalid_arguments" {
			t.Errorf("%s: %+v", args, a.Err)
		}
	}
	// android_observe: lines, and since; element_format with elements none is refused.
	var obs listed
	call(t, "android_observe", `{"max_side":256,"element_format":"lines"}`, &obs)
	if err := json.Unmarshal(obs.Elements, &ls); err != nil || len(ls) == 0 {
		t.Fatalf("observe lines: %s", obs.Elements)
	}
	var obs2 listed
	call(t, "android_observe", fmt.Sprintf(`{"max_side":256,"element_format":"lines","since":%q}`, obs.ScreenID), &obs2)
	if obs2.Changes == nil || obs2.ScreenID != obs.ScreenID || obs2.Changes.Changed != nil || obs2.Changes.Added != nil || obs2.Changes.Removed != nil {
		t.Errorf("observe since the same screen: %+v", obs2)
	}
	if a := e.call(t, t.Context(), ch, "android_observe", `{"elements":"none","element_format":"lines"}`, "", nil); a.Err == nil || a.Err.Code != "invalid_arguments" {
		t.Errorf("element_format with elements none: %+v", a.Err)
	}
}

// TestMarksOnVirtualPhone: through the real adb server, marks: true adds
// a marked copy (a different image of the same size) whose screen_id is
// the listing's; the plain image is the one returned without marks.
func TestMarksOnVirtualPhone(t *testing.T) {
	e := newToolsEnvOpts(t, adbtest.Options{Devices: 1, Scenario: "login"}, adb.Limits{}, nil)
	ch := devChannel(0)
	var obs observeResult
	mustOK(t, e.call(t, t.Context(), ch, "android_observe", `{"max_side":512,"format":"jpeg","marks":true}`, "", nil), &obs)
	m := obs.Screenshot.Marked
	if m == nil || m.ScreenID != obs.ScreenID || m.Marks != len(obs.Elements) || m.Width != obs.Screenshot.Width || m.FileRef == obs.Screenshot.FileRef {
		t.Fatalf("observe marks: %+v", obs.Screenshot)
	}
	if bytes.Equal(e.download(t, m.FileRef, ch), e.download(t, obs.Screenshot.FileRef, ch)) {
		t.Error("the marked copy is the plain image")
	}
	var shot ScreenshotResult
	mustOK(t, e.call(t, t.Context(), ch, "android_screenshot", `{"max_side":512,"marks":true}`, "", nil), &shot)
	if shot.Marked == nil || shot.Marked.ScreenID != obs.ScreenID || shot.Marked.Marks == 0 {
		t.Fatalf("screenshot marks: %+v", shot)
	}
	var plain ScreenshotResult
	mustOK(t, e.call(t, t.Context(), ch, "android_screenshot", `{"max_side":512}`, "", nil), &plain)
	if plain.Marked != nil {
		t.Errorf("marks without asking: %+v", plain)
	}
	// Marks keep each tool's image defaults: android_observe's JPEG of at
	// most 1024 px at quality 75, android_screenshot's full-size PNG.
	var def observeResult
	mustOK(t, e.call(t, t.Context(), ch, "android_observe", `{"marks":true}`, "", nil), &def)
	for _, f := range []FileResult{def.Screenshot.FileResult, def.Screenshot.Marked.FileResult} {
		if f.MIMEType != "image/jpeg" || max(f.Width, f.Height) > observeMaxSide {
			t.Errorf("observe marks without image arguments: %+v, want a JPEG of at most %d px", f, observeMaxSide)
		}
	}
	var full ScreenshotResult
	mustOK(t, e.call(t, t.Context(), ch, "android_screenshot", `{"marks":true}`, "", nil), &full)
	if full.MIMEType != "image/png" || full.Marked.MIMEType != "image/png" || full.Scale != 1 || full.Marked.Width != full.Width {
		t.Errorf("screenshot marks without image arguments: %+v, want full-size PNGs", full)
	}
	if a := e.call(t, t.Context(), ch, "android_observe", `{"elements":"none","marks":true}`, "", nil); a.Err == nil || a.Err.Code != "invalid_arguments" {
		t.Errorf("marks with elements none: %+v", a.Err)
	}
}
