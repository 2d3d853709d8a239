package testkit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing the
// test; Fatal and Fatalf record, then panic with fatalPanic, which
// runGolden recovers.
type recorder struct {
	testing.TB
	errs  []string
	fatal bool
}

type fatalPanic struct{}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return "TestX" }
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, format)
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.errs = append(r.errs, format)
	r.fatal = true
	panic(fatalPanic{})
}
func (r *recorder) Fatal(args ...any) {
	r.fatal = true
	panic(fatalPanic{})
}

func runGolden(t *testing.T, path, got string, update bool) (r *recorder) {
	r = &recorder{TB: t}
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(fatalPanic); !ok {
				panic(v)
			}
		}
	}()
	Golden(r, path, []byte(got), update)
	return r
}

func TestGolden(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "x.golden")
	tests := []struct {
		name      string
		got       string
		update    bool
		wantErrs  int
		wantFatal bool
		wantFile  string
	}{
		{name: "missing", got: "a\n", wantErrs: 1, wantFatal: true},
		{name: "update creates", got: "a\n", update: true, wantFile: "a\n"},
		{name: "same", got: "a\n", wantFile: "a\n"},
		{name: "differs", got: "b\n", wantErrs: 1, wantFile: "a\n"},
		{name: "trailing newline counts", got: "a", wantErrs: 1, wantFile: "a\n"},
		{name: "update rewrites", got: "b\n", update: true, wantFile: "b\n"},
	}
	for _, tt := range tests { // in order: each step sees the file the last left
		r := runGolden(t, path, tt.got, tt.update)
		if len(r.errs) != tt.wantErrs || r.fatal != tt.wantFatal {
			t.Errorf("%s: errors %q fatal %v, want %d errors fatal %v", tt.name, r.errs, r.fatal, tt.wantErrs, tt.wantFatal)
		}
		if tt.wantFatal && !strings.Contains(r.errs[0], "-update") {
			t.Errorf("%s: %q does not say how to create the file", tt.name, r.errs[0])
		}
		if tt.wantFile != "" {
			b, err := os.ReadFile(path)
			if err != nil || string(b) != tt.wantFile {
				t.Errorf("%s: file = %q, %v; want %q", tt.name, b, err, tt.wantFile)
			}
		}
	}
}
