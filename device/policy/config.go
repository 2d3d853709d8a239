package policy

import (
	"fmt"
	"os"
	"path"
	"regexp"
)

// File is a config file as written: server settings, then tags and
// policies. The server settings are serve's own flags, named with _ for -
// (listen, data_dir, max_conns_per_ip): Options.Settings lists the keys a
// file may give, and serve checks their values with the flags' parsers.
// Every setting is optional: unset, serve's flag, environment variable or
// default applies (a flag or variable given wins over the file). Server
// settings apply at start; tags and policies also on reload.
type File struct {
	// Settings are the server settings the file gives, by key; their
	// values are checked by serve (config check included), not here.
	Settings map[string]Setting `yaml:"-"`

	// Tags are rules that tag devices; every matching rule adds its tags.
	Tags []TagRule `yaml:"tags"`
	// Policies says what agents may do on a device, by tag.
	Policies Policies `yaml:"policies"`
}

// TagRule gives Tags to the devices Match selects.
type TagRule struct {
	Match Match    `yaml:"match"`
	Tags  []string `yaml:"tags"`
}

// Match selects devices by globs (path.Match: * ? [a-z]); an empty field
// matches every device; all given fields must match.
type Match struct {
	Serial       string `yaml:"serial"`
	Model        string `yaml:"model"`
	Manufacturer string `yaml:"manufacturer"`
	Endpoint     string `yaml:"endpoint"` // the adb server: host:port, or USER@HOST:PORT for ssh://
}

// Policies is the default policy and the rules by tag. A device gets the
// first rule one of whose tags it has, else the default; what a rule leaves
// unset comes from the default.
type Policies struct {
	Default Rule   `yaml:"default"`
	Rules   []Rule `yaml:"rules"`
}

// Rule is one policy. Unset fields (nil) inherit from the default policy,
// then from the built-in defaults.
type Rule struct {
	// Tags: the rule applies to a device with any of them (rules only).
	Tags []string `yaml:"tags"`
	// Tools offered on the device: an allow list or a deny list of tool ids.
	Tools *List `yaml:"tools"`
	// Packages: android_app_launch starts only allowed, not denied ones;
	// no acting tool runs while a denied package is in front.
	Packages *List `yaml:"packages"`
	// URLs android_open_url may open.
	URLs *URLs `yaml:"urls"`
	// RatePerMinute is the per-channel tool call budget.
	RatePerMinute *int `yaml:"rate_per_minute"`
	// MaxRecordMS caps android_screen_record's duration_ms.
	MaxRecordMS *int `yaml:"max_record_ms"`
	// MaxScreenshotSide caps the longest side of screenshots.
	MaxScreenshotSide *int `yaml:"max_screenshot_side"`
	// TextInput: whether android_type_text may type.
	TextInput *bool `yaml:"text_input"`
	// Notifications: whether android_notifications may read and open the
	// notification shade.
	Notifications *bool `yaml:"notifications"`
	// AskOperator: whether android_ask_operator may put a question to the
	// operator.
	AskOperator *bool `yaml:"ask_operator"`
	// PhoneHelper is PhoneHelperAuto (the default: the connector's helper
	// program runs on the phone when it can, with the stock commands as
	// fallback) or PhoneHelperOff (stock commands only; the helper is
	// stopped and its file removed from the phone).
	PhoneHelper *string `yaml:"phone_helper"`
	// Clipboard is what android_clipboard may do: ClipboardReadWrite (the
	// default), ClipboardWrite (set only) or ClipboardNone.
	Clipboard *string `yaml:"clipboard"`
	// Lease and Shell are read and checked here, enforced by the bindings
	// and android_shell.
	Lease *Lease `yaml:"lease"`
	Shell *Shell `yaml:"shell"`
	// Apps are the shelf of APKs android_app_install installs from and
	// whether android_app_uninstall may remove apps.
	Apps *Apps `yaml:"apps"`
}

// Apps are the install and uninstall settings. Unset fields inherit.
type Apps struct {
	// InstallDir is the shelf: a host directory (absolute path) whose
	// *.apk files agents may install, by file name. Unset or "": no shelf,
	// android_app_install is not offered.
	InstallDir *string `yaml:"install_dir"`
	// Uninstall offers android_app_uninstall (default false).
	Uninstall *bool `yaml:"uninstall"`
	// UninstallOnReset: the reset when a binding ends uninstalls the apps
	// the binding installed that the phone did not have before (default:
	// true where a shelf is named).
	UninstallOnReset *bool `yaml:"uninstall_on_reset"`
}

// List is an allow list or a deny list of names or globs. Allow nil: no
// allow list (everything not denied); Allow empty: nothing allowed.
type List struct {
	Allow *[]string `yaml:"allow"`
	Deny  []string  `yaml:"deny"`
}

// URLs are the rules of android_open_url.
type URLs struct {
	// Schemes allowed (default http, https).
	Schemes []string `yaml:"schemes"`
	// Hosts are globs (*.example.com); empty: any host.
	Hosts []string `yaml:"hosts"`
}

// Setting is one server setting as the file gives it: its value, or its
// values for a list (adb), as text, and the line it is on.
type Setting struct {
	Values []string
	List   bool // written as a list
	Line   int
}

// Lease bounds a binding: IdleTimeout without a tool call, MaxDuration in
// all (0: no bound), and what Reset does when it ends.
type Lease struct {
	IdleTimeout Duration `yaml:"idle_timeout"`
	MaxDuration Duration `yaml:"max_duration"`
	Reset       *Reset   `yaml:"reset"`
}

// Reset is what happens on the phone when a binding ends.
type Reset struct {
	Home              *bool    `yaml:"home"`
	ForceStopLaunched *bool    `yaml:"force_stop_launched"`
	ClearPackages     []string `yaml:"clear_packages"`
	DeleteFiles       *bool    `yaml:"delete_files"`
	ScreenOff         *bool    `yaml:"screen_off"`
}

// Shell enables android_shell with an allowlist of command prefixes
// ("dumpsys battery", "getprop").
type Shell struct {
	Enabled  bool     `yaml:"enabled"`
	Prefixes []string `yaml:"prefixes"`
}

// Bounds of the policy's numbers.
const (
	MinRatePerMinute     = 1
	MaxRatePerMinute     = 100000
	MinRecordMS          = 1000
	MaxRecordMS          = 180000 // screenrecord's own limit
	MinScreenshotSide    = 64
	MaxScreenshotSide    = 4096
	MaxShellPrefixLength = 256
)

// Options are what Parse checks names against.
type Options struct {
	// ToolIDs are the tool ids a policy may name (every tool of the
	// catalogue, those not in this deployment's Card included). Nil: not
	// checked.
	ToolIDs []string
	// Settings are the server setting keys a file may give (serve's
	// flags, as listen or max_conns_per_ip); any other top-level key
	// besides tags and policies is a mistake.
	Settings []string
}

// Load reads and parses the file at name.
func Load(name string, o Options) (*Config, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	c, err := Parse(b, o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return c, nil
}

// Parse decodes and checks a config file. The error joins every mistake
// found, each an *Error.
func Parse(data []byte, o Options) (*Config, error) {
	_, c, err := parse(data, o)
	return c, err
}

// Check decodes and checks a config file, and returns the File as far as
// it could be read even when it has mistakes (config check reports the
// mistakes of the server settings' values too). The error joins every
// mistake found, each an *Error.
func Check(data []byte, o Options) (File, error) {
	f, _, err := parse(data, o)
	return f, err
}

func parse(data []byte, o Options) (File, *Config, error) {
	var f File
	d := decoder{settings: o.Settings, lines: map[string]int{}}
	d.decode(data, &f)
	c, err := compile(f, o)
	if err != nil {
		d.add(err)
	}
	if len(d.errs) > 0 {
		return f, nil, d.err()
	}
	return f, c, nil
}

var (
	tagRE     = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	schemeRE  = regexp.MustCompile(`^[a-z][a-z0-9+.-]{0,31}$`)
	packageRE = regexp.MustCompile(`^[A-Za-z0-9_.*?\[\]-]{1,255}$`)
)

// checkGlob refuses a pattern path.Match cannot use.
func checkGlob(p, where string) error {
	if p == "" {
		return &Error{Path: where, Msg: "empty pattern"}
	}
	if _, err := path.Match(p, ""); err != nil {
		return &Error{Path: where, Msg: fmt.Sprintf("bad glob %q (use * ? and [a-z]; a [ must be closed)", p)}
	}
	return nil
}
