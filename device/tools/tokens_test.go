package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/adb/parse"
	"github.com/adb-connector/adb-connector/connector"
)

// tokensOf is the model-token estimate of a result: bytes/4, the usual
// rule of thumb for JSON and English under BPE tokenizers (OpenAI's
// tokenizer guide: "one token generally corresponds to ~4 characters").
func tokensOf(b []byte) int { return (len(b) + 3) / 4 }

// listingBytes is the android_ui_elements result of s for v, as sent.
func listingBytes(t testing.TB, tl *Tools, s *screen, v elementViewArgs) []byte {
	t.Helper()
	inv := &invocation{call: connector.ToolCall{Channel: connector.Channel{ID: "cch_tokens"}}, meta: Meta{Key: "dev"}}
	es, omitted := s.elements(filterMeaningful, "", defaultMaxElements)
	base := uiElementsResult{Screen: uiScreen{Width: 1080, Height: 2400}, Foreground: statusForeground{Package: "com.android.settings", Activity: "com.android.settings.Settings$NetworkDashboardActivity"},
		Elements: es, Omitted: omitted, ScreenID: s.id}
	res, err := tl.shapeElements(inv, v, base, s, es, listing{filterMeaningful, "", defaultMaxElements})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// oneChange is s with one element changed as a toggle changes it: the
// first checkable meaningful node's checked flipped (else the first
// meaningful node's selected).
func oneChange(s *screen) *screen {
	now := &screen{root: s.root, nodes: slices.Clone(s.nodes)}
	k := slices.IndexFunc(now.nodes, func(n parse.UINode) bool { return n.Checkable && meaningful(&n) })
	if k >= 0 {
		now.nodes[k].Checked = !now.nodes[k].Checked
	} else if k = slices.IndexFunc(now.nodes, func(n parse.UINode) bool { return meaningful(&n) }); k >= 0 {
		now.nodes[k].Selected = !now.nodes[k].Selected
	}
	now.id = screenID(now.root, now.nodes)
	return now
}

// TestElementTokens measures, on every real dump of adb/parse/testdata,
// the tokens of a listing as objects, as lines, and with since after a
// one-element change, and holds the targets: lines at most 0.35x the
// objects over all dumps, one change at most 0.1x a full lines listing on
// every screen of 10 elements or more. Byte counts, not timings: the
// figures are the same on any machine (-v prints them).
func TestElementTokens(t *testing.T) {
	t.Parallel()
	names, _ := filepath.Glob(filepath.Join("..", "..", "adb", "parse", "testdata", "uidump", "*.xml"))
	var sumObj, sumLines int
	var rows []string
	for _, path := range names {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		root, err := parse.UIDump(b)
		if err != nil {
			continue // a parser error case, not a screen
		}
		var tl Tools
		s := newScreen(root)
		obj := listingBytes(t, &tl, s, elementViewArgs{})
		lines := listingBytes(t, &tl, s, elementViewArgs{ElementFormat: FormatLines})
		since := listingBytes(t, &tl, oneChange(s), elementViewArgs{ElementFormat: FormatLines, Since: s.id})
		if !strings.Contains(string(since), `"changes"`) {
			t.Fatalf("%s: since not applied: %s", path, since)
		}
		es, _ := s.elements(filterMeaningful, "", defaultMaxElements)
		sumObj += len(obj)
		sumLines += len(lines)
		rows = append(rows, fmt.Sprintf("%-36s %4d el  objects %6d B %5d tok  lines %6d B %5d tok (%.2fx)  since %4d B %4d tok (%.2fx of lines)",
			filepath.Base(path), len(es), len(obj), tokensOf(obj), len(lines), tokensOf(lines), float64(len(lines))/float64(len(obj)),
			len(since), tokensOf(since), float64(len(since))/float64(len(lines))))
		if len(es) >= 10 && float64(len(since)) > 0.1*float64(len(lines)) {
			t.Errorf("%s: one change with since is %d bytes, over 0.1x of the lines listing (%d)", path, len(since), len(lines))
		}
	}
	ratio := float64(sumLines) / float64(sumObj)
	t.Logf("element tokens (bytes/4) per listing, real dumps:\n%s\nall dumps: lines %.3fx of objects", strings.Join(rows, "\n"), ratio)
	if ratio > 0.35 {
		t.Errorf("lines are %.3fx of objects over the real dumps, want <= 0.35", ratio)
	}
}

// TestChangesRebuildListing: applying changes (drop removed, then put
// added and changed under their refs) to the old listing gives the new
// one exactly, for a toggle, for a node taken out (every later ref
// shifts) and for a text edit (a new identity under the same ref).
func TestChangesRebuildListing(t *testing.T) {
	t.Parallel()
	old := loadScreen(t, "wework_207_nodes.xml")
	remove := func(k int) *screen {
		s := &screen{root: old.root, nodes: slices.Delete(slices.Clone(old.nodes), k, k+1)}
		s.id = screenID(s.root, s.nodes)
		return s
	}
	edit := func() *screen {
		s := &screen{root: old.root, nodes: slices.Clone(old.nodes)}
		k := slices.IndexFunc(s.nodes, func(n parse.UINode) bool { return n.Text != "" })
		s.nodes[k].Text += " (edited)"
		s.id = screenID(s.root, s.nodes)
		return s
	}
	for name, now := range map[string]*screen{"toggle": oneChange(old), "removed node": remove(len(old.nodes) / 2), "text edit": edit()} {
		was, _ := old.elements(filterMeaningful, "", defaultMaxElements)
		is, _ := now.elements(filterMeaningful, "", defaultMaxElements)
		added, changed, removed := diffElements(old, was, now, is)
		held := map[string]element{}
		for _, e := range was {
			held[e.Ref] = e
		}
		for _, r := range removed {
			delete(held, r)
		}
		for _, e := range append(added, changed...) {
			held[e.Ref] = e
		}
		want := map[string]element{}
		for _, e := range is {
			want[e.Ref] = e
		}
		if len(held) != len(want) {
			t.Errorf("%s: rebuilt %d elements, want %d", name, len(held), len(want))
		}
		for r, e := range want {
			if held[r] != e {
				t.Errorf("%s: %s rebuilt as %+v, want %+v", name, r, held[r], e)
			}
		}
		if name == "toggle" && len(added)+len(changed)+len(removed) != 1 {
			t.Errorf("toggle: %d added, %d changed, %d removed", len(added), len(changed), len(removed))
		}
		// Unchanged refs name the same element on both screens.
		for r, e := range want {
			k, _ := refIndex(r)
			if slices.ContainsFunc(append(added, changed...), func(x element) bool { return x.Ref == r }) {
				continue
			}
			if !sameIdentity(&old.nodes[k], &now.nodes[k]) || held[r] != e {
				t.Errorf("%s: unchanged %s is another element", name, r)
			}
		}
	}
}
