package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/connector"
)

// TestAuditShownAndRedacted fixes what the trail keeps of each kind of
// argument, through the schemas the Card publishes: package names, a
// URL's scheme and host and element selectors as sent; typed text, shell
// commands, log filters and the rest of a URL as their length only.
func TestAuditShownAndRedacted(t *testing.T) {
	t.Parallel()
	const secret = "hunter2-Secret"
	cases := []struct {
		name string
		def  func(*Tools) *toolDef
		args string
		want string
	}{
		{"typed text stays its length; its target selector is shown", typeTool,
			`{"text":"` + secret + `","target":{"resource_id":"com.example:id/password","match":"exact"},"clear":true}`,
			`{"clear":true,"target":{"match":"exact","resource_id":"com.example:id/password"},"text":{"len":14}}`},
		{"a flat selector is shown", tapTool,
			`{"text":"Sign in","content_desc":"Log in button","index":1}`,
			`{"content_desc":"Log in button","index":1,"text":"Sign in"}`},
		{"a URL keeps its scheme and host only", openURLTool,
			`{"url":"https://user:` + secret + `@shop.example.com:8443/reset?token=` + secret + `#x"}`,
			`{"url":{"len":78,"origin":"https://shop.example.com:8443"}}`},
		{"a package is shown", appLaunchTool,
			`{"package":"com.android.settings","activity":".Settings"}`,
			`{"activity":".Settings","package":"com.android.settings"}`},
		{"log filters stay their length, the package and level are shown", logcatTool,
			`{"tag":"` + secret + `","contains":"` + secret + `","package":"com.example.app","min_level":"warn"}`,
			`{"contains":{"len":14},"min_level":"warn","package":"com.example.app","tag":{"len":14}}`},
		{"a shell command stays its length", shellTool,
			`{"command":"echo ` + secret + `"}`,
			`{"command":{"len":19}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d := c.def(&Tools{})
			s, err := compileInputSchema(d.tool.ID, connector.WithConnectorChannelIDInputSchema(d.tool.InputSchema))
			if err != nil {
				t.Fatal(err)
			}
			args, err := s.validate(json.RawMessage(c.args))
			if err != nil {
				t.Fatalf("%s: %v", c.args, err)
			}
			got, err := json.Marshal(redactArgs(s, args))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("audit args\n got %s\nwant %s", got, c.want)
			}
			if strings.Contains(string(got), secret) || strings.Contains(string(got), "hunter2") {
				t.Errorf("the secret reached the audit args: %s", got)
			}
		})
	}
}

// FuzzAuditOrigin: what the trail keeps of any URL an agent sends is its
// scheme and host, never a path, query, fragment or user info.
func FuzzAuditOrigin(f *testing.F) {
	for _, s := range []string{"https://user:pw@shop.example.com:8443/reset?token=x#y", "intent://scan/#Intent;scheme=zxing;end",
		"http://[fe80::1%25en0]/a", "mailto:a@b.c", "https://a/b@c", "//host/path", "https://h?q@x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		o := origin(v)
		if o == "" {
			return
		}
		_, host, ok := strings.Cut(o, "://")
		if !ok || strings.ContainsAny(host, "/?#@") {
			t.Fatalf("origin(%q) = %q: more than scheme and host", v, o)
		}
	})
}
