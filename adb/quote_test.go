package adb

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// roundTrip parses a command line as mksh would and expands it to fields.
func roundTrip(t *testing.T, line string) []string {
	t.Helper()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangMirBSDKorn)).Parse(strings.NewReader(line), "")
	if err != nil {
		t.Fatalf("parse %q: %v", line, err)
	}
	if len(f.Stmts) != 1 {
		t.Fatalf("%q: %d statements", line, len(f.Stmts))
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(f.Stmts[0].Redirs) != 0 || len(call.Assigns) != 0 {
		t.Fatalf("%q: not a simple command", line)
	}
	fields, err := expand.Fields(&expand.Config{}, call.Args...)
	if err != nil {
		t.Fatalf("expand %q: %v", line, err)
	}
	return fields
}

var quoteCases = [][]string{
	{"echo", "hello"},
	{"input", "text", "a b"},
	{"echo", "it's", `"q"`, `back\slash`, "$HOME", "`id`", "$(id)", "a;b", "a|b", "a&&b", "*", "~", "#c", "{a,b}", "x=y"},
	{"echo", "", " ", "\t\n", "ünïcødé", "日本"},
	{"am", "start", "-a", "android.intent.action.VIEW", "-d", "https://e.com/?a=1&b=2#frag"},
}

func TestQuoteArgsRoundTrip(t *testing.T) {
	for _, argv := range quoteCases {
		t.Run(strings.Join(argv, "_"), func(t *testing.T) {
			line, err := QuoteArgs(argv...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(argv, roundTrip(t, line)); diff != "" {
				t.Errorf("round trip of %q (-want +got):\n%s", line, diff)
			}
		})
	}
}

func FuzzQuoteArgs(f *testing.F) {
	for _, argv := range quoteCases {
		f.Add(argv[0], strings.Join(argv[1:], "\x01"))
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		argv := append([]string{a}, strings.Split(b, "\x01")...)
		line, err := QuoteArgs(argv...)
		if err != nil {
			return // NUL or invalid code points are refused
		}
		if diff := cmp.Diff(argv, roundTrip(t, line)); diff != "" {
			t.Errorf("round trip of %q (-want +got):\n%s", line, diff)
		}
	})
}
