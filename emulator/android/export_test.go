package android

// HostTmpGuard is the interpreter's TMPDIR as the host sees it, for the
// test that proves nothing reaches it.
const HostTmpGuard = hostTmpGuard

// LogCommand appends c to the command log, as a finished command line
// does.
func (d *Device) LogCommand(c Command) { d.logCommand(c) }

// MaxCommands bounds the command log.
const MaxCommands = maxCommands
