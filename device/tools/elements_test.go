package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/parse"
)

// loadScreen parses a uiautomator dump fixture of package adb/parse (real
// dumps from public sources; see its testdata/SOURCES.md).
func loadScreen(t testing.TB, name string) *screen {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "adb", "parse", "testdata", "uidump", name))
	if err != nil {
		t.Fatal(err)
	}
	root, err := parse.UIDump(b)
	if err != nil {
		t.Fatal(err)
	}
	return newScreen(root)
}

func TestElementsFilters(t *testing.T) {
	t.Parallel()
	s := loadScreen(t, "api33_login_tty.xml")
	all, omitted := s.elements(filterAll, "", defaultMaxElements)
	if len(all) != 5 || omitted != 0 {
		t.Fatalf("all: %d elements, %d omitted", len(all), omitted)
	}
	want := []element{
		{Ref: "e1", Class: "EditText", ClassName: "android.widget.EditText", Text: "user@example.com", ResourceID: "com.example.login:id/email",
			Bounds: [4]int{600, 200, 1800, 320}, Center: [2]int{1200, 260}, Clickable: true, LongClickable: true, Editable: true, Focused: true},
		{Ref: "e2", Class: "EditText", ClassName: "android.widget.EditText", Text: "••••••", ResourceID: "com.example.login:id/password",
			Bounds: [4]int{600, 360, 1800, 480}, Center: [2]int{1200, 420}, Clickable: true, LongClickable: true, Editable: true, Password: true},
		{Ref: "e3", Class: "Button", ClassName: "android.widget.Button", Text: "Sign in", ResourceID: "com.example.login:id/submit",
			Bounds: [4]int{600, 540, 1800, 660}, Center: [2]int{1200, 600}, Clickable: true, Disabled: true},
		{Ref: "e4", Class: "ImageButton", ClassName: "android.widget.ImageButton", ContentDesc: "Show password\ntoggle",
			Bounds: [4]int{1700, 380, 1780, 460}, Center: [2]int{1740, 420}, Clickable: true},
	}
	got, _ := s.elements(filterMeaningful, "", defaultMaxElements)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("meaningful (-want +got):\n%s", diff)
	}
	// The disabled button cannot be acted on.
	got, _ = s.elements(filterInteractive, "", defaultMaxElements)
	if refs := refsOf(got); !cmp.Equal(refs, []string{"e1", "e2", "e4"}) {
		t.Errorf("interactive = %v", refs)
	}
	got, omitted = s.elements(filterMeaningful, "", 2)
	if refs := refsOf(got); !cmp.Equal(refs, []string{"e1", "e2"}) || omitted != 2 {
		t.Errorf("max 2 = %v, omitted %d", refs, omitted)
	}
	if got, _ = s.elements(filterAll, "com.android.systemui", 10); len(got) != 0 {
		t.Errorf("other package: %v", refsOf(got))
	}
	if g := s.geometry(adbScreen(1080, 2400, 0)); g != (uiScreen{Width: 2400, Height: 1080, Rotation: 90}) {
		t.Errorf("geometry of a rotation=1 dump = %+v", g)
	}
}

func refsOf(es []element) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Ref)
	}
	return out
}

func TestScreenID(t *testing.T) {
	t.Parallel()
	a, b := loadScreen(t, "api33_login_tty.xml"), loadScreen(t, "api33_login_tty.xml")
	if a.id != b.id || !strings.HasPrefix(a.id, "s") || len(a.id) != 25 {
		t.Fatalf("same tree, ids %q %q", a.id, b.id)
	}
	b.nodes[3].Enabled = true // the button became enabled
	if screenID(b.root, b.nodes) == a.id {
		t.Error("a state change kept the screen_id")
	}
	if loadScreen(t, "api26_settings.xml").id == a.id {
		t.Error("two screens share an id")
	}
}

func TestSelectorCompile(t *testing.T) {
	t.Parallel()
	one := 1
	for _, tc := range []struct {
		name  string
		sel   selector
		field string // of the *argError; "-" for none
	}{
		{"text", selector{Text: "OK"}, "-"},
		{"ref", selector{Ref: "e3", ScreenID: "sabc"}, "-"},
		{"@ref", selector{Ref: "@e3", ScreenID: "sabc"}, "-"},
		{"regex", selector{Text: "^Sign", Match: matchRegex}, "-"},
		{"nothing", selector{}, ""},
		{"index alone", selector{Index: &one}, "index"},
		{"two targets", selector{Text: "a", ResourceID: "b"}, ""},
		{"ref without screen", selector{Ref: "e3"}, "screen_id"},
		{"bad ref", selector{Ref: "button", ScreenID: "s"}, "ref"},
		{"screen without ref", selector{Text: "a", ScreenID: "s"}, "screen_id"},
		{"ref with index", selector{Ref: "e1", ScreenID: "s", Index: &one}, "ref"},
		{"bad regex", selector{Text: "(", Match: matchRegex}, "match"},
		{"long regex", selector{Text: strings.Repeat("a", maxRegexBytes+1), Match: matchRegex}, "match"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.sel.compile("")
			var ae *argError
			switch {
			case tc.field == "-" && err != nil:
				t.Fatalf("error %v", err)
			case tc.field != "-" && (!errors.As(err, &ae) || ae.Field != tc.field):
				t.Fatalf("error %v, want an ArgError on %q", err, tc.field)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	s := loadScreen(t, "api33_login_tty.xml")
	zero, nine := 0, 9
	for _, tc := range []struct {
		name string
		sel  selector
		want string // ref, or an error code
	}{
		{"text exact", selector{Text: "Sign in"}, "e3"},
		{"resource id short", selector{ResourceID: "password"}, "e2"},
		{"resource id full", selector{ResourceID: "com.example.login:id/email"}, "e1"},
		{"content desc contains", selector{ContentDesc: "SHOW PASS", Match: matchContains}, "e4"},
		{"regex", selector{ResourceID: `id/(email|password)$`, Match: matchRegex}, codeElementAmbiguous},
		{"regex index", selector{ResourceID: `id/(email|password)$`, Match: matchRegex, Index: &zero}, "e1"},
		{"index past the matches", selector{Text: "Sign in", Index: &nine}, codeElementNotFound},
		{"no match", selector{Text: "Sign"}, codeElementNotFound},
		{"ref", selector{Ref: "e2", ScreenID: s.id}, "e2"},
		{"ref past the end", selector{Ref: "e99", ScreenID: s.id}, codeElementNotFound},
		{"ref of an unknown screen", selector{Ref: "e2", ScreenID: "sgone"}, codeElementNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := tc.sel.compile("")
			if err != nil {
				t.Fatal(err)
			}
			i, err := s.resolve(c, nil)
			got := ref(i)
			var ee *elementError
			if errors.As(err, &ee) {
				got = ee.Code
			} else if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("resolve = %s (%v), want %s", got, err, tc.want)
			}
		})
	}
	c, _ := selector{Text: "Sign"}.compile("")
	_, err := s.resolve(c, nil)
	if !strings.Contains(err.Error(), `near: e3 text="Sign in"`) {
		t.Errorf("not-found message lists no near match: %v", err)
	}
	c, _ = selector{Text: "Zebra quartz"}.compile("")
	if _, err := s.resolve(c, nil); err == nil || !strings.Contains(err.Error(), "nothing similar is on it: call android_observe") ||
		!strings.Contains(err.Error(), "android_swipe") {
		t.Errorf("not-found message with no near match says nothing to do next: %v", err)
	}
}

// TestStaleRef: a ref from an earlier screen is found again on the new one
// by identity when only one element is it; otherwise the error says the
// screen changed.
func TestStaleRef(t *testing.T) {
	t.Parallel()
	old := loadScreen(t, "api33_login_tty.xml")
	moved := loadScreen(t, "api33_login_tty.xml")
	for i := range moved.nodes { // the form scrolled up by 100 px
		moved.nodes[i].Bounds.Top -= 100
		moved.nodes[i].Bounds.Bottom -= 100
		moved.nodes[i].Center.Y -= 100
	}
	moved.id = screenID(moved.root, moved.nodes)
	c, _ := selector{Ref: "e3", ScreenID: old.id}.compile("")
	if i, err := moved.resolve(c, old); err != nil || i != 3 {
		t.Fatalf("stale ref = %d, %v", i, err)
	}
	other := loadScreen(t, "api26_settings.xml")
	if _, err := other.resolve(c, old); err == nil || !strings.Contains(err.Error(), "screen changed") {
		t.Fatalf("stale ref on another screen: %v", err)
	}
}

// adbScreen is a ScreenInfo of a w x h (natural) screen at rotation r.
func adbScreen(w, h, r int) adb.ScreenInfo {
	return adb.ScreenInfo{Width: w, Height: h, PhysicalWidth: w, PhysicalHeight: h, Rotation: r, RotationKnown: true}
}
