package policy

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
)

// Config is a checked config file: its server settings (File) and the
// compiled tag rules and policies. Immutable, so safe for concurrent use.
type Config struct {
	File     File
	tagRules []TagRule
	def      Rule
	rules    []Rule
}

// Device is what tag rules match on.
type Device struct {
	Endpoint     string // adb server host:port
	Serial       string
	Model        string // as adb lists it (Pixel_7) or as the Descriptor shows it (Pixel 7): both match
	Manufacturer string // ro.product.manufacturer; empty until known
}

// DeviceFromKey is the Device of an "endpoint/serial" key.
func DeviceFromKey(key, model, manufacturer string) Device {
	ep, serial, _ := strings.Cut(key, "/")
	return Device{Endpoint: ep, Serial: serial, Model: model, Manufacturer: manufacturer}
}

// Effective is the policy one device gets. The nil *Effective (no config
// file) allows everything and caps nothing. Immutable.
type Effective struct {
	// Tags are the device's tags, sorted.
	Tags []string
	// Rule names the policy that applies: "policies.default" or
	// "policies.rules[N]".
	Rule string

	toolAllow, toolDeny map[string]bool // toolAllow nil: no allow list
	pkgAllow            *[]string
	pkgDeny             []string

	// Schemes android_open_url may open (lower case); Hosts are globs
	// (empty: any host).
	Schemes, Hosts []string
	// RatePerMinute is the per-channel budget; 0: the tools' default.
	RatePerMinute int
	// MaxRecord caps android_screen_record; 0: the tools' default.
	MaxRecord time.Duration
	// MaxScreenshotSide caps the longest side of screenshots; 0: none.
	MaxScreenshotSide int
	// TextInput: android_type_text may type.
	TextInput bool
	// PhoneHelper is PhoneHelperAuto or PhoneHelperOff.
	PhoneHelper string
	// Lease and Shell are the lease and android_shell settings, enforced
	// where bindings and android_shell live.
	Lease Lease
	Shell Shell
}

// DefaultSchemes are the URL schemes allowed when no policy names any.
var DefaultSchemes = []string{"http", "https"}

// ShellToolID is the operator-enabled shell tool: offered only where the
// policy enables it.
const ShellToolID = "android_shell"

// Offers reports whether tool is offered on the device.
func (e *Effective) Offers(tool string) bool {
	if e == nil {
		return tool != ShellToolID
	}
	if tool == ShellToolID && !e.Shell.Enabled {
		return false
	}
	if e.toolAllow != nil && !e.toolAllow[tool] {
		return false
	}
	return !e.toolDeny[tool]
}

// DeniedPackage returns the deny pattern pkg matches, if any: no acting tool
// runs while such a package is in front, nor does android_app_launch start it.
func (e *Effective) DeniedPackage(pkg string) (pattern string, denied bool) {
	if e == nil {
		return "", false
	}
	for _, p := range e.pkgDeny {
		if ok, _ := path.Match(p, pkg); ok {
			return p, true
		}
	}
	return "", false
}

// HasDenyList reports whether some package is denied (only then is the app
// in front worth asking the phone for).
func (e *Effective) HasDenyList() bool { return e != nil && len(e.pkgDeny) > 0 }

// LaunchRefusal says why android_app_launch may not start pkg ("" when it
// may): denied, or outside an allow list.
func (e *Effective) LaunchRefusal(pkg string) string {
	if p, denied := e.DeniedPackage(pkg); denied {
		return fmt.Sprintf("the operator's policy denies package %s (rule %q)", pkg, p)
	}
	if e == nil || e.pkgAllow == nil {
		return ""
	}
	for _, p := range *e.pkgAllow {
		if ok, _ := path.Match(p, pkg); ok {
			return ""
		}
	}
	return fmt.Sprintf("package %s is not in the operator's list of apps agents may start on this device", pkg)
}

// HostAllowed reports whether android_open_url may open a URL of host.
func (e *Effective) HostAllowed(host string) bool {
	if e == nil || len(e.Hosts) == 0 {
		return true
	}
	host = strings.ToLower(host)
	for _, h := range e.Hosts {
		if ok, _ := path.Match(h, host); ok {
			return true
		}
	}
	return false
}

// TagsOf returns a device's tags, sorted and without repeats.
func (c *Config) TagsOf(d Device) []string {
	if c == nil {
		return nil
	}
	var tags []string
	for _, r := range c.tagRules {
		if r.Match.matches(d) {
			tags = append(tags, r.Tags...)
		}
	}
	slices.Sort(tags)
	return slices.Compact(tags)
}

// For returns the policy of a device: the first rule one of whose tags it
// has, else the default. nil Config: nil (everything allowed).
func (c *Config) For(d Device) *Effective {
	if c == nil {
		return nil
	}
	tags := c.TagsOf(d)
	e := &Effective{Tags: tags, Rule: "policies.default", Schemes: DefaultSchemes, TextInput: true, PhoneHelper: PhoneHelperAuto}
	e.apply(c.def)
	for i, r := range c.rules {
		if slices.ContainsFunc(r.Tags, func(t string) bool { return slices.Contains(tags, t) }) {
			e.Rule = fmt.Sprintf("policies.rules[%d]", i)
			e.apply(r)
			break
		}
	}
	return e
}

// MaxRecordCap is the largest max_record_ms any policy gives (0: none):
// the bound android_screen_record's input_schema publishes, each device's
// own cap being checked per call.
func (c *Config) MaxRecordCap() time.Duration {
	if c == nil {
		return 0
	}
	var m time.Duration
	for _, r := range append([]Rule{c.def}, c.rules...) {
		if r.MaxRecordMS != nil {
			m = max(m, time.Duration(*r.MaxRecordMS)*time.Millisecond)
		}
	}
	return m
}

// ShellEnabled reports whether any policy enables android_shell (it is in
// the Card only then).
func (c *Config) ShellEnabled() bool {
	if c == nil {
		return false
	}
	for _, r := range append([]Rule{c.def}, c.rules...) {
		if r.Shell != nil && r.Shell.Enabled {
			return true
		}
	}
	return false
}

// apply overlays the fields r sets.
func (e *Effective) apply(r Rule) {
	if r.Tools != nil {
		e.toolAllow, e.toolDeny = nil, nil
		if r.Tools.Allow != nil {
			e.toolAllow = set(*r.Tools.Allow)
		}
		e.toolDeny = set(r.Tools.Deny)
	}
	if r.Packages != nil {
		e.pkgAllow, e.pkgDeny = r.Packages.Allow, r.Packages.Deny
	}
	if r.URLs != nil {
		if r.URLs.Schemes != nil {
			e.Schemes = r.URLs.Schemes
		}
		e.Hosts = r.URLs.Hosts
	}
	if r.RatePerMinute != nil {
		e.RatePerMinute = *r.RatePerMinute
	}
	if r.MaxRecordMS != nil {
		e.MaxRecord = time.Duration(*r.MaxRecordMS) * time.Millisecond
	}
	if r.MaxScreenshotSide != nil {
		e.MaxScreenshotSide = *r.MaxScreenshotSide
	}
	if r.TextInput != nil {
		e.TextInput = *r.TextInput
	}
	if r.PhoneHelper != nil {
		e.PhoneHelper = *r.PhoneHelper
	}
	if r.Lease != nil {
		e.Lease = *r.Lease
	}
	if r.Shell != nil {
		e.Shell = *r.Shell
	}
}

func set(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func (m Match) matches(d Device) bool {
	glob := func(p, v string) bool {
		if p == "" {
			return true
		}
		ok, _ := path.Match(p, v)
		return ok
	}
	model := glob(m.Model, d.Model) || glob(m.Model, strings.ReplaceAll(d.Model, "_", " ")) ||
		glob(m.Model, strings.ReplaceAll(d.Model, " ", "_"))
	return glob(m.Serial, d.Serial) && model && glob(m.Endpoint, d.Endpoint) &&
		(m.Manufacturer == "" || glob(strings.ToLower(m.Manufacturer), strings.ToLower(d.Manufacturer)))
}

// compile checks everything decoding could not and builds the Config.
func compile(f File, o Options) (*Config, error) {
	if err := checkFile(f); err != nil {
		return nil, err
	}
	assigned := map[string]bool{}
	for i, r := range f.Tags {
		p := fmt.Sprintf("tags[%d]", i)
		if len(r.Tags) == 0 {
			return nil, &Error{Path: p + ".tags", Msg: "a tag rule must give at least one tag"}
		}
		for j, t := range r.Tags {
			if !tagRE.MatchString(t) {
				return nil, &Error{Path: fmt.Sprintf("%s.tags[%d]", p, j), Msg: fmt.Sprintf("bad tag %q: lower-case letters, digits, '.', '_' and '-', at most 64", t)}
			}
			assigned[t] = true
		}
		for _, g := range []struct{ name, glob string }{
			{"serial", r.Match.Serial}, {"model", r.Match.Model}, {"manufacturer", r.Match.Manufacturer}, {"endpoint", r.Match.Endpoint},
		} {
			if g.glob == "" {
				continue
			}
			if err := checkGlob(g.glob, p+".match."+g.name); err != nil {
				return nil, err
			}
		}
		for j := range i {
			if f.Tags[j].Match == r.Match {
				return nil, &Error{Path: p + ".match", Msg: fmt.Sprintf("overlaps tags[%d]: both match the same devices; give all their tags in one rule", j)}
			}
		}
	}
	if len(f.Policies.Default.Tags) > 0 {
		return nil, &Error{Path: "policies.default.tags", Msg: "the default policy applies to devices no rule takes; it has no tags"}
	}
	if err := checkRule(f.Policies.Default, "policies.default", o); err != nil {
		return nil, err
	}
	owner := map[string]int{} // tag -> the first rule that takes it
	for i, r := range f.Policies.Rules {
		p := fmt.Sprintf("policies.rules[%d]", i)
		if len(r.Tags) == 0 {
			return nil, &Error{Path: p + ".tags", Msg: "a policy rule must name at least one tag (the default policy is policies.default)"}
		}
		shadowed := true
		var by []string
		for j, t := range r.Tags {
			if !assigned[t] {
				return nil, &Error{Path: fmt.Sprintf("%s.tags[%d]", p, j), Msg: fmt.Sprintf("tag %q is given by no tags rule", t)}
			}
			if k, ok := owner[t]; ok {
				by = append(by, fmt.Sprintf("policies.rules[%d] (%s)", k, t))
				continue
			}
			shadowed = false
			owner[t] = i
		}
		if shadowed {
			return nil, &Error{Path: p + ".tags", Msg: "overlaps earlier rules, so it never applies (first match wins): " + strings.Join(by, ", ")}
		}
		if err := checkRule(r, p, o); err != nil {
			return nil, err
		}
	}
	return &Config{File: f, tagRules: f.Tags, def: f.Policies.Default, rules: f.Policies.Rules}, nil
}

// Values of phone_helper.
const (
	PhoneHelperAuto = "auto"
	PhoneHelperOff  = "off"
)

// HelperOn reports whether the phone helper may run on the device (nil:
// no config, the default auto).
func (e *Effective) HelperOn() bool { return e == nil || e.PhoneHelper != PhoneHelperOff }

func checkRule(r Rule, p string, o Options) error {
	if r.PhoneHelper != nil && *r.PhoneHelper != PhoneHelperAuto && *r.PhoneHelper != PhoneHelperOff {
		return &Error{Path: p + ".phone_helper", Msg: fmt.Sprintf("%q: want auto or off", *r.PhoneHelper)}
	}
	if r.Tools != nil {
		if r.Tools.Allow != nil && len(r.Tools.Deny) > 0 {
			return &Error{Path: p + ".tools", Msg: "give an allow list or a deny list, not both"}
		}
		names := r.Tools.Deny
		field := ".tools.deny"
		if r.Tools.Allow != nil {
			names, field = *r.Tools.Allow, ".tools.allow"
		}
		for i, n := range names {
			if o.ToolIDs != nil && !slices.Contains(o.ToolIDs, n) {
				return &Error{Path: fmt.Sprintf("%s%s[%d]", p, field, i), Msg: fmt.Sprintf("unknown tool %q; tools: %s", n, strings.Join(o.ToolIDs, ", "))}
			}
		}
	}
	if r.Packages != nil {
		var allow []string
		if r.Packages.Allow != nil {
			allow = *r.Packages.Allow
		}
		for _, l := range []struct {
			name string
			list []string
		}{{"allow", allow}, {"deny", r.Packages.Deny}} {
			for i, pk := range l.list {
				where := fmt.Sprintf("%s.packages.%s[%d]", p, l.name, i)
				if !packageRE.MatchString(pk) {
					return &Error{Path: where, Msg: fmt.Sprintf("%q is not a package name or glob (com.example.app, com.bank.*)", pk)}
				}
				if err := checkGlob(pk, where); err != nil {
					return err
				}
			}
		}
		for i, pk := range r.Packages.Deny {
			if slices.Contains(allow, pk) {
				return &Error{Path: fmt.Sprintf("%s.packages.deny[%d]", p, i), Msg: fmt.Sprintf("%q is both allowed and denied", pk)}
			}
		}
	}
	if r.URLs != nil {
		for i, s := range r.URLs.Schemes {
			if !schemeRE.MatchString(s) {
				return &Error{Path: fmt.Sprintf("%s.urls.schemes[%d]", p, i), Msg: fmt.Sprintf("%q is not a URL scheme (lower case, as https)", s)}
			}
		}
		for i, h := range r.URLs.Hosts {
			if err := checkGlob(h, fmt.Sprintf("%s.urls.hosts[%d]", p, i)); err != nil {
				return err
			}
			if strings.ContainsAny(h, "/:@ ") || h != strings.ToLower(h) {
				return &Error{Path: fmt.Sprintf("%s.urls.hosts[%d]", p, i), Msg: fmt.Sprintf("%q: a host glob is a lower-case host name (*.example.com), no scheme, port or path", h)}
			}
		}
	}
	for _, b := range []struct {
		name     string
		v        *int
		min, max int
	}{
		{"rate_per_minute", r.RatePerMinute, MinRatePerMinute, MaxRatePerMinute},
		{"max_record_ms", r.MaxRecordMS, MinRecordMS, MaxRecordMS},
		{"max_screenshot_side", r.MaxScreenshotSide, MinScreenshotSide, MaxScreenshotSide},
	} {
		if b.v != nil && (*b.v < b.min || *b.v > b.max) {
			return &Error{Path: p + "." + b.name, Msg: fmt.Sprintf("%d: want %d..%d", *b.v, b.min, b.max)}
		}
	}
	if l := r.Lease; l != nil {
		if l.IdleTimeout > 0 && l.MaxDuration > 0 && l.MaxDuration < l.IdleTimeout {
			return &Error{Path: p + ".lease.max_duration", Msg: "is shorter than idle_timeout"}
		}
		if l.Reset != nil {
			for i, pk := range l.Reset.ClearPackages {
				if !packageRE.MatchString(pk) || strings.ContainsAny(pk, "*?[]") {
					return &Error{Path: fmt.Sprintf("%s.lease.reset.clear_packages[%d]", p, i), Msg: fmt.Sprintf("%q is not a package name", pk)}
				}
			}
		}
	}
	if s := r.Shell; s != nil {
		if s.Enabled && len(s.Prefixes) == 0 {
			return &Error{Path: p + ".shell.prefixes", Msg: "shell is enabled with no prefixes, which allows nothing; list the commands (getprop, dumpsys battery)"}
		}
		for i, pre := range s.Prefixes {
			path := fmt.Sprintf("%s.shell.prefixes[%d]", p, i)
			if strings.TrimSpace(pre) == "" || len(pre) > MaxShellPrefixLength || strings.ContainsFunc(pre, func(r rune) bool { return !PlainShellChar(r) && r != ' ' }) {
				return &Error{Path: path, Msg: "want the leading words of a command: letters, digits and -_./:,=%+@ (getprop, dumpsys battery)"}
			}
			if w := strings.Fields(pre)[0]; slices.Contains(shellRunners, w) {
				return &Error{Path: path, Msg: w + " runs other commands, so it would allow any command"}
			}
		}
	}
	return nil
}

// PlainShellChar is a character a shell takes literally outside quotes:
// what an allowed prefix and an unquoted android_shell word may hold.
func PlainShellChar(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-_./:,=%+@", r)
}

// shellRunners are commands that run other commands or a shell (or, as
// mksh's predefined aliases login and r, expand to one): an allowed prefix
// starting with one would allow everything. Best effort: the operator
// still chooses what the others may do.
var shellRunners = []string{
	".", "ash", "awk", "bash", "builtin", "busybox", "chroot", "chrt", "command", "dash", "env", "eval", "exec",
	"fc", "find", "flock", "ionice", "login", "logwrapper", "mksh", "nice", "nohup", "nsenter", "r", "run-as",
	"runcon", "setsid", "sh", "source", "stdbuf", "strace", "su", "sudo", "taskset", "time", "timeout", "toybox",
	"trap", "unshare", "watch", "xargs", "zsh",
}
