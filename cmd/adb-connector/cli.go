package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/adb-connector/adb-connector/internal/suggest"
)

// The command line's conventions, one place for every subcommand: -h and
// --help print the help to stdout and succeed; the help is a synopsis, one
// line saying what the command does, and the flags as --flag NAME with a
// placeholder saying what each takes; a mistake (an unknown flag, a
// missing value, a missing or extra argument) is one line on stderr that
// says what is wrong, the closest flag when one was mistyped, and where
// the help is.

// errHelp: the help was printed on request; the command succeeds.
var errHelp = errors.New("help shown")

// newFlags starts the flag set of subcommand name. Its help, printed to
// stdout on -h or --help, is the synopsis (after "adb-connector"), the
// description lines, then the flags.
func newFlags(name string, stdout io.Writer, synopsis string, description ...string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parse errors are ours to word (parseArgs)
	fs.Usage = func() {
		fmt.Fprintf(stdout, "usage: adb-connector %s\n\n", synopsis)
		for _, l := range description {
			fmt.Fprintln(stdout, l)
		}
		if hasFlags(fs) {
			fmt.Fprintln(stdout, "\nflags:")
			printFlags(stdout, fs)
		}
	}
	return fs
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// placeholders name what a flag takes when its usage names nothing in
// backquotes (flag.UnquoteUsage then gives the Go type).
var placeholders = map[string]string{"duration": "DURATION", "int": "N", "int64": "N", "uint": "N", "float": "NUMBER", "string": "VALUE", "value": "VALUE"}

// printFlags lists fs's flags as `--flag NAME  usage (default X)`.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	type row struct{ left, usage string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		left := "--" + f.Name
		if name != "" {
			if p, ok := placeholders[name]; ok {
				name = p
			}
			left += " " + strings.ToUpper(name)
		}
		if d := f.DefValue; d != "" && d != "0" && d != "false" && d != "0s" && d != "[]" {
			usage += fmt.Sprintf(" (default %s)", d)
		}
		rows = append(rows, row{left, usage})
		width = max(width, len(left))
	})
	for _, r := range rows {
		fmt.Fprintf(w, "  %-*s  %s\n", width, r.left, r.usage)
	}
}

// isHelp reports whether arg asks for the help.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "-help" || arg == "help"
}

// parseArgs parses flags that may come before, between or after the
// positional arguments (`pair SERIAL --ttl 5m`) and returns the
// positionals. -h or --help prints the help to stdout (errHelp); a
// mistake is one line on stderr (errUsage).
func parseArgs(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, error) {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "--help" || a == "-help" {
			fs.Usage()
			return nil, errHelp
		}
	}
	usage := fs.Usage
	fs.Usage = func() {} // flag calls it on every error: the help is not the answer to a typo
	defer func() { fs.Usage = usage }()
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, usageError(fs, stderr, flagMistake(fs, err))
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// flagMistake words a flag package error in one line, with the closest
// flag to an unknown one.
func flagMistake(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		name = strings.TrimLeft(name, "-")
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if c := suggest.Closest(name, names); c != "" {
			return fmt.Sprintf("unknown flag --%s (did you mean --%s?)", name, c)
		}
		return fmt.Sprintf("unknown flag --%s", name)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		name = strings.TrimLeft(name, "-")
		if f := fs.Lookup(name); f != nil {
			p, _ := flag.UnquoteUsage(f)
			if v, ok := placeholders[p]; ok {
				p = v
			}
			return fmt.Sprintf("--%s needs a value (%s)", name, strings.ToUpper(p))
		}
	}
	// invalid value "x" for flag -listen: ...
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		val, name, _ := strings.Cut(rest, " for flag -")
		name, reason, _ := strings.Cut(name, ": ")
		if f := fs.Lookup(name); f != nil {
			return fmt.Sprintf("--%s %s: %s", name, val, valueMistake(f, errors.New(reason)))
		}
	}
	return msg
}

// valueMistake words why a value does not suit flag f: the flag's own
// message, or for the flag package's bare "parse error", what it takes.
func valueMistake(f *flag.Flag, err error) string {
	if err == nil {
		return "not a valid value"
	}
	if msg := err.Error(); msg != "parse error" && msg != "value out of range" {
		return msg
	}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return "want true or false"
	}
	p, _ := flag.UnquoteUsage(f)
	switch p {
	case "duration", "DURATION":
		return "want a duration such as 30s, 5m or 1h"
	case "int", "int64", "uint", "N", "NUMBER", "BYTES":
		return "want a whole number"
	}
	return "not a valid " + strings.ToUpper(p)
}

// usageError prints one line saying what is wrong and where the help is,
// and returns errUsage.
func usageError(fs *flag.FlagSet, stderr io.Writer, msg string) error {
	fmt.Fprintf(stderr, "adb-connector %s: %s; see adb-connector %s --help\n", fs.Name(), msg, fs.Name())
	return errUsage
}

// wantArgs checks the number of positionals against the names the
// synopsis gives them (all required): a missing one is named, an extra one
// quoted.
func wantArgs(fs *flag.FlagSet, stderr io.Writer, pos []string, names ...string) error {
	switch {
	case len(pos) < len(names):
		return usageError(fs, stderr, "missing "+strings.Join(names[len(pos):], " and "))
	case len(pos) > len(names):
		what := "no arguments"
		if len(names) > 0 {
			what = "only " + strings.Join(names, " ")
		}
		return usageError(fs, stderr, fmt.Sprintf("unexpected argument %q (it takes %s)", pos[len(names)], what))
	}
	return nil
}

// commandNames are the subcommands, sorted.
func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
