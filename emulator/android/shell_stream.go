package android

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/adb-connector/adb-connector/emulator/android/shell"
	"mvdan.cc/sh/v3/syntax"
)

// A shell that reads its script from a pipe (`sh` with no -c and no file,
// or the shell adbd starts for a stream without a command) is not
// interactive in mksh: stdin is no tty, so there is no prompt and no echo
// (mksh(1), "-i": a shell is interactive when its input and error output
// are terminals). It does not read its input to the end first: it reads
// a line, runs the complete commands on it, and reads on, so a host can
// keep one shell open and feed it a command at a time. It ends at the end
// of its input, on `exit`, or on a syntax error (a non-interactive shell
// exits on one), with the status of the last command.

// lineFunc runs one input line's complete commands: run runs them (and
// returns their status); text is the line as read. It returns the line's
// status and whether the shell must stop after it.
type lineFunc func(text string, run func() (status int, exited bool)) (status int, stop bool)

// streamShell runs the script read from src line by line in one
// interpreter (variables, functions and the directory persist from line to
// line, as in one shell); each calls back for every line with complete
// commands.
func (d *Device) streamShell(ctx context.Context, sess *shell.Session, src io.Reader, dir string, stdout, stderr io.Writer, each lineFunc) int {
	r, err := d.newRunner(sess, nil, dir, nil, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", shell.ShellName, err)
		return 1
	}
	for _, st := range tmpAssign {
		_ = r.Run(ctx, st)
	}
	tee := &lineTee{r: src}
	p := syntax.NewParser(syntax.Variant(syntax.LangMirBSDKorn))
	status, stopped := 0, false
	stop := func(st int) {
		// The parser's iterator must run to its end (it may yield again
		// after a false from its body on some syntax errors): the input
		// ends here instead, so it ends at once.
		status, stopped = st, true
		tee.eof = true
	}
	for stmts, err := range p.InteractiveSeq(tee) {
		switch {
		case stopped:
			continue
		case ctx.Err() != nil:
			stop(shell.ExitCanceled)
			continue
		case err != nil:
			fmt.Fprintf(stderr, "%s: syntax error: %s\n", shell.ShellName, syntaxMsg(err))
			stop(1)
			continue
		case p.Incomplete() || len(stmts) == 0:
			continue // a command spanning lines, or a blank line
		}
		text := tee.take(stmts[0].Pos().Offset(), stmts[len(stmts)-1].End().Offset())
		run := func() (int, bool) {
			if msg := unsupported(&syntax.File{Stmts: stmts}); msg != "" {
				fmt.Fprintf(stderr, "%s: %s\n", shell.ShellName, msg)
				return 1, false
			}
			code := 0
			for _, st := range stmts {
				code = runStatus(ctx, r.Run(ctx, st), stderr)
				if r.Exited() || ctx.Err() != nil {
					return code, true
				}
			}
			return code, false
		}
		st, end := each(text, run)
		if end {
			stop(st)
			continue
		}
		status = st
		// The shell goes back to reading its input: what it printed is in
		// the pipe, and the reader of the pipe has it (adbd sends it now).
		flush(stdout)
		flush(stderr)
	}
	if !stopped && ctx.Err() != nil {
		return shell.ExitCanceled
	}
	return status
}

// flush sends w's held output, if w holds any (syncWriter.Flush).
func flush(w io.Writer) {
	if f, ok := w.(interface{ Flush() error }); ok {
		_ = f.Flush()
	}
}

// lineTee keeps what the parser read from r, so that each line's commands
// can be logged as their text; take drops what has been logged.
type lineTee struct {
	r    io.Reader
	buf  []byte
	base uint // stream offset of buf[0]
	eof  bool // the shell stopped reading: the input ends here
}

func (t *lineTee) Read(p []byte) (int, error) {
	if t.eof {
		return 0, io.EOF
	}
	n, err := t.r.Read(p)
	t.buf = append(t.buf, p[:n]...)
	return n, err
}

// take returns the input between stream offsets from and to and forgets
// everything before to.
func (t *lineTee) take(from, to uint) string {
	clamp := func(o uint) int { return int(min(max(o, t.base), t.base+uint(len(t.buf))) - t.base) }
	i, j := clamp(from), clamp(to)
	text := string(t.buf[i:j])
	t.buf = t.buf[j:]
	t.base += uint(j)
	return text
}

// runSession serves a shell stream opened without a command: adbd starts
// the shell with no command line (AOSP packages/modules/adb/daemon/
// shell_service.cpp, Subprocess::ForkAndExec: a login shell "-" when the
// command is empty), reading stdin; without a pty it is non-interactive
// (streamShell). Every line of commands it runs is one command log entry,
// with the faults a `sh -c` line gets (applyFaults): a line that a fault
// fails ends the shell with that status, as `sh -c LINE` ends.
func (d *Device) runSession(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) int {
	// adbd starts the shell once for the stream, whatever it then runs.
	if !shell.SleepCtx(ctx, d.p.Prof.ShellStart) {
		return shell.ExitCanceled
	}
	sess := &shell.Session{Costs: &shell.Charges{}}
	return d.streamShell(ctx, sess, stdin, "/", stdout, stderr, func(text string, run func() (int, bool)) (int, bool) {
		entry := Command{Time: d.p.Now(), Line: text}
		defer func() { d.logCommand(entry) }()
		if status, faulted := d.applyFaults(ctx, text, stderr); faulted {
			entry.Exit = status
			return status, true
		}
		var argvMu sync.Mutex // pipeline stages run concurrently
		sess.Costs = &shell.Charges{}
		sess.LogArgv = func(args []string) {
			argvMu.Lock()
			defer argvMu.Unlock()
			entry.Argv = append(entry.Argv, append([]string(nil), args...))
		}
		status, stop := run()
		argvMu.Lock()
		entry.Exit, entry.Charged = status, sess.Charged()
		argvMu.Unlock()
		return status, stop
	})
}

// isBlank reports whether a command line has nothing to run.
func isBlank(line string) bool { return strings.TrimSpace(line) == "" }
