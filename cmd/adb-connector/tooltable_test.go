package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/device/tools"
)

// toolsInTable returns the tool ids named in the first column of the
// markdown table whose header starts with header, in doc.
func toolsInTable(t *testing.T, doc, header string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n"+header)
	if !ok {
		t.Fatalf("no table with header %q", header)
	}
	id := regexp.MustCompile("`(android_[a-z_]+)`")
	var ids []string
	for _, line := range strings.Split(rest, "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		first := strings.SplitN(line, "|", 3)[1]
		for _, m := range id.FindAllStringSubmatch(first, -1) {
			ids = append(ids, m[1])
		}
	}
	slices.Sort(ids)
	return ids
}

func readDoc(t *testing.T, path ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{"..", ".."}, path...)...))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestToolListsAgree: the README's tool table, its per-tool sections, the
// Skill's tool table and the Card served name the catalogue's tools, no
// more and no fewer (the Card without android_shell, android_app_install
// and android_app_uninstall unless a policy enables them).
func TestToolListsAgree(t *testing.T) {
	t.Parallel()
	catalogue := tools.IDs(tools.FullSet())
	slices.Sort(catalogue)
	readme := readDoc(t, "README.md")
	if got := toolsInTable(t, readme, "| tool | does |"); !slices.Equal(got, catalogue) {
		t.Errorf("README's tool table lists %v, the catalogue has %v", got, catalogue)
	}
	section := regexp.MustCompile("(?m)^\\*\\*`(android_[a-z_]+)`\\*\\* — ")
	var sections []string
	for _, m := range section.FindAllStringSubmatch(readme, -1) {
		sections = append(sections, m[1])
	}
	slices.Sort(sections)
	if !slices.Equal(sections, catalogue) {
		t.Errorf("README describes %v, the catalogue has %v", sections, catalogue)
	}
	skill := readDoc(t, "skills", "connector-device-adb", "SKILL.md")
	if got := toolsInTable(t, skill, "| tool | what it does |"); !slices.Equal(got, catalogue) {
		t.Errorf("the Skill's tool table lists %v, the catalogue has %v", got, catalogue)
	}
	// The Card a default serve publishes (checked against a live server
	// by TestWireGolden).
	var card struct {
		Tools []struct {
			ID string `json:"tool_id"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(readDoc(t, "cmd", "adb-connector", "testdata", "wire", "card.golden.json")), &card); err != nil {
		t.Fatal(err)
	}
	var inCard []string
	for _, tl := range card.Tools {
		inCard = append(inCard, tl.ID)
	}
	slices.Sort(inCard)
	want := tools.IDs(tools.Set{Files: true}) // a default serve: no policy enables the operator's tools
	slices.Sort(want)
	if !slices.Equal(inCard, want) {
		t.Errorf("the Card lists %v, want the catalogue without the tools a policy enables: %v", inCard, want)
	}
}

// githubSlug is the anchor GitHub gives a heading: lower case, spaces to
// hyphens, punctuation other than hyphens and underscores dropped.
func githubSlug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestREADMEAnchors: every link to a section of the README goes to one of
// its headings, so moving a section cannot leave a dead link.
func TestREADMEAnchors(t *testing.T) {
	t.Parallel()
	readme := readDoc(t, "README.md")
	anchors := map[string]bool{}
	fence := false
	for line := range strings.SplitSeq(readme, "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if h, ok := strings.CutPrefix(line, "#"); ok && !fence {
			anchors[githubSlug(strings.TrimLeft(h, "# "))] = true
		}
	}
	for _, m := range regexp.MustCompile(`\]\(#([^)]+)\)`).FindAllStringSubmatch(readme, -1) {
		if !anchors[m[1]] {
			t.Errorf("README links to #%s, which no heading is", m[1])
		}
	}
}

// TestREADMEFirstScreen: the README opens with what the product does
// today, in the Card's own words.
func TestREADMEFirstScreen(t *testing.T) {
	t.Parallel()
	var card struct {
		Connector struct {
			Description string `json:"description"`
		} `json:"connector"`
	}
	if err := json.Unmarshal([]byte(readDoc(t, "cmd", "adb-connector", "testdata", "wire", "card.golden.json")), &card); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(readDoc(t, "README.md"), "\n", 25)
	if !strings.Contains(strings.Join(lines[:24], "\n"), card.Connector.Description) {
		t.Errorf("the README's first screen lacks the Card's description %q", card.Connector.Description)
	}
}
