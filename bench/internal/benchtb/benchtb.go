// Package benchtb lets the bench programs use test harnesses such as
// adb/adbtest outside `go test`: a testing.TB that records cleanups and
// turns Fatal into a panic that Recover converts back into an error.
package benchtb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
)

// TB implements the testing.TB methods the harnesses call; the others are
// left to the nil embedded interface. Not safe for concurrent use.
type TB struct {
	testing.TB
	name     string
	cleanups []func()
}

type fatal string

// New returns a TB named name (the harness uses it in temp names and logs).
func New(name string) *TB { return &TB{name: name} }

func (t *TB) Helper()                    {}
func (t *TB) Cleanup(f func())           { t.cleanups = append(t.cleanups, f) }
func (t *TB) Name() string               { return t.name }
func (t *TB) Context() context.Context   { return context.Background() }
func (t *TB) Logf(f string, args ...any) { fmt.Fprintf(os.Stderr, f+"\n", args...) }
func (t *TB) Errorf(f string, args ...any) {
	fmt.Fprintf(os.Stderr, f+"\n", args...)
}
func (t *TB) Fatal(args ...any)            { panic(fatal(fmt.Sprint(args...))) }
func (t *TB) Fatalf(f string, args ...any) { panic(fatal(fmt.Sprintf(f, args...))) }

// Close runs the registered cleanups, last first.
func (t *TB) Close() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
	t.cleanups = nil
}

// Recover, deferred, turns a Fatal raised by a harness into *errp; other
// panics go on. Use: defer tb.Recover(&err).
func (t *TB) Recover(errp *error) {
	r := recover()
	if r == nil {
		return
	}
	if f, ok := r.(fatal); ok {
		*errp = errors.New(string(f))
		return
	}
	panic(r)
}
