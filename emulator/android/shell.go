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

	"github.com/adb-connector/adb-connector/emulator/android/devices"
	"github.com/adb-connector/adb-connector/emulator/android/services"
	"github.com/adb-connector/adb-connector/emulator/android/shell"
	"github.com/adb-connector/adb-connector/emulator/android/vfs"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

type commandFunc func(c *shell.Ctx) int

// commands is the one dispatch table of device commands; anything else is
// "inaccessible or not found" (status 127), as mksh on Android says.
var commands map[string]commandFunc

func init() {
	commands = map[string]commandFunc{
		"getprop":      cmdGetprop,
		"echo":         cmdToyboxEcho,
		"true":         func(*shell.Ctx) int { return 0 },
		"false":        func(*shell.Ctx) int { return 1 },
		"sleep":        cmdSleep,
		"timeout":      cmdTimeout,
		"cat":          shell.Cat,
		"ls":           shell.Ls,
		"rm":           shell.Rm,
		"mkdir":        shell.Mkdir,
		"wm":           services.Wm,
		"dumpsys":      services.Dumpsys,
		"input":        devices.Input,
		"screencap":    devices.Screencap,
		"uiautomator":  devices.HoldsUiAutomation(devices.Uiautomator),
		"am":           services.Am,
		"monkey":       devices.HoldsUiAutomation(services.Monkey),
		"app_process":  devices.AppProcess,
		"pm":           services.Pm,
		"cmd":          services.Cmd,
		"settings":     services.Settings,
		"screenrecord": devices.Screenrecord,
		"logcat":       services.Logcat,
		"grep":         shell.Grep,
		"ime":          services.Ime,
		"getevent":     devices.Getevent,
		"sh":           cmdSh,
		"id":           cmdID,
		"whoami":       func(c *shell.Ctx) int { c.Printf("shell\n"); return 0 },
		"uname":        cmdUname,
		"head":         shell.Head,
		"tail":         shell.Tail,
		"wc":           shell.Wc,
		"mv":           func(c *shell.Ctx) int { return shell.MvCp(c, true) },
		"cp":           func(c *shell.Ctx) int { return shell.MvCp(c, false) },
		"chmod":        shell.Chmod,
		"tee":          shell.Tee,
		"touch":        shell.TouchFile,
		"stat":         shell.Stat,
		"which":        shell.Which,
		"printf":       shell.Printf,
		"__printf":     shell.Printf,
		"__echo":       shell.Echo,
		"__cat":        shell.MkshCat,
		"__sleep":      shell.MkshSleep,
		"__test":       shell.MkshTest,
		"__[":          shell.MkshTest,
		"tr":           shell.Tr,
		"sed":          shell.Sed,
		"date":         shell.Date,
		"ps":           services.Ps,
		"pidof":        services.Pidof,
		"pwd":          cmdPwd,
		"run-as":       cmdRunAs,
		"__command":    cmdCommand,
		"__type":       cmdType,
		"__hash":       func(*shell.Ctx) int { return 0 },
		"gzip":         shell.Gzip,
		"gunzip":       shell.Gzip,
		"zcat":         shell.Gzip,
	}
}

// gzipTools are the commands toybox gained with gzip.c (Android 9): a
// phone without them answers "inaccessible or not found".
var gzipTools = map[string]bool{"gzip": true, "gunzip": true, "zcat": true}

// command is the device command name runs on this phone: the dispatch
// table's, less what this phone's build lacks (gzip before Android 9, or
// with Config.NoGzip or a scenario's "no_gzip").
func (d *Device) command(name string) (commandFunc, bool) {
	fn, ok := commands[name]
	if ok && gzipTools[name] && (d.cfg.SDK < 28 || d.cfg.NoGzip || d.p.Scenario.NoGzip) {
		return nil, false
	}
	return fn, ok
}

// hostBuiltins are interpreter builtins routed to our own versions: those
// that would look at the host (PATH lookups with os.Stat), and those mksh
// has and does differently (shell/mksh_builtins.go).
var hostBuiltins = map[string]string{"command": "__command", "type": "__type", "hash": "__hash",
	"echo": "__echo", "printf": "__printf", "cat": "__cat", "sleep": "__sleep", "test": "__test", "[": "__["} // mksh's builtins (shell/mksh_builtins.go); its printf is not built in

// hostTmpGuard is the interpreter's TMPDIR as the Runner sees it when it is
// built. mvdan.cc/sh opens "$TMPDIR/sh-interp-*" paths (its process
// substitution FIFOs) with os.OpenFile, bypassing the OpenHandler; this
// path lies under a regular file in procfs, so such an open can never
// create or read anything on the host. Scripts see TMPDIR=/data/local/tmp
// (assigned first thing in every script, see tmpAssign).
const hostTmpGuard = "/proc/self/fdinfo/0/adb-virtual-device-tmp"

// tmpAssign restores the Android TMPDIR for scripts.
var tmpAssign = func() []*syntax.Stmt {
	f, err := syntax.NewParser().Parse(strings.NewReader("TMPDIR=/data/local/tmp"), "")
	if err != nil {
		panic(err)
	}
	return f.Stmts
}()

// sandboxArgs reroutes builtins that would look at the host: PATH lookups
// (type, command, hash, also via `builtin NAME`) go to our versions and
// `pwd -P` (host symlink resolution) becomes plain pwd.
func sandboxArgs(args []string) []string {
	if args[0] == "builtin" && len(args) > 1 {
		if _, ok := hostBuiltins[args[1]]; ok || args[1] == "pwd" {
			args = args[1:]
		}
	}
	if alt, ok := hostBuiltins[args[0]]; ok {
		return append([]string{alt}, args[1:]...)
	}
	if args[0] == "pwd" {
		return []string{"pwd"}
	}
	return args
}

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

// Flush passes on to the writer's Flush, if it has one (adbd's output
// coalescing).
func (s syncWriter) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.w.(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}

func (d *Device) shellEnv() expand.Environ {
	return expand.ListEnviron(
		"PATH=/product/bin:/apex/com.android.runtime/bin:/apex/com.android.art/bin:/system_ext/bin:/system/bin:/system/xbin:/odm/bin:/vendor/bin:/vendor/xbin",
		"HOME=/", "TMPDIR="+hostTmpGuard, "ANDROID_DATA=/data", "ANDROID_ROOT=/system",
		"EXTERNAL_STORAGE=/sdcard", "USER=shell", "LOGNAME=shell", "SHELL=/bin/sh",
		"HOSTNAME="+d.p.Props["ro.product.device"], "UID=2000", "EUID=2000", "GID=2000",
	)
}

func (d *Device) run(ctx context.Context, line string, stdin io.Reader, stdout, stderr io.Writer) int {
	var mu sync.Mutex
	stdout, stderr = syncWriter{&mu, stdout}, syncWriter{&mu, stderr}
	if isBlank(line) {
		if stdin == nil {
			stdin = strings.NewReader("")
		}
		return d.runSession(ctx, stdin, stdout, stderr)
	}
	entry := Command{Time: d.p.Now(), Line: line}
	defer func() { d.logCommand(entry) }()
	sess := &shell.Session{Costs: &shell.Charges{}}
	defer func() { entry.Charged = sess.Charged() }()
	// adbd forks and execs the shell for the stream before anything runs.
	if !sess.Charge(ctx, d.p.Prof.ShellStart) {
		entry.Exit = shell.ExitCanceled
		return entry.Exit
	}
	if status, faulted := d.applyFaults(ctx, line, stderr); faulted {
		entry.Exit = status
		return status
	}
	if p, ok := d.p.Scenario.PinFor(line); ok {
		// A replayed output still costs what running the command would.
		if !sess.Charge(ctx, d.p.Prof.CommandCost(d.cfg.SDK, strings.Fields(line)...)) {
			entry.Exit = shell.ExitCanceled
			return entry.Exit
		}
		entry.Exit = p.Write(stdout, stderr)
		return entry.Exit
	}
	var argvMu sync.Mutex
	sess.LogArgv = func(args []string) {
		argvMu.Lock()
		defer argvMu.Unlock()
		entry.Argv = append(entry.Argv, append([]string(nil), args...))
	}
	in, closeIn := shellStdin(stdin)
	defer closeIn()
	entry.Exit = d.interpret(ctx, sess, line, shell.ShellName, nil, "/", in, stdout, stderr)
	return entry.Exit
}

// shellStdin connects the stream's stdin to the script: the interpreter
// takes an *os.File only, so the bytes are copied into a pipe as they
// come (a `cat > FILE` sees each write at once). The returned func closes
// the script's end; the copy ends when the stream's stdin does (adbd
// closes it once the command has returned).
func shellStdin(r io.Reader) (io.Reader, func()) {
	if sr, ok := r.(*strings.Reader); r == nil || ok && sr.Len() == 0 {
		return strings.NewReader(""), func() {}
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return strings.NewReader(""), func() {}
	}
	go func() {
		_, _ = io.Copy(pw, r)
		pw.Close()
	}()
	return pr, func() { pr.Close() }
}

// maxShellDepth bounds nested `sh -c` invocations.
const maxShellDepth = 16

// interpret parses and runs a script in a fresh sandboxed interpreter.
// arg0 is $0, params $1..., dir the working directory.
func (d *Device) interpret(ctx context.Context, sess *shell.Session, script, arg0 string, params []string, dir string, stdin io.Reader, stdout, stderr io.Writer) int {
	file, err := syntax.NewParser(syntax.Variant(syntax.LangMirBSDKorn)).Parse(strings.NewReader(script), arg0)
	if err != nil {
		fmt.Fprintf(stderr, "%s: syntax error: %s\n", shell.ShellName, syntaxMsg(err))
		return 1
	}
	if msg := unsupported(file); msg != "" {
		fmt.Fprintf(stderr, "%s: %s\n", shell.ShellName, msg)
		return 1
	}
	file.Stmts = append(append([]*syntax.Stmt(nil), tmpAssign...), file.Stmts...)
	r, err := d.newRunner(sess, params, dir, stdin, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", shell.ShellName, err)
		return 1
	}
	return runStatus(ctx, r.Run(ctx, file), stderr)
}

// newRunner builds the sandboxed interpreter scripts run in: our commands,
// our file system, the Android environment; params are $1..., dir the
// working directory.
func (d *Device) newRunner(sess *shell.Session, params []string, dir string, stdin io.Reader, stdout, stderr io.Writer) (*interp.Runner, error) {
	var in io.Reader // the top level has no stdin; nested shells get their pipe
	if f, ok := stdin.(*os.File); ok {
		in = f
	}
	opts := []interp.RunnerOption{
		interp.Env(d.shellEnv()),
		func(r *interp.Runner) error { r.Dir = dir; return nil }, // never os.Getwd/os.Stat
		interp.StdIO(in, stdout, stderr),
		interp.CallHandler(func(ctx context.Context, args []string) ([]string, error) {
			sess.LogArgv(args)
			return sandboxArgs(args), nil
		}),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc {
			return func(ctx context.Context, args []string) error { return d.execHandler(ctx, sess, args) }
		}),
		interp.OpenHandler(d.openHandler),
		interp.ReadDirHandler2(d.readDirHandler),
		interp.StatHandler(d.statHandler),
		interp.AccessHandler(d.accessHandler),
	}
	if len(params) > 0 {
		opts = append(opts, interp.Params(append([]string{"--"}, params...)...))
	}
	return interp.New(opts...)
}

// runStatus turns what Runner.Run returned into the shell's exit status;
// a command cut short by ctx (the host closed the stream) is 130.
func runStatus(ctx context.Context, err error, stderr io.Writer) int {
	var status interp.ExitStatus
	exit := 0
	switch {
	case err == nil:
	case errors.As(err, &status):
		exit = int(status)
	case ctx.Err() != nil:
		exit = shell.ExitCanceled
	default:
		fmt.Fprintf(stderr, "%s: %v\n", shell.ShellName, err)
		exit = 1
	}
	if ctx.Err() != nil && exit == 0 {
		exit = shell.ExitCanceled
	}
	return exit
}

// cmdSh runs `sh -c SCRIPT [ARG0 ARGS...]`, `sh FILE [ARGS...]` or a script
// read from stdin, in the same sandbox (and command log entry).
func cmdSh(c *shell.Ctx) int {
	if c.Sess.Depth >= maxShellDepth {
		c.Errorf("%s: too many nested shells\n", shell.ShellName)
		return 1
	}
	sub := &shell.Session{LogArgv: c.Sess.LogArgv, Depth: c.Sess.Depth + 1, Costs: c.Sess.Costs}
	args := c.Args[1:]
	var script string
	arg0 := shell.ShellName
	var params []string
	switch {
	case len(args) >= 2 && args[0] == "-c":
		script = args[1]
		if len(args) > 2 {
			arg0, params = args[2], args[3:]
		}
	case len(args) >= 1 && args[0] != "-c" && !strings.HasPrefix(args[0], "-"):
		b, err := dev(c).p.FS.ReadFile(c.Abs(args[0]))
		if err != nil {
			c.Errorf("%s: can't open %s: %s\n", shell.ShellName, args[0], shell.ErrText(err))
			return shell.ExitNotFound
		}
		script, arg0, params = string(b), args[0], args[1:]
	case len(args) == 0:
		return dev(c).streamShell(c.Context, sub, c.Stdin, c.Dir, c.Stdout, c.Stderr, func(_ string, run func() (int, bool)) (int, bool) {
			return run()
		})
	default:
		c.Errorf("%s: %s: unsupported option\n", shell.ShellName, args[0])
		return 1
	}
	return dev(c).interpret(c.Context, sub, script, arg0, params, c.Dir, c.Stdin, c.Stdout, c.Stderr)
}

func syntaxMsg(err error) string {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return pe.Text
	}
	return err.Error()
}

// unsupported rejects constructs that would make the interpreter touch the
// host (process substitution creates FIFOs in a host temp directory). It
// also turns background jobs (`cmd &`) into foreground ones: nothing may
// outlive Run.
func unsupported(f *syntax.File) string {
	msg := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		if st, ok := n.(*syntax.Stmt); ok {
			st.Background = false
		}
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

func (d *Device) execHandler(ctx context.Context, sess *shell.Session, args []string) error {
	hc := interp.HandlerCtx(ctx)
	name := args[0]
	if strings.HasPrefix(name, "/system/bin/") || strings.HasPrefix(name, "/system/xbin/") || name == "/bin/sh" {
		name = path.Base(name)
	}
	fn, ok := d.command(name)
	if !ok || strings.Contains(name, "/") {
		fmt.Fprintf(hc.Stderr, "%s: %s: inaccessible or not found\n", shell.ShellName, args[0])
		return interp.ExitStatus(shell.ExitNotFound)
	}
	// A hanging command hangs wherever it runs, not only first on a line
	// (a shell session's lines wrap it).
	d.p.Lock()
	hang := d.hangs(strings.Join(append([]string{name}, args[1:]...), " "))
	d.p.Unlock()
	if hang {
		<-ctx.Done()
		return exitErr(shell.ExitCanceled)
	}
	c := &shell.Ctx{Context: ctx, Phone: d, Sess: sess, Args: args, Dir: hc.Dir, Stdin: hc.Stdin, Stdout: hc.Stdout, Stderr: hc.Stderr}
	if c.Stdin == nil {
		c.Stdin = strings.NewReader("")
	}
	// The phone's cost of starting the command (a Java VM or a `cmd`
	// binder call for Android's tools, by SDK), paid before it runs,
	// pinned output or not.
	if d.p.Prof.Start != nil && !c.Charge(d.p.Prof.CommandCost(d.cfg.SDK, append([]string{name}, args[1:]...)...)) {
		return exitErr(shell.ExitCanceled)
	}
	if p, ok := d.p.Scenario.PinFor(strings.Join(args, " ")); ok {
		return exitErr(p.Write(c.Stdout, c.Stderr))
	}
	status := fn(c)
	if ctx.Err() != nil && status == 0 {
		status = shell.ExitCanceled
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
	return d.OpenShellFile(ctx, vfs.CleanPath(interp.HandlerCtx(ctx).Dir, p), flag)
}

// OpenShellFile opens the absolute path p as the shell's redirects and
// commands do: device nodes as such, the rest in the file system.
func (d *Device) OpenShellFile(ctx context.Context, p string, flag int) (io.ReadWriteCloser, error) {
	if vfs.InputNodes[p] != 0 || vfs.UinputNodes[p] != 0 {
		return d.dv.OpenInputNode(ctx, p, flag)
	}
	return d.p.FS.OpenFile(p, flag)
}

func (d *Device) readDirHandler(ctx context.Context, p string) ([]fs.DirEntry, error) {
	infos, err := d.p.FS.ReadDir(vfs.CleanPath(interp.HandlerCtx(ctx).Dir, p))
	if err != nil {
		return nil, err
	}
	out := make([]fs.DirEntry, len(infos))
	for i, fi := range infos {
		out[i] = fs.FileInfoToDirEntry(vfs.FileInfo{Info: fi})
	}
	return out, nil
}

func (d *Device) statHandler(ctx context.Context, p string, _ bool) (fs.FileInfo, error) {
	fi, err := d.p.FS.Stat(vfs.CleanPath(interp.HandlerCtx(ctx).Dir, p))
	if err != nil {
		return nil, err
	}
	return vfs.FileInfo{Info: fi}, nil
}

func (d *Device) accessHandler(ctx context.Context, p string, _ interp.AccessMode) error {
	_, err := d.p.FS.Stat(vfs.CleanPath(interp.HandlerCtx(ctx).Dir, p))
	return err
}
