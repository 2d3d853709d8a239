package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestREADMESettingsTable: the README's configuration table lists every
// serve setting, once, with the variable and key the rule gives it.
func TestREADMESettingsTable(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| `--([a-z-]+)` \\| `([A-Z_]+)`[^|]*\\| ([^|]+) \\|")
	var listed []string
	for line := range strings.SplitSeq(string(b), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name := m[1]
		listed = append(listed, name)
		if m[2] != settingEnv(name) {
			t.Errorf("README: --%s has variable %s, want %s", name, m[2], settingEnv(name))
		}
		wantKey := "`" + settingKey(name) + "`"
		if notInFile[name] {
			wantKey = "—"
		}
		if strings.TrimSpace(m[3]) != wantKey {
			t.Errorf("README: --%s has key %s, want %s", name, m[3], wantKey)
		}
	}
	want := slices.Clone(serveSettingNames())
	slices.Sort(want)
	slices.Sort(listed)
	if !slices.Equal(listed, want) {
		t.Errorf("README's settings table lists %v, serve has %v", listed, want)
	}
}
