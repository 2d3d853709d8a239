package shell

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android/timing"
	"github.com/adb-connector/adb-connector/emulator/android/vfs"
)

// ShellName is how mksh on Android names itself in error messages.
const ShellName = "/system/bin/sh"

// Exit statuses of the shell itself.
const (
	ExitNotFound = 127 // mksh: "inaccessible or not found"
	ExitCanceled = 130 // the host closed the stream (SIGINT-like)
)

// Ctx is what one device command sees: expanded argv, the current
// directory, the pipeline's standard streams, the command line's Session
// and the phone it runs on.
type Ctx struct {
	Context context.Context
	Phone   Phone
	Sess    *Session
	Args    []string
	Dir     string
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
}

// Printf writes to the command's stdout.
func (c *Ctx) Printf(format string, a ...any) { fmt.Fprintf(c.Stdout, format, a...) }

// Errorf writes to the command's stderr.
func (c *Ctx) Errorf(format string, a ...any) { fmt.Fprintf(c.Stderr, format, a...) }

// Abs resolves p against the shell's current directory.
func (c *Ctx) Abs(p string) string { return vfs.CleanPath(c.Dir, p) }

// Phone is the device a command runs on, as the shell's own commands see
// it; package android's Device implements it, and its commands reach the
// rest of the Device through their own package.
type Phone interface {
	// FS is the phone's file system.
	FS() *vfs.FS
	// Now is the phone's clock.
	Now() time.Time
	// Profile is the phone's timing profile.
	Profile() timing.Profile
	// OpenShellFile opens the absolute path p as redirects do: device
	// nodes as such, the rest in the file system.
	OpenShellFile(ctx context.Context, p string, flag int) (io.ReadWriteCloser, error)
	// WhichPath is the directory $PATH finds the command name in.
	WhichPath(name string) (string, bool)
}

// Session is one logged command line; nested `sh -c` runs share it.
type Session struct {
	LogArgv func([]string)
	Depth   int
	Costs   *Charges // the timing profile's costs charged so far
}

// Charges accumulates the modelled time one command line spent; nested
// shells share it. Safe for concurrent pipeline stages.
type Charges struct {
	mu    sync.Mutex
	total time.Duration
}

// Charge waits dur (the phone's cost of what runs) and records it. It
// reports false when ctx ended first: the command was canceled.
func (c *Ctx) Charge(dur time.Duration) bool { return c.Sess.Charge(c.Context, dur) }

// Charge waits dur on ctx and records it (Ctx.Charge).
func (s *Session) Charge(ctx context.Context, dur time.Duration) bool {
	if dur <= 0 {
		return true
	}
	s.Costs.mu.Lock()
	s.Costs.total += dur
	s.Costs.mu.Unlock()
	return SleepCtx(ctx, dur)
}

// Charged is the time charged so far.
func (s *Session) Charged() time.Duration {
	s.Costs.mu.Lock()
	defer s.Costs.mu.Unlock()
	return s.Costs.total
}

// SleepCtx waits for dur or until ctx is done; it reports whether the
// full duration elapsed.
func SleepCtx(ctx context.Context, dur time.Duration) bool {
	if dur <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(dur)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
