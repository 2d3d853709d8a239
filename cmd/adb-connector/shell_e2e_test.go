package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shellConfig enables android_shell for phones tagged lab, which the tag
// rule gives to every phone of the adb server at endpoint.
func shellConfig(endpoint string) string {
	return `tags:
  - match: {endpoint: "` + endpoint + `"}
    tags: [lab]
policies:
  default:
    shell: {enabled: false}
  rules:
    - tags: [lab]
      rate_per_minute: 100000
      shell:
        enabled: true
        prefixes: ["getprop", "dumpsys battery", "pm list packages"]
`
}

// TestShellThroughServer: every command line of the injection corpus is
// refused and the virtual phone ran nothing; allowed commands run and
// return their output and exit code exactly.
func TestShellThroughServer(t *testing.T) {
	t.Parallel()
	f := newPolicyFlow(t, "launcher", shellConfig("*"))
	if st := toolStatus(f.descriptor(), "android_shell"); st != "available" {
		t.Fatalf("android_shell is %q in the Descriptor", st)
	}
	file, err := os.Open(filepath.Join("..", "..", "device", "tools", "testdata", "shell_injections.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	before := len(f.d.Android().Commands())
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		var cmd string
		if err := json.Unmarshal(sc.Bytes(), &cmd); err != nil {
			t.Fatal(err)
		}
		n++
		e := f.fail("android_shell", map[string]any{"command": cmd})
		if e.Code != "invalid_arguments" && e.Code != "not_permitted" {
			t.Errorf("%q: %+v", cmd, e)
		}
	}
	for _, c := range f.d.Android().Commands()[before:] {
		// The reset's baseline (the apps running and the rotation settings
		// when the binding began) may land meanwhile (on the shell session,
		// where echoes of its end markers follow it); nothing else may.
		if first := ""; len(c.Argv) == 0 || func() bool {
			first = strings.Join(c.Argv[0], " ")
			return first != "ps -A -o NAME" && first != "settings get system accelerometer_rotation"
		}() {
			t.Errorf("%d refused command lines, yet the phone ran %q", n, c.Line)
		}
	}
	var res struct {
		ExitCode int    `json:"exit_code"`
		Stdout   string `json:"stdout"`
		Stderr   string `json:"stderr"`
	}
	f.call("android_shell", map[string]any{"command": "getprop ro.build.version.sdk"}, &res)
	if res.ExitCode != 0 || strings.TrimSpace(res.Stdout) == "" {
		t.Errorf("getprop: %+v", res)
	}
	f.call("android_shell", map[string]any{"command": "pm list packages --nope"}, &res)
	if res.ExitCode == 0 || !strings.Contains(res.Stdout+res.Stderr, "nope") {
		t.Errorf("a failing allowed command: %+v", res)
	}
}

// TestShellNotOfferedWithoutTag: with android_shell enabled for another
// tag only, this phone's Descriptor says not_supported and a call is
// not_permitted.
func TestShellNotOfferedWithoutTag(t *testing.T) {
	t.Parallel()
	f := newPolicyFlow(t, "launcher", shellConfig("10.9.9.9:5037"))
	if st := toolStatus(f.descriptor(), "android_shell"); st != "not_supported" {
		t.Fatalf("android_shell is %q in the Descriptor", st)
	}
	if e := f.fail("android_shell", map[string]any{"command": "getprop"}); e.Code != "not_permitted" {
		t.Fatalf("call: %+v", e)
	}
}
