// Package phonekit holds the helpers the virtual phone's tests share
// across its rooms (the whole-phone tests, the rooms' own): a phone on a
// fixed clock, running a command line, a scenario written with a few
// fields changed, finding a node on the screen. It builds an
// android.Device, so the tests that use it are external test packages
// (package X_test), which may import package android. Tests only.
package phonekit

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

// NewDevice is a phone built from cfg, on FixedNow unless cfg sets a
// clock.
func NewDevice(t testing.TB, cfg android.Config) *android.Device {
	t.Helper()
	if cfg.Now == nil {
		cfg.Now = FixedNow
	}
	d, err := android.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// FixedNow is the clock of test devices, so outputs are reproducible.
func FixedNow() time.Time { return time.Date(2026, 12, 2, 9, 41, 7, 123e6, time.UTC) }

// Runner is a phone that runs command lines (android.Device).
type Runner interface {
	Run(ctx context.Context, cmdline string, stdin io.Reader, stdout, stderr io.Writer) int
}

// Run runs one command line with a bounded context.
func Run(t testing.TB, d Runner, line string) (stdout, stderr string, status int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var o, e bytes.Buffer
	status = d.Run(ctx, line, strings.NewReader(""), &o, &e)
	return o.String(), e.String(), status
}

// MustRun runs a line that must succeed.
func MustRun(t testing.TB, d Runner, line string) string {
	t.Helper()
	o, e, st := Run(t, d, line)
	if st != 0 {
		t.Fatalf("%q: exit %d, stderr %q", line, st, e)
	}
	return o
}

// ScenarioWith writes the launcher scenario with fields replaced (plus
// extra files) to a temporary directory and returns its path.
func ScenarioWith(t *testing.T, fields map[string]any, files map[string][]byte) string {
	t.Helper()
	raw, err := ui.Embedded.ReadFile("scenarios/launcher/scenario.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range fields {
		m[k] = v
	}
	dir := t.TempDir()
	out, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, "scenario.json"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// FindNode dumps the UI and returns the first node matching pred.
func FindNode(t testing.TB, d Runner, pred func(*ui.Element) bool) *ui.Element {
	t.Helper()
	out := MustRun(t, d, "uiautomator dump /dev/tty")
	xmlPart, _, _ := strings.Cut(out, "UI hierchary dumped to:")
	root, _, err := ui.ParseDump([]byte(xmlPart))
	if err != nil {
		t.Fatalf("parse dump: %v\n%s", err, out)
	}
	var found *ui.Element
	root.Walk(func(n *ui.Element) bool {
		if pred(n) {
			found = n
			return false
		}
		return true
	})
	return found
}

// ByText matches a node by its text.
func ByText(s string) func(*ui.Element) bool { return func(n *ui.Element) bool { return n.Text == s } }

// ByID matches a node by its resource-id.
func ByID(s string) func(*ui.Element) bool {
	return func(n *ui.Element) bool { return n.ResourceID == s }
}

// Phone is a Runner that reports what is in front (android.Device).
type Phone interface {
	Runner
	Foreground() (pkg, activity string)
}

// WantForeground fails t unless pkg is in front, both as the phone
// knows it and as `dumpsys window` prints it.
func WantForeground(t testing.TB, d Phone, pkg string) {
	t.Helper()
	if got, _ := d.Foreground(); got != pkg {
		t.Fatalf("foreground %s, want %s", got, pkg)
	}
	if out := MustRun(t, d, "dumpsys window displays"); !strings.Contains(out, "mCurrentFocus=Window{") || !strings.Contains(out, " u0 "+pkg+"/") {
		t.Fatalf("dumpsys window does not show %s:\n%s", pkg, out)
	}
}
