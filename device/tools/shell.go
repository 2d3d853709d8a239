package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/device/policy"
)

// android_shell bounds.
const (
	maxShellCommandBytes = 4096
	maxShellOutput       = 64 << 10
	defaultShellTimeout  = 10 * time.Second
	maxShellTimeoutMS    = 60000
)

// shellResult is android_shell's result. Stdout and stderr are each cut at
// maxShellOutput (Truncated says so).
type shellResult struct {
	ExitCode  int    `json:"exit_code"`
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	Truncated bool   `json:"truncated"`
}

type shellArgs struct {
	Command   string `json:"command"`
	TimeoutMS *int   `json:"timeout_ms"`
}

func shellTool(t *Tools) *toolDef {
	return declare(t, decl[shellArgs]{
		id: policy.ShellToolID, title: "Run an allowed shell command on the Android phone",
		props: map[string]any{
			"command": map[string]any{"type": "string", "minLength": 1, "maxLength": maxShellCommandBytes,
				"description": "The command line, e.g. \"dumpsys battery\"."},
			"timeout_ms": map[string]any{"type": "integer", "minimum": 100, "maximum": maxShellTimeoutMS,
				"description": "How long it may run (default 10000)."},
		}, required: []string{"command"}, run: (*Tools).runShell,
		description: "Runs ONE simple command on the bound phone's shell, only if its leading words match a prefix the " +
			"operator allowed (e.g. \"dumpsys battery\", \"getprop\"): no ; && || pipes, redirections, substitutions, " +
			"globs, variables or quotes that join words. Returns exit_code, stdout and stderr (each cut at 64 KiB, " +
			"truncated says so). A command outside the allowlist is not_permitted; one that is not a single simple " +
			"command is invalid_arguments naming what was found. Repeating a call with the same tool_call_id " +
			"returns the first result without running again.",
	})
}

func (t *Tools) runShell(ctx context.Context, inv *invocation, a shellArgs) (any, error) {
	argv, err := parseShellCommand(a.Command)
	if err != nil {
		return nil, err
	}
	var prefixes []string
	if inv.policy != nil && inv.policy.Shell.Enabled {
		prefixes = inv.policy.Shell.Prefixes
	}
	if !allowedCommand(argv, prefixes) {
		return nil, &policyError{Rule: "shell", Message: fmt.Sprintf(
			"%q is not among the %d command prefixes the operator allows on this phone", strings.Join(argv[:min(len(argv), 3)], " "), len(prefixes))}
	}
	timeout := defaultShellTimeout
	if a.TimeoutMS != nil {
		timeout = time.Duration(*a.TimeoutMS) * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := inv.dev.Shell(ctx, argv...)
	var ee *adb.ExitError
	if err != nil && !errors.As(err, &ee) {
		return nil, err
	}
	out := shellResult{ExitCode: res.ExitCode}
	out.Stdout, out.Truncated = capOutput(res.Stdout)
	var cut bool
	out.Stderr, cut = capOutput(res.Stderr)
	out.Truncated = out.Truncated || cut
	return out, nil
}

func capOutput(b []byte) (string, bool) {
	if len(b) > maxShellOutput {
		return strings.ToValidUTF8(string(b[:maxShellOutput]), "\uFFFD"), true
	}
	return strings.ToValidUTF8(string(b), "\uFFFD"), false
}

// allowedCommand reports whether argv starts with the words of one of the
// prefixes (word by word: "pm list" allows "pm list packages", not "pm
// install").
func allowedCommand(argv, prefixes []string) bool {
	for _, p := range prefixes {
		words := strings.Fields(p)
		if len(words) > 0 && len(words) <= len(argv) && equalWords(argv[:len(words)], words) {
			return true
		}
	}
	return false
}

func equalWords(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// parseShellCommand accepts a command line only when it is one simple
// command of literal words, and returns them. Everything a shell would
// give meaning to is refused with an *argError naming it: several
// commands (; && || newlines), pipes, background jobs, redirections and
// here-docs, command and process substitutions, parameters and
// arithmetic, globs, brace expansion, a leading ~, assignments, and any
// character outside printable ASCII (look-alike punctuation, control
// characters). The words are re-quoted when run, never passed on as text.
func parseShellCommand(cmd string) ([]string, error) {
	bad := func(what string) error {
		return &argError{Field: "command", Reason: what + " is not allowed: one simple command only"}
	}
	if len(cmd) > maxShellCommandBytes {
		return nil, &argError{Field: "command", Reason: fmt.Sprintf("is longer than %d bytes", maxShellCommandBytes)}
	}
	for _, r := range cmd {
		if r < 0x20 || r > 0x7e {
			return nil, bad("a character outside printable ASCII")
		}
	}
	f, err := syntax.NewParser(syntax.KeepComments(true)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		return nil, &argError{Field: "command", Reason: "does not parse as a shell command"}
	}
	switch {
	case len(f.Stmts) != 1:
		return nil, bad("more than one command")
	case len(f.Last) > 0 || len(f.Stmts[0].Comments) > 0:
		return nil, bad("a comment")
	}
	st := f.Stmts[0]
	switch {
	case st.Semicolon.IsValid():
		return nil, bad("a ;")
	case st.Background || st.Coprocess || st.Disown:
		return nil, bad("a background job")
	case st.Negated:
		return nil, bad("negation (!)")
	case len(st.Redirs) > 0:
		return nil, bad("a redirection")
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok {
		switch st.Cmd.(type) {
		case *syntax.BinaryCmd:
			return nil, bad("a pipe or && / ||")
		default:
			return nil, bad("a compound command")
		}
	}
	if len(call.Assigns) > 0 {
		return nil, bad("a variable assignment")
	}
	if len(call.Args) == 0 {
		return nil, &argError{Field: "command", Reason: "is empty"}
	}
	argv := make([]string, 0, len(call.Args))
	for _, w := range call.Args {
		s, err := literalWord(w)
		if err != nil {
			return nil, err
		}
		argv = append(argv, s)
	}
	return argv, nil
}

// literalWord is a word's value when it is made of plain text only:
// unquoted literals without glob, brace or tilde meaning, and quoted
// strings without expansions.
func literalWord(w *syntax.Word) (string, error) {
	bad := func(what string) error {
		return &argError{Field: "command", Reason: what + " is not allowed: one simple command only"}
	}
	var sb strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			// Unquoted, only what every shell takes literally: no glob,
			// brace, escape, $, ~ or anything else with a meaning.
			if strings.ContainsFunc(p.Value, func(r rune) bool { return !policy.PlainShellChar(r) }) {
				return "", bad("an unquoted character other than letters, digits and -_./:,=%+@")
			}
			sb.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", bad("a $'...' string")
			}
			sb.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", bad("a $\"...\" string")
			}
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", bad("an expansion inside quotes")
				}
				if strings.ContainsAny(l.Value, "\\`$") {
					return "", bad("an escape or expansion inside quotes")
				}
				sb.WriteString(l.Value)
			}
		case *syntax.ParamExp, *syntax.ArithmExp:
			return "", bad("a variable or arithmetic expansion")
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return "", bad("a command substitution")
		default:
			return "", bad("an expansion")
		}
	}
	if strings.ContainsAny(sb.String(), "\x00") {
		return "", bad("a NUL byte")
	}
	return sb.String(), nil
}
