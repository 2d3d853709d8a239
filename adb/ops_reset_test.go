package adb

import (
	"slices"
	"strings"
	"testing"
)

// TestOpsReset: the operations of a reset against the virtual phone
// through the real adb server: running packages, pm clear (known and
// unknown package) and the removal of the connector's files only.
func TestOpsReset(t *testing.T) {
	_, vd, d := opsEnv(t)
	ctx := t.Context()
	before, err := d.RunningPackages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(before, "com.android.systemui") || slices.Contains(before, "com.android.chrome") ||
		slices.ContainsFunc(before, func(p string) bool { return strings.ContainsAny(p, ":/[ ") }) {
		t.Fatalf("running before a launch: %q", before)
	}
	if _, err := d.Launch(ctx, "com.android.chrome", ""); err != nil {
		t.Fatal(err)
	}
	after, err := d.RunningPackages(ctx)
	if err != nil || !slices.Contains(after, "com.android.chrome") {
		t.Fatalf("running after a launch: %q %v", after, err)
	}

	if err := d.ClearData(ctx, "com.android.chrome"); err != nil {
		t.Fatal(err)
	}
	if pkg, _ := vd.Android().Foreground(); pkg == "com.android.chrome" {
		t.Error("a cleared app is still in front")
	}
	if err := d.ClearData(ctx, "com.example.absent"); err == nil || !strings.Contains(err.Error(), "Failed") {
		t.Errorf("pm clear of an unknown package = %v", err)
	}
	if err := d.ClearData(ctx, "not a package"); err == nil {
		t.Error("pm clear of a bad name ran")
	}

	for _, f := range []string{TempPrefix + "rec-1.mp4", TempPrefix + "ui-2.xml", "/data/local/tmp/keep.txt"} {
		if _, err := d.Shell(ctx, "touch", f); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.RemoveTempFiles(ctx); err != nil {
		t.Fatal(err)
	}
	if err := d.RemoveTempFiles(ctx); err != nil { // none left: still fine
		t.Fatal(err)
	}
	res, err := d.Shell(ctx, "ls", "/data/local/tmp")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(res.Stdout)); slices.ContainsFunc(got, func(n string) bool { return strings.HasPrefix(n, "adbc-") }) ||
		!slices.Contains(got, "keep.txt") {
		t.Errorf("/data/local/tmp after the removal: %q", got)
	}
}
