package shell

import (
	"fmt"
	"path"
	"strconv"
	"strings"
)

// This file is what every toybox command shares: its option parser and its
// error messages. Android's /system/bin tools are toybox (0.8.6 in Android
// 13, 0.8.9 in Android 14); the formats below are those of toybox's
// lib/args.c (get_optflags, gotflag) and lib/lib.c (verror_msg), the same
// in both versions.

// ToySpec describes a command's options as its NEWTOY option string does.
type ToySpec struct {
	// opts lists the short options; a letter followed by ':' takes a
	// string argument, by '#' a number (both as "-n 5" or "-n5").
	Opts string
	// long maps long option names to their short letter ("lines": 'n').
	Long map[string]rune
	// min and max bound the operand count ("<1", ">2"); max < 0 means
	// no bound. Too few operands: "Needs 1 argument", too many: "Max 2
	// arguments" (lib/args.c).
	Min, Max int
	// stopEarly ends option parsing at the first operand ('^' in the
	// option string: echo, printf, tr).
	StopEarly bool
	// argfail is the exit status of usage errors (TOYFLAG_ARGFAIL; grep
	// uses 2). Default 1.
	ArgFail int
	// passUnknown makes an argument with an unknown option an operand
	// instead of an error ('?' in the option string: chmod's "-w" mode,
	// head's "-5").
	PassUnknown bool
	// attached lists options whose argument is optional and only given
	// attached ("-Iseconds"; toybox's ":;").
	Attached string
	// negative allows '#' arguments below 0 (toybox declares "#<0" for
	// most: "-n < 0").
	Negative bool
}

// ToyArgs is a parsed command line.
type ToyArgs struct {
	Flags    map[rune]bool
	Vals     map[rune][]string // arguments of ':' and '#' options, in order
	Operands []string          // operands
}

func (a ToyArgs) Has(r rune) bool { return a.Flags[r] }

// val returns the last argument given to option r, or "".
func (a ToyArgs) Val(r rune) string {
	v := a.Vals[r]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// toyName is the command name toybox prints in messages (toys.which->name):
// the base name, whether run as "ls" or "/system/bin/ls".
// (Tools the shell routes to our versions run as "__NAME".)
func (c *Ctx) ToyName() string { return strings.TrimPrefix(path.Base(c.Args[0]), "__") }

// toyErr prints "NAME: MESSAGE" on stderr, as toybox's error_msg.
func (c *Ctx) ToyErr(format string, a ...any) {
	c.Errorf("%s: %s\n", c.ToyName(), fmt.Sprintf(format, a...))
}

// toyPerror prints "NAME: MESSAGE: strerror", as toybox's perror_msg.
func (c *Ctx) ToyPerror(err error, format string, a ...any) {
	c.Errorf("%s: %s: %s\n", c.ToyName(), fmt.Sprintf(format, a...), ErrText(err))
}

// toyUsage prints a usage error as toybox's help_exit does:
// `NAME: MESSAGE (see "NAME --help")`.
func (c *Ctx) ToyUsage(format string, a ...any) {
	n := c.ToyName()
	c.Errorf("%s: %s (see \"%s --help\")\n", n, fmt.Sprintf(format, a...), n)
}

// ToyParse parses c.args[1:] as toybox's get_optflags does: options may
// follow operands (unless stopEarly), "--" ends options, "-" is an
// operand, and a bad option or operand count is a usage error. On error it
// has printed the message and returns ok=false with the exit status.
func (c *Ctx) ToyParse(spec ToySpec) (a ToyArgs, status int, ok bool) {
	fail := spec.ArgFail
	if fail == 0 {
		fail = 1
	}
	a = ToyArgs{Flags: map[rune]bool{}, Vals: map[rune][]string{}}
	args := c.Args[1:]
	optionsDone := false
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if optionsDone || len(arg) < 2 || arg[0] != '-' || (spec.PassUnknown && hasUnknown(spec, arg)) {
			a.Operands = append(a.Operands, arg)
			if spec.StopEarly {
				optionsDone = true
			}
			continue
		}
		if arg == "--" {
			optionsDone = true
			continue
		}
		if strings.HasPrefix(arg, "--") {
			name, val, hasVal := strings.Cut(arg[2:], "=")
			r, known := spec.Long[name]
			if !known {
				c.ToyUsage("Unknown option '%s'", arg[2:])
				return a, fail, false
			}
			a.Flags[r] = true
			if kind := optKind(spec.Opts, r); kind > 0 {
				if !hasVal {
					if i+1 >= len(args) {
						c.ToyUsage("Missing argument to --%s", name)
						return a, fail, false
					}
					i++
					val = args[i]
				}
				a.Vals[r] = append(a.Vals[r], val)
			}
			continue
		}
		for j := 1; j < len(arg); j++ {
			r := rune(arg[j])
			kind := optKind(spec.Opts, r)
			if kind < 0 {
				c.ToyUsage("Unknown option '%s'", arg[j:])
				return a, fail, false
			}
			a.Flags[r] = true
			if strings.ContainsRune(spec.Attached, r) {
				if j+1 < len(arg) {
					a.Vals[r] = append(a.Vals[r], arg[j+1:])
				}
				break
			}
			if kind == 0 {
				continue
			}
			val := arg[j+1:]
			if val == "" {
				if i+1 >= len(args) {
					c.ToyUsage("Missing argument to -%c", r)
					return a, fail, false
				}
				i++
				val = args[i]
			}
			if kind == '#' {
				n, err := atolx(val)
				if err != nil {
					c.ToyErr("%v", err)
					return a, fail, false
				}
				if n < 0 && !spec.Negative {
					c.ToyUsage("-%c < 0", r)
					return a, fail, false
				}
			}
			a.Vals[r] = append(a.Vals[r], val)
			break
		}
	}
	switch n := len(a.Operands); {
	case n < spec.Min:
		if spec.Min == 1 {
			c.ToyUsage("Needs 1 argument")
		} else {
			c.ToyUsage("Need %d arguments", spec.Min)
		}
		return a, fail, false
	case spec.Max >= 0 && n > spec.Max:
		if spec.Max == 1 {
			c.ToyUsage("Max 1 argument")
		} else {
			c.ToyUsage("Max %d arguments", spec.Max)
		}
		return a, fail, false
	}
	return a, 0, true
}

// hasUnknown reports whether the short options in arg ("-abc") include
// one spec does not declare before one that takes the rest as its value.
func hasUnknown(spec ToySpec, arg string) bool {
	if strings.HasPrefix(arg, "--") {
		_, known := spec.Long[strings.SplitN(arg[2:], "=", 2)[0]]
		return !known && arg != "--"
	}
	for _, r := range arg[1:] {
		switch kind := optKind(spec.Opts, r); {
		case kind < 0:
			return true
		case kind > 0 || strings.ContainsRune(spec.Attached, r):
			return false
		}
	}
	return false
}

// optKind reports how option r is declared in opts: -1 unknown, 0 a plain
// flag, ':' or '#' an option with an argument.
func optKind(opts string, r rune) int {
	i := strings.IndexRune(opts, r)
	if i < 0 || r == ':' || r == '#' {
		return -1
	}
	if i+1 < len(opts) && (opts[i+1] == ':' || opts[i+1] == '#') {
		return int(opts[i+1])
	}
	return 0
}

func isNumber(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// atolx parses a number as toybox's atolx (lib/lib.c): decimal, 0x hex or
// 0 octal, with an optional unit suffix (c=1 w=2 b=512 k m g t, "kd" for
// 1000s); anything else is "not integer: S".
func atolx(s string) (int64, error) {
	bad := fmt.Errorf("not integer: %s", s)
	num := strings.TrimSpace(s)
	end := len(num)
	for end > 0 && strings.ContainsRune("cwbkmgtpeCWBKMGTPEdD", rune(num[end-1])) &&
		!strings.HasPrefix(strings.ToLower(num), "0x") {
		end--
	}
	v, err := strconv.ParseInt(num[:end], 0, 64)
	if err != nil || end == 0 {
		return 0, bad
	}
	suf := strings.ToLower(num[end:])
	switch {
	case suf == "":
	case suf == "c":
	case suf == "w":
		v *= 2
	case suf == "b":
		v *= 512
	case len(suf) <= 2 && strings.Contains("kmgtpe", suf[:1]) && (len(suf) == 1 || suf[1] == 'd'):
		shift := strings.Index("kmgtpe", suf[:1]) + 1
		for range shift {
			if len(suf) == 2 {
				v *= 1000
			} else {
				v *= 1024
			}
		}
	default:
		return 0, bad
	}
	return v, nil
}
