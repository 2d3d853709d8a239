package main

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// runnerTB lets adbtest run outside `go test`: it records cleanups and
// turns Fatal into a panic that run recovers. Methods adbtest does not call
// are left to the nil embedded interface.
type runnerTB struct {
	testing.TB
	cleanups []func()
}

type fatal string

func (t *runnerTB) Helper()                    {}
func (t *runnerTB) Cleanup(f func())           { t.cleanups = append(t.cleanups, f) }
func (t *runnerTB) Name() string               { return "devicetools" }
func (t *runnerTB) Context() context.Context   { return context.Background() }
func (t *runnerTB) Logf(f string, args ...any) { fmt.Fprintf(os.Stderr, f+"\n", args...) }
func (t *runnerTB) Errorf(f string, args ...any) {
	fmt.Fprintf(os.Stderr, f+"\n", args...)
}
func (t *runnerTB) Fatal(args ...any)            { panic(fatal(fmt.Sprint(args...))) }
func (t *runnerTB) Fatalf(f string, args ...any) { panic(fatal(fmt.Sprintf(f, args...))) }

func (t *runnerTB) cleanup() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}
