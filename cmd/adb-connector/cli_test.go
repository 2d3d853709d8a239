package main

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/device/tools"
)

func runMain(args ...string) (stdout, stderr string, err error) {
	var out, errOut bytes.Buffer
	err = run(args, &out, &errOut)
	return out.String(), errOut.String(), err
}

// TestCLIHelp: -h and --help print to stdout and succeed; every
// subcommand's help has its synopsis, a line saying what it does, and its
// flags as --flag with a placeholder for what a flag takes.
func TestCLIHelp(t *testing.T) {
	t.Setenv("ADB_CONNECTOR_API_KEY", "")
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		out, errOut, err := runMain(args...)
		if !errors.Is(err, errHelp) || errOut != "" || !strings.Contains(out, "usage: adb-connector COMMAND") || !strings.Contains(out, "try ") {
			t.Errorf("%v: err %v, stdout %q, stderr %q", args, err, out, errOut)
		}
	}
	placeholder := regexp.MustCompile(`^  --[a-z-]+( [A-Z][A-Z:|_-]*)?  `)
	for _, name := range commandNames() {
		for _, h := range []string{"-h", "--help"} {
			out, errOut, err := runMain(name, h)
			if !errors.Is(err, errHelp) || errOut != "" {
				t.Errorf("%s %s: err %v, stderr %q", name, h, err, errOut)
				continue
			}
			synopsis, rest, _ := strings.Cut(out, "\n\n")
			if !strings.HasPrefix(synopsis, "usage: adb-connector "+name) || rest == "" || strings.HasPrefix(rest, "flags:") {
				t.Errorf("%s %s: want a synopsis then a description:\n%s", name, h, out)
			}
			_, flags, _ := strings.Cut(out, "\nflags:\n")
			for _, l := range strings.Split(strings.TrimRight(flags, "\n"), "\n") {
				if l != "" && !placeholder.MatchString(l) {
					t.Errorf("%s help: flag line %q, want --flag NAME", name, l)
				}
				if strings.Contains(l, " VALUE ") {
					t.Errorf("%s help: flag line %q names no placeholder of its own", name, l)
				}
			}
		}
	}
	// The help of one command, through help.
	if out, _, err := runMain("help", "pair"); !errors.Is(err, errHelp) || !strings.HasPrefix(out, "usage: adb-connector pair SERIAL") {
		t.Errorf("help pair: %v %q", err, out)
	}
}

func TestCLIVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		out, errOut, err := runMain(args...)
		if err != nil || errOut != "" || !strings.HasPrefix(out, "adb-connector ") || strings.Count(out, "\n") != 1 {
			t.Errorf("%v: err %v, stdout %q, stderr %q", args, err, out, errOut)
		}
	}
}

// TestCLIMistakes: an unknown command or flag, a missing or an extra
// argument: one line on stderr that names it, the closest match when
// there is one, and where the help is; nothing on stdout; errUsage.
func TestCLIMistakes(t *testing.T) {
	t.Setenv("ADB_CONNECTOR_API_KEY", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"devces"}, `adb-connector: unknown command "devces" (did you mean devices?); see adb-connector --help`},
		{[]string{"--lisen", "x"}, `adb-connector: unknown flag "--lisen"; see adb-connector --help`},
		{[]string{"serve", "--lisen", "127.0.0.1:1"}, "adb-connector serve: unknown flag --lisen (did you mean --listen?); see adb-connector serve --help"},
		{[]string{"serve", "--listen"}, "adb-connector serve: --listen needs a value (ADDRESS); see adb-connector serve --help"},
		{[]string{"serve", "--lease-grace", "soon"}, `adb-connector serve: --lease-grace "soon": want a duration such as 30s, 5m or 1h; see adb-connector serve --help`},
		{[]string{"serve", "extra"}, `adb-connector serve: unexpected argument "extra" (it takes no arguments); see adb-connector serve --help`},
		{[]string{"pair"}, "adb-connector pair: missing SERIAL; see adb-connector pair --help"},
		{[]string{"approve"}, "adb-connector approve: missing CODE; see adb-connector approve --help"},
		{[]string{"unbind", "A", "B"}, `adb-connector unbind: unexpected argument "B" (it takes only SERIAL); see adb-connector unbind --help`},
		{[]string{"config", "check"}, "adb-connector config: missing FILE: adb-connector config check FILE; see adb-connector config --help"},
		{[]string{"try"}, "adb-connector try: missing TOOL (e.g. android_observe); see adb-connector try --help"},
		{[]string{"try", "android_tapp"}, `adb-connector try: unknown tool "android_tapp" (did you mean android_tap?); the tools: ` + strings.Join(tools.IDs(tools.FullSet()), ", ") + "; see adb-connector try --help"},
		{[]string{"devices", "--jsn"}, "adb-connector devices: unknown flag --jsn (did you mean --json?); see adb-connector devices --help"},
	} {
		out, errOut, err := runMain(tc.args...)
		if !errors.Is(err, errUsage) || out != "" || errOut != tc.want+"\n" {
			t.Errorf("%q:\n err %v\n stdout %q\n stderr %q\n want   %q", tc.args, err, out, errOut, tc.want)
		}
	}
}

// TestOperatorMessagesSayWhatNext: refusals about a device name it and the
// command to run next.
func TestOperatorMessagesSayWhatNext(t *testing.T) {
	f := startAdminFixture(t)
	for _, tc := range []struct {
		run  runFunc
		args []string
		want string
	}{
		{runPair, []string{"NOSUCH"}, "unknown device \"NOSUCH\"; `adb-connector devices` lists them"},
		{runUnbind, []string{"NOSUCH"}, "unknown device \"NOSUCH\""},
		{runUnbind, []string{"S1"}, "S1 is not bound to any channel: nothing to unbind"},
		{runUnbind, []string{"S1", "--clear-reset"}, "S1 owes no reset"},
		{runApprove, []string{"ABC-DEF", "--serial", "NOSUCH"}, "NOSUCH"},
	} {
		_, err := runCLI(tc.run, append(tc.args, "--data-dir", f.dir)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestOperatorCommandsFindTheDataDirectory: given no --data-dir, an
// operator command takes ./data when a server listens there, else the
// system data directory when one does, and says so; else the one that
// holds a database.
func TestOperatorCommandsFindTheDataDirectory(t *testing.T) {
	f := startAdminFixture(t) // a server on f.dir's admin socket
	t.Chdir(t.TempDir())      // no ./data here
	orig := dataDirCandidates
	t.Cleanup(func() { dataDirCandidates = orig })
	dataDirCandidates = []string{defaultDataDir, f.dir}
	t.Setenv(dataDirEnv, "")
	var out, errOut bytes.Buffer
	if err := runDevices(nil, &out, &errOut); err != nil {
		t.Fatalf("devices without --data-dir: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(errOut.String(), "using "+f.dir+", the running server's data directory") || !strings.Contains(out.String(), "S1") {
		t.Errorf("stdout %q, stderr %q: want the fixture's devices and which directory was used", out.String(), errOut.String())
	}
	dataDirCandidates = []string{defaultDataDir, t.TempDir()}
	if got := resolveDataDir("", &errOut); got != defaultDataDir {
		t.Errorf("no server, no database: %s, want %s", got, defaultDataDir)
	}
	if got := resolveDataDir("/given", &errOut); got != "/given" {
		t.Errorf("given: %s", got)
	}
}
