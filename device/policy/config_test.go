package policy

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var testTools = []string{"android_tap", "android_type_text", "android_open_url", "android_screen_record", "android_shell"}

// testSettings stand for serve's flags, which the command gives as
// Options.Settings.
var testSettings = []string{"listen", "data_dir", "api_key_file", "lease_grace", "log_level", "drain_timeout", "adb",
	"virtual_devices", "virtual_scenario", "file_ttl", "file_cap_bytes", "max_conns", "max_conns_per_ip"}

func TestExampleFileParses(t *testing.T) {
	t.Parallel()
	c, err := Load(filepath.Join("..", "..", "deploy", "adb-connector.example.yaml"), Options{Settings: testSettings})
	if err != nil {
		t.Fatal(err)
	}
	st := c.File.Settings
	if !slices.Equal(st["listen"].Values, []string{"127.0.0.1:8080"}) || !slices.Equal(st["lease_grace"].Values, []string{"1h"}) || len(st["adb"].Values) != 1 || st["listen"].Line == 0 {
		t.Errorf("server settings: %+v", st)
	}
	pay := c.For(Device{Endpoint: "10.0.0.9:5037", Serial: "R58M123", Manufacturer: "Samsung", Model: "SM-G991B"})
	if pay.Rule != "policies.rules[1]" || !slices.Equal(pay.Tags, []string{"payments-test"}) || pay.TextInput {
		t.Errorf("payments device: %+v", pay)
	}
	if _, denied := pay.DeniedPackage("com.paypal.android"); !denied {
		t.Error("com.paypal.android not denied")
	}
	if r := pay.LaunchRefusal("org.other.app"); r == "" {
		t.Error("a package outside the allow list may be launched")
	}
	if r := pay.LaunchRefusal("com.example.shop"); r != "" {
		t.Errorf("allowed package refused: %s", r)
	}
	// Inherited from the default: the deny list of tools.
	if pay.Offers("android_screen_record") || !pay.Offers("android_tap") {
		t.Error("payments device: tools not inherited from the default")
	}
	none := c.For(Device{Endpoint: "10.0.0.9:5037", Serial: "X", Model: "Pixel_8_Pro"})
	if none.Offers("android_tap") || none.Rule != "policies.rules[0]" {
		t.Errorf("no-agents device: %+v", none)
	}
	lab := c.For(Device{Endpoint: "127.0.0.1:5037", Serial: "emulator-5554"})
	if !lab.Offers("android_screen_record") || lab.RatePerMinute != 240 || !lab.Shell.Enabled || lab.MaxRecord != time.Minute {
		t.Errorf("lab-a device: %+v", lab)
	}
	if lab.HostAllowed("evil.org") || !lab.HostAllowed("www.example.com") || !lab.HostAllowed("example.com") {
		t.Error("hosts not inherited")
	}
	other := c.For(Device{Endpoint: "10.0.0.9:5037", Serial: "Y"})
	if other.Rule != "policies.default" || len(other.Tags) != 0 || time.Duration(other.Lease.IdleTimeout) != 30*time.Minute {
		t.Errorf("untagged device: %+v", other)
	}
	if !c.ShellEnabled() {
		t.Error("ShellEnabled false")
	}
}

func TestNilPolicyAllowsEverything(t *testing.T) {
	t.Parallel()
	var c *Config
	e := c.For(Device{})
	if !e.Offers("android_tap") || e.LaunchRefusal("com.x") != "" || !e.HostAllowed("x") {
		t.Error("nil policy refuses")
	}
	if _, d := e.DeniedPackage("com.x"); d {
		t.Error("nil policy denies a package")
	}
	c, err := Parse(nil, Options{})
	if err != nil || c.For(Device{}).TextInput != true {
		t.Errorf("empty file: %v", err)
	}
}

// TestBadConfigs: every kind of mistake fails with a message naming it.
func TestBadConfigs(t *testing.T) {
	t.Parallel()
	const tagged = "tags:\n  - match: {serial: 'A*'}\n    tags: [lab-a]\n"
	tests := []struct {
		name, yaml string
		want       []string // substrings of the error
	}{
		{"unknown top key", "listen: x:1\nlisen: y\n", []string{"line 2", "lisen", "did you mean listen?", "allowed: listen, data_dir"}},
		{"unknown nested key", "policies:\n  default:\n    rate: 3\n", []string{"line 3", "policies.default.rate", "allowed: tags, tools, packages"}},
		{"wrong type int", "policies:\n  default:\n    rate_per_minute: fast\n", []string{"line 3", "policies.default.rate_per_minute", "whole number", `"fast"`}},
		{"wrong type bool", "policies:\n  default:\n    text_input: yes please\n", []string{"text_input", "true or false"}},
		{"notifications not a bool", "policies:\n  default:\n    notifications: maybe\n", []string{"notifications", "true or false"}},
		{"setting not a value", "adb: {a: 1}\n", []string{"line 1", "adb", "want a value"}},
		{"tab in indentation", "policies:\n\tdefault: {}\n", []string{"line 2", "tabs are not allowed in YAML indentation"}},
		{"bad clipboard", "policies:\n  default:\n    clipboard: read\n", []string{"policies.default.clipboard", "want read_write, write or none"}},
		{"bad phone_helper", "policies:\n  default:\n    phone_helper: on\n", []string{"policies.default.phone_helper", "want auto or off"}},
		{"wrong type mapping", "policies: [a]\n", []string{"policies", "want a mapping of default, rules"}},
		{"negative duration", "policies:\n  default:\n    lease: {idle_timeout: -5m}\n", []string{"line 3", "policies.default.lease.idle_timeout", "negative"}},
		{"duplicate key", "listen: a:1\nlisten: b:2\n", []string{"line 2", "listen", "twice"}},
		{"not yaml", "listen: [\n", []string{"not valid YAML"}},
		{"two documents", "listen: a:1\n---\nlisten: b:2\n", []string{"second YAML document"}},
		{"bad glob", "tags:\n  - match: {serial: 'R5[8'}\n    tags: [x]\n", []string{"tags[0].match.serial", "bad glob"}},
		{"bad tag", "tags:\n  - match: {serial: 'A'}\n    tags: [Lab A]\n", []string{"tags[0].tags[0]", "bad tag"}},
		{"tag rule without tags", "tags:\n  - match: {serial: 'A'}\n", []string{"tags[0].tags", "at least one tag"}},
		{"overlapping tag rules", "tags:\n  - match: {serial: 'A*'}\n    tags: [a]\n  - match: {serial: 'A*'}\n    tags: [b]\n", []string{"tags[1].match", "overlaps tags[0]"}},
		{"overlapping policy rules", tagged + "policies:\n  rules:\n    - tags: [lab-a]\n      text_input: false\n    - tags: [lab-a]\n      text_input: true\n", []string{"policies.rules[1]", "never applies", "policies.rules[0] (lab-a)"}},
		{"unassigned tag", tagged + "policies:\n  rules:\n    - tags: [lab-b]\n", []string{"policies.rules[0].tags[0]", `"lab-b"`, "no tags rule"}},
		{"rule without tags", tagged + "policies:\n  rules:\n    - text_input: false\n", []string{"policies.rules[0].tags", "at least one tag"}},
		{"default with tags", "policies:\n  default: {tags: [x]}\n", []string{"policies.default.tags"}},
		{"allow and deny tools", "policies:\n  default:\n    tools: {allow: [android_tap], deny: [android_type_text]}\n", []string{"policies.default.tools", "not both"}},
		{"unknown tool", "policies:\n  default:\n    tools: {deny: [android_tapp]}\n", []string{"policies.default.tools.deny[0]", `"android_tapp"`, "android_tap,"}},
		{"package allowed and denied", "policies:\n  default:\n    packages: {allow: [com.a.b], deny: [com.x, com.a.b]}\n", []string{"policies.default.packages.deny[1]", `"com.a.b" is both allowed and denied`}},
		{"bad package", "policies:\n  default:\n    packages: {deny: ['com.a b']}\n", []string{"packages.deny[0]", "not a package name"}},
		{"bad package glob", "policies:\n  default:\n    packages: {deny: ['com.[a']}\n", []string{"packages.deny[0]", "bad glob"}},
		{"bad scheme", "policies:\n  default:\n    urls: {schemes: ['HTTP:']}\n", []string{"urls.schemes[0]", "not a URL scheme"}},
		{"bad host glob", "policies:\n  default:\n    urls: {hosts: ['https://x.com']}\n", []string{"urls.hosts[0]", "host name"}},
		{"rate out of range", "policies:\n  default:\n    rate_per_minute: 0\n", []string{"rate_per_minute", "want 1..100000"}},
		{"record cap too long", "policies:\n  default:\n    max_record_ms: 600000\n", []string{"max_record_ms", "1000..180000"}},
		{"screenshot cap too small", "policies:\n  default:\n    max_screenshot_side: 10\n", []string{"max_screenshot_side", "64..4096"}},
		{"lease max under idle", "policies:\n  default:\n    lease: {idle_timeout: 1h, max_duration: 5m}\n", []string{"lease.max_duration", "shorter than idle_timeout"}},
		{"bad clear package", "policies:\n  default:\n    lease: {reset: {clear_packages: ['com.*']}}\n", []string{"clear_packages[0]"}},
		{"shell without prefixes", "policies:\n  default:\n    shell: {enabled: true}\n", []string{"shell.prefixes", "allows nothing"}},
		{"bad shell prefix", "policies:\n  default:\n    shell: {enabled: true, prefixes: [\"getprop\\n\"]}\n", []string{"shell.prefixes[0]"}},
		{"shell prefix with shell syntax", "policies:\n  default:\n    shell: {enabled: true, prefixes: [\"getprop;\"]}\n", []string{"shell.prefixes[0]", "letters, digits"}},
		{"shell prefix that runs anything", "policies:\n  default:\n    shell: {enabled: true, prefixes: [getprop, \"sh -c\"]}\n", []string{"shell.prefixes[1]", "runs other commands"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tt.yaml), Options{ToolIDs: testTools, Settings: testSettings})
			if err == nil {
				t.Fatalf("accepted:\n%s", tt.yaml)
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Errorf("error %T, want *Error", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestEveryMistakeWithItsLine: one Parse reports every mistake of a file,
// decoding and checks alike, each with its line, in line order.
func TestEveryMistakeWithItsLine(t *testing.T) {
	t.Parallel()
	yaml := "listen: a:1\n" + // 1
		"lisen: b:2\n" + // 2: unknown key
		"tags:\n" + // 3
		"  - match: {serial: 'R5[8'}\n" + // 4: bad glob
		"    tags: [x]\n" + // 5
		"policies:\n" + // 6
		"\tdefault:\n" + // 7: tab
		"    rate_per_minute: fast\n" + // 8: not a number
		"    tools: {deny: [android_tapp]}\n" // 9: unknown tool
	_, err := Parse([]byte(yaml), Options{ToolIDs: testTools, Settings: testSettings})
	if err == nil {
		t.Fatal("accepted")
	}
	lines := strings.Split(err.Error(), "\n")
	want := []string{"line 2: lisen", "line 4: tags[0].match.serial", "line 7: tabs are not allowed", "line 8: policies.default.rate_per_minute", "line 9: policies.default.tools.deny[0]"}
	if len(lines) != len(want) {
		t.Fatalf("%d mistakes reported, want %d:\n%s", len(lines), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("mistake %d: %q, want it to start %q", i, lines[i], w)
		}
	}
}

func TestTagsAndFirstMatch(t *testing.T) {
	t.Parallel()
	_, err := Parse([]byte(`
tags:
  - match: {model: "Pixel 7"}
    tags: [pixel, lab-a]
  - match: {manufacturer: "GOOGLE", endpoint: "10.0.0.*:5037"}
    tags: [remote]
policies:
  default: {rate_per_minute: 10}
  rules:
    - tags: [remote, nothing-else]
      text_input: false
    - tags: [lab-a]
      max_screenshot_side: 800
`), Options{})
	if err == nil {
		t.Fatal("a rule naming an unassigned tag was accepted")
	}
	c, err := Parse([]byte(`
tags:
  - match: {model: "Pixel 7"}
    tags: [pixel, lab-a]
  - match: {manufacturer: "GOOGLE", endpoint: "10.0.0.*:5037"}
    tags: [remote]
policies:
  default: {rate_per_minute: 10}
  rules:
    - tags: [remote]
      text_input: false
      phone_helper: off
    - tags: [lab-a, pixel]
      max_screenshot_side: 800
`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := Device{Endpoint: "10.0.0.3:5037", Serial: "S", Model: "Pixel_7", Manufacturer: "Google"}
	if got := c.TagsOf(d); !slices.Equal(got, []string{"lab-a", "pixel", "remote"}) {
		t.Errorf("tags %v", got)
	}
	e := c.For(d)
	if e.Rule != "policies.rules[0]" || e.TextInput || e.RatePerMinute != 10 || e.MaxScreenshotSide != 0 || e.HelperOn() {
		t.Errorf("first match: %+v", e)
	}
	d.Endpoint = "127.0.0.1:5037"
	if e := c.For(d); e.Rule != "policies.rules[1]" || !e.TextInput || e.MaxScreenshotSide != 800 || !e.HelperOn() || e.PhoneHelper != PhoneHelperAuto {
		t.Errorf("second rule: %+v", e)
	}
}

func TestReloader(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	name := filepath.Join(dir, "c.yaml")
	write := func(s string) {
		if err := os.WriteFile(name, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("policies:\n  default: {text_input: false}\n")
	c, err := Load(name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := NewHolder(c)
	applied := 0
	r := &Reloader{Path: name, Holder: h, OnApply: func(old, cur *Config) { applied++ }}
	write("policies:\n  default: {text_input: [}\n")
	if err := r.Reload(); err == nil {
		t.Fatal("a bad file was applied")
	}
	if h.For(Device{}).TextInput || applied != 0 {
		t.Fatal("the old config did not stay")
	}
	if st := r.Status(); st.Error == "" || st.ErrorAt.IsZero() || !st.AppliedAt.IsZero() {
		t.Fatalf("Status after a refused reload: %+v", st)
	}
	write("policies:\n  default: {text_input: true}\n")
	if err := r.Reload(); err != nil {
		t.Fatal(err)
	}
	if !h.For(Device{}).TextInput || applied != 1 {
		t.Fatal("the new config is not in force")
	}
	if st := r.Status(); st.Error != "" || st.AppliedAt.IsZero() {
		t.Fatalf("Status after an applied reload: %+v", st)
	}
}

// TestConfigYAML: the YAML shown for the file in force leaves out what is
// unset and parses back to the same file.
func TestConfigYAML(t *testing.T) {
	t.Parallel()
	c, err := Load(filepath.Join("..", "..", "deploy", "adb-connector.example.yaml"), Options{Settings: testSettings})
	if err != nil {
		t.Fatal(err)
	}
	y, err := c.YAML()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse([]byte(y), Options{Settings: testSettings})
	if err != nil {
		t.Fatalf("the YAML shown does not parse: %v\n%s", err, y)
	}
	// An empty deny list and none are the same (an empty allow list is
	// not: it is a pointer, and kept).
	if diff := cmp.Diff(c.File, back.File, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(Setting{}, "Line")); diff != "" {
		t.Errorf("round trip (-want +got):\n%s\nYAML:\n%s", diff, y)
	}
	if !strings.Contains(y, "idle_timeout: 30m0s") || !strings.Contains(y, "allow: []") || strings.Contains(y, "api_key_file") || !strings.Contains(y, "max_conns: 0") {
		t.Errorf("YAML:\n%s", y)
	}
	if y, err := (*Config)(nil).YAML(); err != nil || y != "" {
		t.Errorf("nil Config: %q, %v", y, err)
	}
	empty, err := Parse(nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if y, err := empty.YAML(); err != nil || y != "" {
		t.Errorf("empty file: %q, %v", y, err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"listen: a:1\n", "tags:\n  - match: {serial: 'A*'}\n    tags: [a]\n", "policies:\n  default:\n    tools: {allow: []}\n", "a: &x [1]\nb: *x\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Parse(b, Options{})
		if err == nil {
			c.For(Device{Serial: "s", Model: "m"})
		}
	})
}

// TestReloaderRun: Run starts with a reload; a value on the hup channel
// reloads the file at once; a changed file is noticed by the poll.
func TestReloaderRun(t *testing.T) {
	t.Parallel()
	name := filepath.Join(t.TempDir(), "c.yaml")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(name, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("policies: {default: {text_input: false}}\n")
	c, err := Load(name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := NewHolder(c)
	applied := make(chan bool, 4)
	onApply := func(_, cur *Config) { applied <- cur.For(Device{}).TextInput }
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	hup := make(chan os.Signal, 1)
	go (&Reloader{Path: name, Holder: h, OnApply: onApply}).Run(ctx, time.Hour, hup)
	if <-applied {
		t.Fatal("the first reload read another file")
	}
	write("policies: {default: {text_input: true}}\n")
	hup <- os.Interrupt // any value: Run does not look at it
	if !<-applied {
		t.Fatal("SIGHUP did not apply the new file")
	}

	go (&Reloader{Path: name, Holder: h, OnApply: onApply}).Run(ctx, 10*time.Millisecond, nil)
	if !<-applied {
		t.Fatal("the first reload read another file")
	}
	// A larger file: a changed size is a change even within the mtime's
	// granularity.
	write("policies: {default: {text_input: false, rate_per_minute: 5}}\n")
	if <-applied {
		t.Fatal("the poll did not apply the changed file")
	}
}

// TestSettled: a change is read only when the next look finds the same
// stamp; a file truncated then written (empty, then full) is read once,
// full.
func TestSettled(t *testing.T) {
	t0 := time.Unix(1000, 0)
	old := fileStamp{t0, 90}
	empty := fileStamp{t0.Add(time.Millisecond), 0}
	full := fileStamp{t0.Add(2 * time.Millisecond), 18}
	var seen fileStamp
	var reads []fileStamp
	for _, cur := range []fileStamp{old, empty, full, full, full} {
		var reload bool
		if reload, seen = settled(cur, old, seen); reload {
			reads = append(reads, cur)
			old = cur
		}
	}
	if len(reads) != 1 || reads[0] != full {
		t.Fatalf("read %v, want the full file once", reads)
	}
}

func TestAppsPolicy(t *testing.T) {
	c, err := Parse([]byte(`
tags:
  - match: {serial: "LAB*"}
    tags: [lab]
policies:
  default:
    apps: {install_dir: /srv/apks}
  rules:
    - tags: [lab]
      apps: {uninstall: true, uninstall_on_reset: false}
`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	def, lab := c.For(Device{Serial: "X1"}), c.For(Device{Serial: "LAB1"})
	if def.InstallDir != "/srv/apks" || def.Uninstall || !def.UninstallOnReset {
		t.Errorf("default: %+v", def)
	}
	if lab.InstallDir != "/srv/apks" || !lab.Uninstall || lab.UninstallOnReset {
		t.Errorf("lab: %+v", lab)
	}
	if !def.Offers(InstallToolID) || def.Offers(UninstallToolID) || !lab.Offers(UninstallToolID) {
		t.Error("Offers does not follow the apps keys")
	}
	if !c.InstallEnabled() || !c.UninstallEnabled() {
		t.Error("InstallEnabled/UninstallEnabled")
	}
	var none *Effective
	if none.Offers(InstallToolID) || none.Offers(UninstallToolID) {
		t.Error("offered without a config file")
	}
	if _, err := Parse([]byte("policies:\n  default:\n    apps: {install_dir: apks}\n"), Options{}); err == nil || !strings.Contains(err.Error(), "absolute path") {
		t.Errorf("relative install_dir: %v", err)
	}
	if _, err := Parse([]byte("policies:\n  default:\n    apps: {install_dirr: /x}\n"), Options{}); err == nil || !strings.Contains(err.Error(), "did you mean install_dir") {
		t.Errorf("misspelt key: %v", err)
	}
	// No shelf: the reset uninstalls nothing by default.
	c, _ = Parse([]byte("policies:\n  default:\n    apps: {uninstall: true}\n"), Options{})
	if e := c.For(Device{}); e.UninstallOnReset || e.InstallDir != "" {
		t.Errorf("no shelf: %+v", e)
	}
}
