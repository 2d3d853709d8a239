package android

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// shellName is how mksh on Android names itself in error messages.
const shellName = "/system/bin/sh"

// Exit statuses of the shell itself.
const (
	exitNotFound = 127 // mksh: "inaccessible or not found"
	exitCanceled = 130 // the host closed the stream (SIGINT-like)
)

// cmdCtx is what one device command sees: expanded argv, the current
// directory and the pipeline's standard streams.
type cmdCtx struct {
	ctx    context.Context
	d      *Device
	args   []string
	dir    string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

func (c *cmdCtx) printf(format string, a ...any) { fmt.Fprintf(c.stdout, format, a...) }
func (c *cmdCtx) errorf(format string, a ...any) { fmt.Fprintf(c.stderr, format, a...) }

// abs resolves p against the shell's current directory.
func (c *cmdCtx) abs(p string) string { return cleanPath(c.dir, p) }

type commandFunc func(c *cmdCtx) int

// commands is the one dispatch table of device commands; anything else is
// "inaccessible or not found" (status 127), as mksh on Android says.
var commands map[string]commandFunc

func init() {
	commands = map[string]commandFunc{
		"getprop":      cmdGetprop,
		"echo":         cmdEcho,
		"true":         func(*cmdCtx) int { return 0 },
		"false":        func(*cmdCtx) int { return 1 },
		"sleep":        cmdSleep,
		"timeout":      cmdTimeout,
		"cat":          cmdCat,
		"ls":           cmdLs,
		"rm":           cmdRm,
		"mkdir":        cmdMkdir,
		"wm":           cmdWm,
		"dumpsys":      cmdDumpsys,
		"input":        cmdInput,
		"screencap":    cmdScreencap,
		"uiautomator":  cmdUiautomator,
		"am":           cmdAm,
		"monkey":       cmdMonkey,
		"pm":           cmdPm,
		"cmd":          cmdCmd,
		"settings":     cmdSettings,
		"screenrecord": cmdScreenrecord,
		"logcat":       cmdLogcat,
		"grep":         cmdGrep,
		"ime":          cmdIme,
		"head":         func(c *cmdCtx) int { return headTail(c, false) },
		"tail":         func(c *cmdCtx) int { return headTail(c, true) },
		"wc":           cmdWc,
		"__command":    cmdCommand,
		"__type":       cmdType,
		"__hash":       func(*cmdCtx) int { return 0 },
	}
}

// hostBuiltins are interpreter builtins that would look at the host (PATH
// lookups with os.Stat); they are routed to our own versions.
var hostBuiltins = map[string]string{"command": "__command", "type": "__type", "hash": "__hash"}

// syncWriter serialises writes from concurrent pipeline stages.
type syncWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (s syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (d *Device) shellEnv() expand.Environ {
	return expand.ListEnviron(
		"PATH=/product/bin:/apex/com.android.runtime/bin:/apex/com.android.art/bin:/system_ext/bin:/system/bin:/system/xbin:/odm/bin:/vendor/bin:/vendor/xbin",
		"HOME=/", "TMPDIR=/data/local/tmp", "ANDROID_DATA=/data", "ANDROID_ROOT=/system",
		"EXTERNAL_STORAGE=/sdcard", "USER=shell", "LOGNAME=shell", "SHELL=/bin/sh",
		"HOSTNAME="+d.props["ro.product.device"], "UID=2000", "EUID=2000", "GID=2000",
	)
}

func (d *Device) run(ctx context.Context, line string, _ io.Reader, stdout, stderr io.Writer) int {
	var mu sync.Mutex
	stdout, stderr = syncWriter{&mu, stdout}, syncWriter{&mu, stderr}
	entry := Command{Time: d.now(), Line: line}
	defer func() { d.logCommand(entry) }()

	if status, faulted := d.applyFaults(ctx, stderr); faulted {
		entry.Exit = status
		return status
	}
	if p, ok := d.sc.pinned(line); ok {
		entry.Exit = p.write(stdout, stderr)
		return entry.Exit
	}
	if strings.TrimSpace(line) == "" {
		fmt.Fprintf(stderr, "%s: interactive shell not supported\n", shellName)
		entry.Exit = 1
		return 1
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangMirBSDKorn)).Parse(strings.NewReader(line), "")
	if err != nil {
		fmt.Fprintf(stderr, "%s: syntax error: %s\n", shellName, syntaxMsg(err))
		entry.Exit = 1
		return 1
	}
	if msg := unsupported(file); msg != "" {
		fmt.Fprintf(stderr, "%s: %s\n", shellName, msg)
		entry.Exit = 1
		return 1
	}
	var argvMu sync.Mutex
	r, err := interp.New(
		interp.Env(d.shellEnv()),
		func(r *interp.Runner) error { r.Dir = "/"; return nil }, // never os.Getwd/os.Stat
		interp.StdIO(nil, stdout, stderr),
		interp.CallHandler(func(ctx context.Context, args []string) ([]string, error) {
			argvMu.Lock()
			entry.Argv = append(entry.Argv, append([]string(nil), args...))
			argvMu.Unlock()
			if alt, ok := hostBuiltins[args[0]]; ok {
				args = append([]string{alt}, args[1:]...)
			}
			return args, nil
		}),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return d.execHandler }),
		interp.OpenHandler(d.openHandler),
		interp.ReadDirHandler2(d.readDirHandler),
		interp.StatHandler(d.statHandler),
		interp.AccessHandler(d.accessHandler),
	)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", shellName, err)
		entry.Exit = 1
		return 1
	}
	err = r.Run(ctx, file)
	var status interp.ExitStatus
	switch {
	case err == nil:
		entry.Exit = 0
	case errors.As(err, &status):
		entry.Exit = int(status)
	case ctx.Err() != nil:
		entry.Exit = exitCanceled
	default:
		fmt.Fprintf(stderr, "%s: %v\n", shellName, err)
		entry.Exit = 1
	}
	if ctx.Err() != nil && entry.Exit == 0 {
		entry.Exit = exitCanceled
	}
	return entry.Exit
}

func syntaxMsg(err error) string {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return pe.Text
	}
	return err.Error()
}

// unsupported rejects constructs that would make the interpreter touch the
// host (process substitution creates FIFOs in a host temp directory).
func unsupported(f *syntax.File) string {
	msg := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.ProcSubst:
			msg = "process substitution not supported"
		case *syntax.CoprocClause:
			msg = "coprocesses not supported"
		}
		return msg == ""
	})
	return msg
}

func (d *Device) execHandler(ctx context.Context, args []string) error {
	hc := interp.HandlerCtx(ctx)
	name := args[0]
	if strings.HasPrefix(name, "/system/bin/") || strings.HasPrefix(name, "/system/xbin/") {
		name = path.Base(name)
	}
	fn, ok := commands[name]
	if !ok || strings.Contains(name, "/") {
		fmt.Fprintf(hc.Stderr, "%s: %s: inaccessible or not found\n", shellName, args[0])
		return interp.ExitStatus(exitNotFound)
	}
	c := &cmdCtx{ctx: ctx, d: d, args: args, dir: hc.Dir, stdin: hc.Stdin, stdout: hc.Stdout, stderr: hc.Stderr}
	if c.stdin == nil {
		c.stdin = strings.NewReader("")
	}
	if p, ok := d.sc.pinned(strings.Join(args, " ")); ok {
		return exitErr(p.write(c.stdout, c.stderr))
	}
	status := fn(c)
	if ctx.Err() != nil && status == 0 {
		status = exitCanceled
	}
	return exitErr(status)
}

func exitErr(status int) error {
	if status == 0 {
		return nil
	}
	return interp.ExitStatus(uint8(status))
}

func (d *Device) openHandler(ctx context.Context, p string, flag int, _ os.FileMode) (io.ReadWriteCloser, error) {
	return d.fs.openFile(cleanPath(interp.HandlerCtx(ctx).Dir, p), flag)
}

func (d *Device) readDirHandler(ctx context.Context, p string) ([]fs.DirEntry, error) {
	infos, err := d.fs.ReadDir(cleanPath(interp.HandlerCtx(ctx).Dir, p))
	if err != nil {
		return nil, err
	}
	out := make([]fs.DirEntry, len(infos))
	for i, fi := range infos {
		out[i] = fs.FileInfoToDirEntry(fileInfo{fi})
	}
	return out, nil
}

func (d *Device) statHandler(ctx context.Context, p string, _ bool) (fs.FileInfo, error) {
	fi, err := d.fs.Stat(cleanPath(interp.HandlerCtx(ctx).Dir, p))
	if err != nil {
		return nil, err
	}
	return fileInfo{fi}, nil
}

func (d *Device) accessHandler(ctx context.Context, p string, _ interp.AccessMode) error {
	_, err := d.fs.Stat(cleanPath(interp.HandlerCtx(ctx).Dir, p))
	return err
}

// sleepCtx waits for dur or until ctx is done; it reports whether the
// full duration elapsed.
func sleepCtx(ctx context.Context, dur time.Duration) bool {
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
