package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/adb/adbtest"
)

// TestNeverIdleScreen: on the photos scenario's playing video, a screen
// that never goes idle, every `uiautomator dump` fails ("could not get
// idle state"); android_ui_elements answers ui_unavailable, also when its
// time runs out inside a dump's idle wait. The scenario shortens the idle
// cap from 10 s to 400 ms (faults.dump_idle_wait_ms) to keep the test short.
func TestNeverIdleScreen(t *testing.T) {
	dir := shippedScenarioWith(t, "photos", func(sc map[string]any) {
		sc["start"] = "video"
		sc["faults"] = map[string]any{"dump_idle_wait_ms": 400}
	})
	e := newToolsEnvOpts(t, adbtest.Options{Devices: 1, Scenario: dir}, adb.Limits{}, nil)
	// 600 ms: one dump fails, the retry's wait would pass the deadline.
	// 1 s: the second dump is cut inside its idle wait.
	for i, budget := range []time.Duration{600 * time.Millisecond, time.Second} {
		ctx, cancel := context.WithTimeout(t.Context(), budget)
		a := e.call(t, ctx, devChannel(0), "android_ui_elements", `{}`, "", nil)
		cancel()
		if a.Err == nil || a.Err.Code != codeUIUnavailable {
			t.Fatalf("call %d (%v): %+v, want %s", i, budget, a.Err, codeUIUnavailable)
		}
	}
}

// shippedScenarioWith writes a copy of the shipped scenario name, changed
// by edit, to a temporary directory and returns it.
func shippedScenarioWith(t *testing.T, name string, edit func(sc map[string]any)) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "emulator", "android", "ui", "scenarios", name, "scenario.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sc map[string]any
	if err := json.Unmarshal(raw, &sc); err != nil {
		t.Fatal(err)
	}
	edit(sc)
	b, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "scenario.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}
