// Command adb-connector serves Android phones to xAgent agents over the
// xAgent Connector protocol 3.0 (Device Profile xagent.device.v1), and holds
// the operator's commands. Each subcommand lives in its own file and registers
// itself in the table below.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/adb-connector/adb-connector/internal/suggest"
)

// command is one subcommand: run parses its own flags from args.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{}

// register adds a subcommand; called from init in the file that implements it.
func register(name, summary string, run func(args []string, stdout, stderr io.Writer) error) {
	if _, dup := commands[name]; dup {
		panic("adb-connector: command registered twice: " + name)
	}
	commands[name] = command{summary: summary, run: run}
}

// errUsage marks an error already explained by a usage message.
var errUsage = errors.New("usage")

// Exit codes: 0 done (help included), 1 the command failed, 2 the
// command line was wrong (the line printed says how).
func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case err == nil || errors.Is(err, errHelp):
	case errors.Is(err, errUsage):
		os.Exit(2)
	default:
		if !errors.Is(err, errFailed) {
			fmt.Fprintln(os.Stderr, "adb-connector:", err)
		}
		os.Exit(1)
	}
}

// errFailed marks a failure the command has already reported in full (a
// doctor check that failed): exit 1 with no further line.
var errFailed = errors.New("failed")

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		usage(stderr)
		return errUsage
	}
	switch {
	case isHelp(args[0]):
		if len(args) > 1 { // adb-connector help pair
			if _, ok := commands[args[1]]; ok {
				return commands[args[1]].run([]string{"--help"}, stdout, stderr)
			}
		}
		usage(stdout)
		return errHelp
	case args[0] == "--version" || args[0] == "-version":
		return runVersion(args[1:], stdout, stderr)
	}
	cmd, ok := commands[args[0]]
	if !ok {
		what := "command"
		if strings.HasPrefix(args[0], "-") {
			what = "flag"
		}
		hint := ""
		if c := suggest.Closest(strings.TrimLeft(args[0], "-"), commandNames()); c != "" {
			hint = fmt.Sprintf(" (did you mean %s?)", c)
		}
		fmt.Fprintf(stderr, "adb-connector: unknown %s %q%s; see adb-connector --help\n", what, args[0], hint)
		return errUsage
	}
	return cmd.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: adb-connector COMMAND [flags]")
	fmt.Fprintln(w, "\nServes Android phones to AI agents over the xAgent Connector protocol 3.0, and holds the operator's commands.")
	fmt.Fprintln(w, "\ncommands:")
	for _, name := range commandNames() {
		fmt.Fprintf(w, "  %-10s %s\n", name, commands[name].summary)
	}
	fmt.Fprintln(w, "\nRun 'adb-connector COMMAND --help' for a command's flags; 'adb-connector --version' for the build.")
}
