package services

import (
	"fmt"
	"strings"

	"github.com/adb-connector/adb-connector/emulator/android/shell"
)

// shellArgs walks a framework shell command's arguments the way AOSP
// android.os.ShellCommand / com.android.modules.utils.BasicShellCommandHandler
// does (getNextOption, getNextArg, getNextArgRequired), so option quirks
// match a phone: "-3f" is option "-3" carrying data "f", and asking for the
// next option while that data is pending is an error.
type shellArgs struct {
	args    []string
	pos     int
	data    string // text glued to the last short option ("-3f" -> "f")
	hasData bool
	last    string // the last argument consumed, as mArgs[mArgPos-1]
}

// shellError is an exception a framework shell command throws; the
// ShellCommand machinery prints it (see javaException).
type shellError struct {
	class, msg string
}

func (e *shellError) Error() string { return e.class + ": " + e.msg }

func illegalArgument(format string, a ...any) *shellError {
	return &shellError{class: "java.lang.IllegalArgumentException", msg: fmt.Sprintf(format, a...)}
}

// nextOption returns the next "-x"/"--xx" option, or "" when the next
// argument is not an option (or after "--").
func (s *shellArgs) nextOption() (string, error) {
	if s.hasData {
		return "", illegalArgument("No argument expected after \"%s\"", s.last)
	}
	if s.pos >= len(s.args) || !strings.HasPrefix(s.args[s.pos], "-") {
		return "", nil
	}
	arg := s.args[s.pos]
	s.pos++
	if arg == "--" {
		return "", nil
	}
	s.last = arg // error messages quote the whole argument ("-3f")
	if len(arg) > 2 && arg[1] != '-' {
		s.data, s.hasData = arg[2:], true
		return arg[:2], nil
	}
	return arg, nil
}

// nextArg returns the pending option data or the next argument; ok is false
// when there is none.
func (s *shellArgs) nextArg() (string, bool) {
	if s.hasData {
		s.hasData = false
		return s.data, true
	}
	if s.pos >= len(s.args) {
		return "", false
	}
	s.pos++
	s.last = s.args[s.pos-1]
	return s.last, true
}

// nextArgRequired is nextArg that throws, as getNextArgRequired does.
func (s *shellArgs) nextArgRequired() (string, error) {
	prev := s.last
	if a, ok := s.nextArg(); ok {
		return a, nil
	}
	return "", illegalArgument("Argument expected after \"%s\"", prev)
}

// javaException prints an uncaught exception of a shell command as
// BasicShellCommandHandler.exec does ("Exception occurred while executing
// 'CMD':" and the stack trace, on stderr) and returns its status, -1 (255).
// frames are the top of the trace; the binder frames below them are the
// same for every service. Line numbers change with every build: these are
// plausible, not copied from a capture, so tools should (and do) match the
// first two lines only.
func javaException(c *shell.Ctx, cmd string, err *shellError, frames ...string) int {
	c.Errorf("\nException occurred while executing '%s':\n%s\n", cmd, err.Error())
	for _, f := range frames {
		c.Errorf("\tat %s\n", f)
	}
	c.Errorf("\tat com.android.modules.utils.BasicShellCommandHandler.exec(BasicShellCommandHandler.java:97)\n" +
		"\tat android.os.ShellCommand.exec(ShellCommand.java:38)\n" +
		"\tat android.os.Binder.shellCommand(Binder.java:1092)\n" +
		"\tat android.os.Binder.onTransact(Binder.java:912)\n" +
		"\tat android.os.Binder.execTransactInternal(Binder.java:1392)\n" +
		"\tat android.os.Binder.execTransact(Binder.java:1299)\n")
	return 255
}

// cmdServices are the binder services `cmd` reaches. Each takes the
// arguments after the service name.
var cmdServices map[string]func(c *shell.Ctx, args []string) int

func init() {
	cmdServices = map[string]func(*shell.Ctx, []string) int{
		"package":      packageCommand,
		"input_method": inputMethodCommand,
		"clipboard":    clipboardCommand,
		"statusbar":    statusbarCommand,
		// am, wm and settings are scripts running `cmd activity|window|
		// settings "$@"` (frameworks/base/cmds/*/*.sh), and `input` reaches
		// InputShellCommand (Android 12+), so both spellings run the same
		// code.
		"activity": viaTool("am"),
		"window":   viaTool("wm"),
		"input":    viaTool("input"),
		"settings": viaTool("settings"),
	}
}

// viaTool runs the device command that fronts a service.
func viaTool(name string) func(*shell.Ctx, []string) int {
	return func(c *shell.Ctx, args []string) int {
		sub := *c
		sub.Args = append([]string{name}, args...)
		run, ok := c.Phone.(Phone).CommandFunc(name)
		if !ok {
			c.Errorf("cmd: Can't find service: %s\n", name)
			return 20
		}
		return run(&sub)
	}
}

// Cmd is frameworks/native/cmds/cmd: `cmd SERVICE ARGS...` hands the
// arguments to the service's onShellCommand. Errors as cmd.cpp prints them
// (status 20).
func Cmd(c *shell.Ctx) int {
	if len(c.Args) < 2 {
		if phone(c).SDK < 30 { // before `cmd -w` (Android 11)
			c.Errorf("cmd: No service specified; use -l to list all services\n")
		} else {
			c.Errorf("cmd: No service specified; use -l to list all running services. Use -w to start and wait for a service.\n")
		}
		return 20
	}
	svc, ok := cmdServices[c.Args[1]]
	if !ok {
		c.Errorf("cmd: Can't find service: %s\n", c.Args[1])
		return 20
	}
	return svc(c, c.Args[2:])
}

// clipboardCommand: ClipboardService (frameworks/base/services/core/java/
// com/android/server/clipboard/ClipboardService.java) overrides no
// onShellCommand through Android 14, so Binder.onShellCommand answers:
// "No shell command implementation." on stderr and result 0. Public tests
// of Android tools record exactly this for `cmd clipboard set-text ...`
// (stderr, exit 0).
func clipboardCommand(c *shell.Ctx, _ []string) int {
	c.Errorf("No shell command implementation.\n")
	return 0
}
