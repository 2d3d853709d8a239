package android

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
)

// cmdToyboxEcho is toybox echo (toys/posix/echo.c), /system/bin/echo:
// escapes only with -e, -n drops the newline; options end at the first
// word that is not one ("^?Een").
func cmdToyboxEcho(c *cmdCtx) int { return echoFlags(c, false) }

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
func cmdSleep(c *cmdCtx) int {
	a, st, ok := c.toyParse(toySpec{min: 1, max: -1})
	if !ok {
		return st
	}
	var total time.Duration
	for _, arg := range a.args {
		if arg == "" || arg[0] != '.' && !isDigit(arg[0]) {
			c.toyErr("Not a number '%s'", arg)
			return 1
		}
		rest := strings.TrimLeft(arg, "0123456789")
		if strings.HasPrefix(rest, ".") {
			rest = strings.TrimLeft(rest[1:], "0123456789")
		}
		if len(rest) > 1 || rest != "" && !strings.Contains("smhd", rest) {
			c.toyErr("Unknown suffix '%s'", rest)
			return 1
		}
		d, err := parseDuration(arg)
		if err != nil {
			c.toyErr("Not a number '%s'", arg)
			return 1
		}
		total += d
	}
	if !sleepCtx(c.ctx, total) {
		return exitCanceled
	}
	return 0
}

// cmdTimeout is toybox timeout: runs a device command with a deadline,
// status 124 when it expires.
func cmdTimeout(c *cmdCtx) int {
	args := c.args[1:]
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		if (args[0] == "-s" || args[0] == "-k") && len(args) > 1 {
			args = args[1:]
		}
		args = args[1:]
	}
	if len(args) < 2 {
		c.errorf("timeout: Needs 2 arguments (see \"timeout --help\")\n")
		return 125
	}
	dur, err := parseDuration(args[0])
	if err != nil {
		c.errorf("timeout: bad duration '%s'\n", args[0])
		return 125
	}
	fn, ok := c.d.command(args[1])
	if !ok || strings.HasPrefix(args[1], "__") {
		c.errorf("timeout: exec %s: No such file or directory\n", args[1])
		return 127
	}
	ctx, cancel := context.WithTimeout(c.ctx, dur)
	defer cancel()
	sub := *c
	sub.ctx, sub.args = ctx, args[1:]
	status := fn(&sub)
	if ctx.Err() == context.DeadlineExceeded && c.ctx.Err() == nil {
		return 124
	}
	return status
}

// builtinNames are shell builtins `command -v`/`type` report as such.
var builtinNames = map[string]bool{"cd": true, "echo": true, "exit": true, "export": true, "read": true, "set": true,
	"true": true, "false": true, "test": true, "[": true, "pwd": true, "eval": true, "exec": true}

// cmdCommand is the `command` builtin without host PATH lookups.
func cmdCommand(c *cmdCtx) int {
	args := c.args[1:]
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
			c.printf("%s\n", args[0])
		case c.has(args[0]):
			c.printf("/system/bin/%s\n", args[0])
		default:
			return 1
		}
		return 0
	}
	fn, ok := c.d.command(args[0])
	if !ok || strings.HasPrefix(args[0], "__") {
		c.errorf("%s: %s: inaccessible or not found\n", shellName, args[0])
		return exitNotFound
	}
	sub := *c
	sub.args = args
	return fn(&sub)
}

// cmdType is the `type` builtin without host PATH lookups (mksh wording).
func cmdType(c *cmdCtx) int {
	status := 0
	for _, a := range c.args[1:] {
		switch {
		case builtinNames[a]:
			c.printf("%s is a shell builtin\n", a)
		case c.has(a):
			c.printf("%s is a tracked alias for /system/bin/%s\n", a, a)
		default:
			c.printf("%s not found\n", a)
			status = 1
		}
	}
	return status
}

// cmdPwd is toybox pwd (toys/posix/pwd.c), /system/bin/pwd: what run-as
// and timeout exec (a plain pwd is the shell's builtin).
func cmdPwd(c *cmdCtx) int {
	c.printf("%s\n", c.dir)
	return 0
}

// cmdID is toybox id (toys/posix/id.c, do_id) for the adb shell user
// (identity, selinux.go): the full line, or -u/-g/-G numbers (-n names),
// -Z the context.
func cmdID(c *cmdCtx) int {
	a, st, ok := c.toyParse(toySpec{opts: "nGgruZ", max: 1})
	if !ok {
		return st
	}
	who := c.d.identity()
	show := func(id int, name string) string {
		if a.has('n') {
			return name
		}
		return strconv.Itoa(id)
	}
	switch {
	case a.has('u'), a.has('g'):
		c.printf("%s\n", show(who.uid, who.user))
	case a.has('G'):
		var ids []string
		for _, g := range who.groups {
			ids = append(ids, show(g.id, g.name))
		}
		c.printf("%s\n", strings.Join(ids, " "))
	case a.has('Z'):
		c.printf("%s\n", who.context)
	default:
		c.printf("%s\n", who.idLine())
	}
	return 0
}

// cmdUname is toybox uname (-a, -r, -m, -s).
func cmdUname(c *cmdCtx) int {
	const (
		rel  = "5.10.157-android13-4-00001-g5c7ff5dc7aac-ab10381520"
		ver  = "#1 SMP PREEMPT Fri Jun 23 14:11:48 UTC 2023"
		arch = "aarch64"
	)
	switch {
	case len(c.args) == 1 || c.args[1] == "-s":
		c.printf("Linux\n")
	case c.args[1] == "-r":
		c.printf("%s\n", rel)
	case c.args[1] == "-m":
		c.printf("%s\n", arch)
	default:
		c.printf("Linux localhost %s %s %s Toybox\n", rel, ver, arch)
	}
	return 0
}

// has reports whether name is a device command of this phone a user may
// run by name (not one of the shell's internal "__" routes).
func (c *cmdCtx) has(name string) bool {
	_, ok := c.d.command(name)
	return ok && !strings.HasPrefix(name, "__")
}
