package shell

import (
	"io"
	"strings"
	"time"
)

// Android's shell is mksh R59 (external/mksh, built with HAVE_SELECT=1),
// and some commands scripts think of as toybox tools are mksh builtins
// there (mkshbuiltins[] in mksh's funcs.c): echo, sleep, and cat when it
// gets no options ("!cat": an option hands over to /system/bin/cat).
// Builtins report errors through bi_errorf: "/system/bin/sh: NAME: MSG",
// status 1. /system/bin/NAME by path runs the toybox tool instead.

// shErr prints a builtin's error as mksh's bi_errorf does.
func (c *Ctx) shErr(name, format string, a ...any) {
	c.Errorf("%s: %s: "+format+"\n", append([]any{ShellName, name}, a...)...)
}

// MkshCat is mksh's c_cat: files in order ("-" or none: stdin), an
// unreadable one reported as "cat: FILE: strerror". Any option other
// than "-"/"--" makes mksh run toybox cat instead.
func MkshCat(c *Ctx) int {
	args := c.Args[1:]
	if len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && args[0] != "--" {
		sub := *c
		sub.Args = append([]string{"cat"}, args...)
		return Cat(&sub)
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		io.Copy(c.Stdout, c.Stdin)
		return 0
	}
	status := 0
	for _, f := range args {
		if f == "-" {
			io.Copy(c.Stdout, c.Stdin)
			continue
		}
		data, err := c.Phone.FS().ReadFile(c.Abs(f))
		if err != nil {
			c.shErr("cat", "%s: %s", f, ErrText(err))
			status = 1
			continue
		}
		c.Stdout.Write(data)
	}
	return status
}

// MkshSleep is mksh's c_sleep: exactly one operand, seconds with an
// optional decimal fraction (parse_usec in mksh's syn.c; no unit
// suffixes); otherwise "sleep: syntax error[: strerror 'ARG']". It ends
// early (status 130) when the stream closes.
func MkshSleep(c *Ctx) int {
	args := c.Args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) != 1 {
		c.shErr("sleep", "syntax error")
		return 1
	}
	d, errno := parseUsec(args[0])
	if errno != "" {
		c.shErr("sleep", "syntax error: %s '%s'", errno, args[0])
		return 1
	}
	if !SleepCtx(c.Context, d) {
		return ExitCanceled
	}
	return 0
}

// parseUsec is mksh's parse_usec: digits, optionally "." and digits
// (microsecond precision). It returns the strerror text of its failure.
func parseUsec(s string) (time.Duration, string) {
	i := 0
	var secs int64
	for i < len(s) && IsDigit(s[i]) {
		secs = secs*10 + int64(s[i]-'0')
		if secs > 1<<31 {
			return 0, "Value too large for defined data type" // EOVERFLOW
		}
		i++
	}
	d := time.Duration(secs) * time.Second
	if i == len(s) {
		return d, ""
	}
	if s[i] != '.' {
		return 0, "Invalid argument"
	}
	frac := strings.TrimLeft(s[i+1:], "0123456789")
	if frac != "" {
		return 0, "Invalid argument"
	}
	digits := s[i+1:]
	unit := 100 * time.Millisecond
	for j := 0; j < len(digits) && j < 6; j++ {
		d += time.Duration(digits[j]-'0') * unit
		unit /= 10
	}
	return d, ""
}
