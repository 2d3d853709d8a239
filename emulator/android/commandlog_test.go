package android_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/adb-connector/adb-connector/emulator/android"
)

// TestCommandLogBounded checks the command log keeps only the latest
// maxCommands entries and that WaitCommand still finds commands logged
// after older ones were trimmed or cleared.
func TestCommandLogBounded(t *testing.T) {
	d := newDevice(t, android.Config{})
	for i := range android.MaxCommands + 3 {
		d.LogCommand(android.Command{Line: strconv.Itoa(i)})
	}
	cmds := d.Commands()
	if len(cmds) != android.MaxCommands || cmds[0].Line != "3" || cmds[len(cmds)-1].Line != strconv.Itoa(android.MaxCommands+2) {
		t.Fatalf("%d commands, first %q, last %q", len(cmds), cmds[0].Line, cmds[len(cmds)-1].Line)
	}
	for _, tc := range []struct {
		name  string
		clear bool
	}{{"trimmed", false}, {"cleared", true}} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.clear {
				d.ClearCommands()
			}
			d.LogCommand(android.Command{Line: "want " + tc.name})
			got, err := d.WaitCommand(context.Background(), func(c android.Command) bool { return c.Line == "want "+tc.name })
			if err != nil || got.Line != "want "+tc.name {
				t.Fatalf("WaitCommand = %q, %v", got.Line, err)
			}
		})
	}
	if n := len(d.Commands()); n != 1 {
		t.Errorf("%d commands after ClearCommands and one more, want 1", n)
	}
}
