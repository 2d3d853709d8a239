package android

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/emulator/android/shell"
)

// cmdToyboxEcho is toybox echo (toys/posix/echo.c), /system/bin/echo:
// escapes only with -e, -n drops the newline; options end at the first
// word that is not one ("^?Een").
func cmdToyboxEcho(c *shell.Ctx) int { return shell.EchoFlags(c, false) }

// parseDuration parses toybox durations: "5", "0.5", "5s", "2m", "1h", "1d".
func parseDuration(s string) (time.Duration, error) {
	mult := time.Second
	if s != "" {
		switch s[len(s)-1] {
		case 's':
			s = s[:len(s)-1]
		case 'm':
			mult, s = time.Minute, s[:len(s)-1]
		case 'h':
			mult, s = time.Hour, s[:len(s)-1]
		case 'd':
			mult, s = 24*time.Hour, s[:len(s)-1]
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f > 1e7 {
		return 0, errors.New("bad duration")
	}
	return time.Duration(f * float64(mult)), nil
}

// cmdSleep is toybox sleep (toys/posix/sleep.c): each operand in turn,
// as xparsetime (lib/xwrap.c) reads it: "Not a number 'X'", "Unknown
// suffix 'X'". It ends early (status 130) when the stream closes.
func cmdSleep(c *shell.Ctx) int {
	a, st, ok := c.ToyParse(shell.ToySpec{Min: 1, Max: -1})
	if !ok {
		return st
	}
	var total time.Duration
	for _, arg := range a.Operands {
		if arg == "" || arg[0] != '.' && !shell.IsDigit(arg[0]) {
			c.ToyErr("Not a number '%s'", arg)
			return 1
		}
		rest := strings.TrimLeft(arg, "0123456789")
		if strings.HasPrefix(rest, ".") {
			rest = strings.TrimLeft(rest[1:], "0123456789")
		}
		if len(rest) > 1 || rest != "" && !strings.Contains("smhd", rest) {
			c.ToyErr("Unknown suffix '%s'", rest)
			return 1
		}
		d, err := parseDuration(arg)
		if err != nil {
			c.ToyErr("Not a number '%s'", arg)
			return 1
		}
		total += d
	}
	if !shell.SleepCtx(c.Context, total) {
		return shell.ExitCanceled
	}
	return 0
}

// cmdTimeout is toybox timeout: runs a device command with a deadline,
// status 124 when it expires.
func cmdTimeout(c *shell.Ctx) int {
	args := c.Args[1:]
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		if (args[0] == "-s" || args[0] == "-k") && len(args) > 1 {
			args = args[1:]
		}
		args = args[1:]
	}
	if len(args) < 2 {
		c.Errorf("timeout: Needs 2 arguments (see \"timeout --help\")\n")
		return 125
	}
	dur, err := parseDuration(args[0])
	if err != nil {
		c.Errorf("timeout: bad duration '%s'\n", args[0])
		return 125
	}
	fn, ok := dev(c).command(args[1])
	if !ok || strings.HasPrefix(args[1], "__") {
		c.Errorf("timeout: exec %s: No such file or directory\n", args[1])
		return 127
	}
	ctx, cancel := context.WithTimeout(c.Context, dur)
	defer cancel()
	sub := *c
	sub.Context, sub.Args = ctx, args[1:]
	status := fn(&sub)
	if ctx.Err() == context.DeadlineExceeded && c.Context.Err() == nil {
		return 124
	}
	return status
}

// builtinNames are shell builtins `command -v`/`type` report as such.
var builtinNames = map[string]bool{"cd": true, "echo": true, "exit": true, "export": true, "read": true, "set": true,
	"true": true, "false": true, "test": true, "[": true, "pwd": true, "eval": true, "exec": true}

// cmdCommand is the `command` builtin without host PATH lookups.
func cmdCommand(c *shell.Ctx) int {
	args := c.Args[1:]
	verbose := false
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		verbose = verbose || strings.ContainsAny(args[0], "vV")
		args = args[1:]
	}
	if len(args) == 0 {
		return 0
	}
	if verbose {
		switch {
		case builtinNames[args[0]]:
			c.Printf("%s\n", args[0])
		case hasCommand(c, args[0]):
			c.Printf("/system/bin/%s\n", args[0])
		default:
			return 1
		}
		return 0
	}
	fn, ok := dev(c).command(args[0])
	if !ok || strings.HasPrefix(args[0], "__") {
		c.Errorf("%s: %s: inaccessible or not found\n", shell.ShellName, args[0])
		return shell.ExitNotFound
	}
	sub := *c
	sub.Args = args
	return fn(&sub)
}

// cmdType is the `type` builtin without host PATH lookups (mksh wording).
func cmdType(c *shell.Ctx) int {
	status := 0
	for _, a := range c.Args[1:] {
		switch {
		case builtinNames[a]:
			c.Printf("%s is a shell builtin\n", a)
		case hasCommand(c, a):
			c.Printf("%s is a tracked alias for /system/bin/%s\n", a, a)
		default:
			c.Printf("%s not found\n", a)
			status = 1
		}
	}
	return status
}

// cmdPwd is toybox pwd (toys/posix/pwd.c), /system/bin/pwd: what run-as
// and timeout exec (a plain pwd is the shell's builtin).
func cmdPwd(c *shell.Ctx) int {
	c.Printf("%s\n", c.Dir)
	return 0
}

// cmdID is toybox id (toys/posix/id.c, do_id) for the adb shell user
// (identity, selinux.go): the full line, or -u/-g/-G numbers (-n names),
// -Z the context.
func cmdID(c *shell.Ctx) int {
	a, st, ok := c.ToyParse(shell.ToySpec{Opts: "nGgruZ", Max: 1})
	if !ok {
		return st
	}
	who := dev(c).identity()
	show := func(id int, name string) string {
		if a.Has('n') {
			return name
		}
		return strconv.Itoa(id)
	}
	switch {
	case a.Has('u'), a.Has('g'):
		c.Printf("%s\n", show(who.uid, who.user))
	case a.Has('G'):
		var ids []string
		for _, g := range who.groups {
			ids = append(ids, show(g.id, g.name))
		}
		c.Printf("%s\n", strings.Join(ids, " "))
	case a.Has('Z'):
		c.Printf("%s\n", who.context)
	default:
		c.Printf("%s\n", who.idLine())
	}
	return 0
}

// cmdUname is toybox uname (-a, -r, -m, -s).
func cmdUname(c *shell.Ctx) int {
	const (
		rel  = "5.10.157-android13-4-00001-g5c7ff5dc7aac-ab10381520"
		ver  = "#1 SMP PREEMPT Fri Jun 23 14:11:48 UTC 2023"
		arch = "aarch64"
	)
	switch {
	case len(c.Args) == 1 || c.Args[1] == "-s":
		c.Printf("Linux\n")
	case c.Args[1] == "-r":
		c.Printf("%s\n", rel)
	case c.Args[1] == "-m":
		c.Printf("%s\n", arch)
	default:
		c.Printf("Linux localhost %s %s %s Toybox\n", rel, ver, arch)
	}
	return 0
}

// hasCommand reports whether name is a device command of this phone a user may
// run by name (not one of the shell's internal "__" routes).
func hasCommand(c *shell.Ctx, name string) bool {
	_, ok := dev(c).command(name)
	return ok && !strings.HasPrefix(name, "__")
}
