package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/adb-connector/adb-connector/adb"
)

// packageCases are package names and whether they are valid.
var packageCases = []struct {
	name string
	ok   bool
}{
	{"com.example.app", true},
	{"com.android.chrome", true},
	{"android", true},
	{"com.example_app.v2", true},
	{"", false},
	{"com.foo;reboot", false},
	{"com.foo reboot", false},
	{"com.foo\nreboot", false},
	{"com.foo$(reboot)", false},
	{"com.foo`id`", false},
	{"'com.foo'", false},
	{"com..foo", false},
	{".com.foo", false},
	{"com.foo.", false},
	{"1com.foo", false},
	{"com/foo", false},
	{"com.föö", false},
	{"-p", false},
	{strings.Repeat("a", 256), false},
}

func TestCheckPackage(t *testing.T) {
	t.Parallel()
	for _, tc := range packageCases {
		err := checkPackage("package", tc.name)
		var ae *argError
		switch {
		case tc.ok && err != nil:
			t.Errorf("%q refused: %v", tc.name, err)
		case !tc.ok && (!errors.As(err, &ae) || ae.Field != "package"):
			t.Errorf("%q: %v, want an *ArgError on package", tc.name, err)
		case err != nil && strings.Contains(err.Error(), tc.name) && tc.name != "":
			t.Errorf("%q: the message echoes the value: %v", tc.name, err)
		}
	}
}

// FuzzCheckPackage: whatever is accepted is a plain package name, made
// only of ASCII letters, digits, _ and dots, that nothing on a shell line
// treats specially.
func FuzzCheckPackage(f *testing.F) {
	for _, tc := range packageCases {
		f.Add(tc.name)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if checkPackage("package", name) != nil {
			return
		}
		if name == "" || len(name) > maxPackageBytes || strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") || strings.Contains(name, "..") {
			t.Fatalf("accepted %q", name)
		}
		for _, r := range name {
			if r > unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.') {
				t.Fatalf("accepted %q with %q", name, r)
			}
		}
	})
}

func TestAppLaunchComponent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		activity, want string
		bad            bool
	}{
		{"", "", false},
		{".Main", "com.example.app/.Main", false},
		{"com.example.app.Main", "com.example.app/com.example.app.Main", false},
		{"com.example.app/.Main", "com.example.app/.Main", false},
		{"com.other/.Main", "", true},
		{".Main;reboot", "", true},
		{"../x", "", true},
		{"com.example.app/", "", true},
	} {
		a := appLaunchArgs{Package: "com.example.app", Activity: tc.activity}
		got, err := a.component()
		var ae *argError
		switch {
		case tc.bad && (!errors.As(err, &ae) || ae.Field != "activity"):
			t.Errorf("%q: %v, want an *ArgError on activity", tc.activity, err)
		case !tc.bad && (err != nil || got != tc.want):
			t.Errorf("%q = %q %v, want %q", tc.activity, got, err, tc.want)
		}
	}
}

func TestAppSchemas(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		def   *toolDef
		args  string
		field string
	}{
		{appLaunchTool(&Tools{}), `{}`, "package"},
		{appLaunchTool(&Tools{}), `{"package":""}`, "package"},
		{appLaunchTool(&Tools{}), `{"package":"` + strings.Repeat("a", 256) + `"}`, "package"},
		{appStopTool(&Tools{}), `{"package":1}`, "package"},
		{appListTool(&Tools{}), `{"include_system":"yes"}`, "include_system"},
	} {
		_, err := publishedSchema(t, tc.def).validate(json.RawMessage(tc.args))
		var ae *argError
		if !errors.As(err, &ae) || ae.Field != tc.field {
			t.Errorf("%s %s: %v, want an error on %s", tc.def.tool.ID, tc.args, err, tc.field)
		}
	}
}

// TestNotInstalledWireError: a package that is not on the phone is
// app_not_installed, whatever wraps it, and the message does not echo it.
func TestNotInstalledWireError(t *testing.T) {
	t.Parallel()
	e := WireError(fmt.Errorf("launch com.secret.app: %w", adb.ErrNotInstalled))
	if e.Code != codeAppNotInstalled || strings.Contains(e.Message, "com.secret.app") {
		t.Errorf("WireError = %+v", e)
	}
}
