package adb

import (
	"strings"
	"testing"
)

func TestForward(t *testing.T) {
	_, _, d := shellEnv(t)
	ctx := t.Context()
	local, err := d.Forward(ctx, "tcp:0", "tcp:8080")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(local, "tcp:") || local == "tcp:0" {
		t.Fatalf("local = %q", local)
	}
	if err := d.ForwardRemove(ctx, local); err != nil {
		t.Fatal(err)
	}
	if err := d.ForwardRemove(ctx, local); err == nil {
		t.Error("removing twice: no error")
	}
	if _, err := d.Forward(ctx, "tcp:1;tcp:2", "tcp:3"); err == nil {
		t.Error("spec with ';' accepted")
	}
}
