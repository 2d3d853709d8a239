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
	onReset             *bool // apps.uninstall_on_reset as set, nil: unset

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
	// Notifications: android_notifications may run (default true).
	Notifications bool
	// AskOperator: android_ask_operator may ask (default true).
	AskOperator bool
	// PhoneHelper is PhoneHelperAuto or PhoneHelperOff.
	PhoneHelper string
	// Clipboard is ClipboardReadWrite, ClipboardWrite or ClipboardNone.
	Clipboard string
	// Lease and Shell are the lease and android_shell settings, enforced
	// where bindings and android_shell live.
	Lease Lease
	Shell Shell
	// InstallDir is the shelf android_app_install installs from ("": none,
	// the tool is not offered); Uninstall offers android_app_uninstall;
	// UninstallOnReset: the reset uninstalls what the binding installed.
	InstallDir       string
	Uninstall        bool
	UninstallOnReset bool
}

// DefaultSchemes are the URL schemes allowed when no policy names any.
var DefaultSchemes = []string{"http", "https"}

// ShellToolID is the operator-enabled shell tool: offered only where the
// policy enables it.
const ShellToolID = "android_shell"

// InstallToolID and UninstallToolID are offered only where the policy
// names a shelf, and allows uninstalling.
const (
	InstallToolID   = "android_app_install"
	UninstallToolID = "android_app_uninstall"
)

// Offers reports whether tool is offered on the device.
func (e *Effective) Offers(tool string) bool {
	if e == nil {
		return tool != ShellToolID && tool != InstallToolID && tool != UninstallToolID
	}
	switch {
	case tool == ShellToolID && !e.Shell.Enabled, tool == InstallToolID && e.InstallDir == "", tool == UninstallToolID && !e.Uninstall:
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
	e := &Effective{Tags: tags, Rule: "policies.default", Schemes: DefaultSchemes, TextInput: true, Notifications: true, AskOperator: true, PhoneHelper: PhoneHelperAuto, Clipboard: ClipboardReadWrite}
	e.apply(c.def)
	for i, r := range c.rules {
		if slices.ContainsFunc(r.Tags, func(t string) bool { return slices.Contains(tags, t) }) {
			e.Rule = fmt.Sprintf("policies.rules[%d]", i)
			e.apply(r)
			break
		}
	}
	e.UninstallOnReset = e.InstallDir != ""
	if e.onReset != nil {
		e.UninstallOnReset = *e.onReset
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
	return c.anyRule(func(r Rule) bool { return r.Shell != nil && r.Shell.Enabled })
}

// InstallEnabled reports whether any policy names a shelf, and
// UninstallEnabled whether any allows uninstalling (android_app_install
// and android_app_uninstall are in the Card only then).
func (c *Config) InstallEnabled() bool {
	return c.anyRule(func(r Rule) bool { return r.Apps != nil && r.Apps.InstallDir != nil && *r.Apps.InstallDir != "" })
}

// UninstallEnabled: see InstallEnabled.
func (c *Config) UninstallEnabled() bool {
	return c.anyRule(func(r Rule) bool { return r.Apps != nil && r.Apps.Uninstall != nil && *r.Apps.Uninstall })
}

// anyRule reports whether f holds for the default policy or a rule.
func (c *Config) anyRule(f func(Rule) bool) bool {
	if c == nil {
		return false
	}
	return slices.ContainsFunc(append([]Rule{c.def}, c.rules...), f)
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
	if r.Notifications != nil {
		e.Notifications = *r.Notifications
	}
	if r.AskOperator != nil {
		e.AskOperator = *r.AskOperator
	}
	if r.PhoneHelper != nil {
		e.PhoneHelper = *r.PhoneHelper
	}
	if r.Clipboard != nil {
		e.Clipboard = *r.Clipboard
	}
	if r.Lease != nil {
		e.Lease = *r.Lease
	}
	if r.Shell != nil {
		e.Shell = *r.Shell
	}
	if a := r.Apps; a != nil {
		if a.InstallDir != nil {
			e.InstallDir = *a.InstallDir
		}
		if a.Uninstall != nil {
			e.Uninstall = *a.Uninstall
		}
		if a.UninstallOnReset != nil {
			e.onReset = a.UninstallOnReset
		}
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

// Values of clipboard.
const (
	ClipboardReadWrite = "read_write"
	ClipboardWrite     = "write"
	ClipboardNone      = "none"
)

// Values of phone_helper.
const (
	PhoneHelperAuto = "auto"
	PhoneHelperOff  = "off"
)

// HelperOn reports whether the phone helper may run on the device (nil:
// no config, the default auto).
func (e *Effective) HelperOn() bool { return e == nil || e.PhoneHelper != PhoneHelperOff }
