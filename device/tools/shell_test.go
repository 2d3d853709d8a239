package tools

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var testShellPrefixes = []string{"getprop", "dumpsys battery", "pm list packages"}

// shellInjections reads testdata/shell_injections.txt (JSON strings).
func shellInjections(t testing.TB) []string {
	f, err := os.Open("testdata/shell_injections.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") || sc.Text() == "" {
			continue
		}
		var s string
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		out = append(out, s)
	}
	return out
}

// refusedShell reports whether android_shell refuses cmd before anything
// runs: it is not one simple command of literal words, or not allowed.
func refusedShell(cmd string) bool {
	argv, err := parseShellCommand(cmd)
	return err != nil || !allowedCommand(argv, testShellPrefixes)
}

func TestShellInjectionsRefused(t *testing.T) {
	t.Parallel()
	corpus := shellInjections(t)
	if len(corpus) < 100 {
		t.Fatalf("corpus of %d, want at least 100", len(corpus))
	}
	for _, c := range corpus {
		if !refusedShell(c) {
			argv, _ := parseShellCommand(c)
			t.Errorf("%q accepted as %q", c, argv)
		}
	}
}

func TestParseShellCommand(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cmd  string
		want []string
	}{
		{"getprop", []string{"getprop"}},
		{"getprop ro.build.version.sdk", []string{"getprop", "ro.build.version.sdk"}},
		{"dumpsys  battery", []string{"dumpsys", "battery"}},
		{`pm list packages 'com.example'`, []string{"pm", "list", "packages", "com.example"}},
		{`getprop "ro.product.model"`, []string{"getprop", "ro.product.model"}},
	} {
		got, err := parseShellCommand(tc.cmd)
		if err != nil || !cmp.Equal(got, tc.want) {
			t.Errorf("%q = %q, %v; want %q", tc.cmd, got, err, tc.want)
		}
	}
	_, err := parseShellCommand("getprop | sh")
	var ae *argError
	if !errors.As(err, &ae) || ae.Field != "command" || !strings.Contains(ae.Reason, "pipe") {
		t.Errorf("a pipe: %v", err)
	}
	if allowedCommand([]string{"dumpsys", "batterystats"}, testShellPrefixes) || !allowedCommand([]string{"dumpsys", "battery", "--checkin"}, testShellPrefixes) {
		t.Error("prefixes match words, not characters")
	}
}

// FuzzShellCommand: any input is refused, or is one simple command of
// literal words whose re-quoted form parses back to the same words.
func FuzzShellCommand(f *testing.F) {
	for _, c := range shellInjections(f) {
		f.Add(c)
	}
	f.Add("getprop ro.x")
	f.Fuzz(func(t *testing.T, cmd string) {
		argv, err := parseShellCommand(cmd)
		if err != nil {
			return
		}
		for _, w := range argv {
			for _, r := range w {
				if r < 0x20 || r > 0x7e {
					t.Fatalf("%q: word %q has a character outside printable ASCII", cmd, w)
				}
			}
		}
	})
}
