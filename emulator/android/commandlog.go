package android

import (
	"context"
	"slices"
	"time"
)

// Command is one command line the device ran: the raw line as received,
// every simple command as parsed and expanded (argv, in execution order,
// builtins included), the exit status, and the time the timing profile
// charged for it (Charged: command starts, capture, encode, idle waits,
// recording; zero on the instant profile; the link's share is the
// transport's, see adbd.Server.LinkCharged).
type Command struct {
	Time    time.Time
	Line    string
	Argv    [][]string
	Exit    int
	Charged time.Duration
	// Touch is set on the entries the touchscreen logs: one per contact
	// decoded from events written to its node (Line and Argv empty). The
	// command that wrote them is logged on its own when it ends.
	Touch *Touch
	// Helper is set on the entries the phone helper logs for what it did
	// besides touches: "key 4", "set_text", "paste" (never the text).
	Helper string
}

// maxCommands bounds the command log: a long-running virtual device (the
// emulator command, serve --virtual-devices) keeps only the latest.
const maxCommands = 10000

// commandLog keeps the latest maxCommands commands; dropped counts those
// trimmed or cleared before cmds[0]. changed is closed and replaced on each
// append so waiters wake without polling.
type commandLog struct {
	cmds    []Command
	dropped int
	changed chan struct{}
}

func (d *Device) logCommand(c Command) {
	d.p.Log.Debug("shell command", "line_len", len(c.Line), "argv", len(c.Argv), "exit", c.Exit)
	d.p.Lock()
	defer d.p.Unlock()
	d.cmdlog.cmds = append(d.cmdlog.cmds, c)
	if n := len(d.cmdlog.cmds) - maxCommands; n > 0 {
		d.cmdlog.cmds = d.cmdlog.cmds[n:]
		d.cmdlog.dropped += n
	}
	close(d.cmdlog.changed)
	d.cmdlog.changed = make(chan struct{})
}

// Commands returns a copy of every command run since New or the last
// ClearCommands (at most the latest 10000), oldest first.
func (d *Device) Commands() []Command {
	d.p.Lock()
	defer d.p.Unlock()
	out := make([]Command, len(d.cmdlog.cmds))
	for i, c := range d.cmdlog.cmds {
		c.Argv = cloneArgv(c.Argv)
		out[i] = c
	}
	return out
}

// ClearCommands empties the command log.
func (d *Device) ClearCommands() {
	d.p.Lock()
	defer d.p.Unlock()
	d.cmdlog.dropped += len(d.cmdlog.cmds)
	d.cmdlog.cmds = nil
}

// WaitCommand blocks until a logged command satisfies match (commands
// already logged count) and returns it, or returns ctx's error.
func (d *Device) WaitCommand(ctx context.Context, match func(Command) bool) (Command, error) {
	seen := 0 // commands ever logged that were looked at
	for {
		d.p.Lock()
		cmds := d.cmdlog.cmds
		ch := d.cmdlog.changed
		from := max(seen-d.cmdlog.dropped, 0) // trimmed or cleared meanwhile
		seen = d.cmdlog.dropped + len(cmds)
		for _, c := range cmds[from:] {
			if match(c) {
				d.p.Unlock()
				c.Argv = cloneArgv(c.Argv)
				return c, nil
			}
		}
		d.p.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return Command{}, ctx.Err()
		}
	}
}

// SetLatency adds d to every later command before it runs, and to every
// write to the touchscreen's node (context-aware: a canceled stream ends
// the wait). Zero removes it.
func (d *Device) SetLatency(lat time.Duration) {
	d.p.Lock()
	defer d.p.Unlock()
	d.p.Faults.Latency = lat
}

// FailNext makes the next n commands fail without running: each prints
// "sh: injected failure" on stderr and exits 1.
func (d *Device) FailNext(n int) { d.FailNextWithStatus(n, 1) }

// FailNextWithStatus is FailNext with a chosen exit status; 255 is what the
// host sees when the device shell dies (adbd reports 255 for a killed shell).
func (d *Device) FailNextWithStatus(n, status int) {
	d.p.Lock()
	defer d.p.Unlock()
	d.failNext, d.failCode = n, status
}

func cloneArgv(a [][]string) [][]string {
	out := make([][]string, len(a))
	for i, v := range a {
		out[i] = slices.Clone(v)
	}
	return out
}
