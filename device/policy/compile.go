package policy

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// compile checks everything decoding could not and builds the Config.
// The error joins every mistake found (each an *Error), so that one run
// of config check reports them all.
func compile(f File, o Options) (*Config, error) {
	var errs []error
	assigned := map[string]bool{}
	for i, r := range f.Tags {
		p := fmt.Sprintf("tags[%d]", i)
		if len(r.Tags) == 0 {
			errs = append(errs, &Error{Path: p + ".tags", Msg: "a tag rule must give at least one tag"})
		}
		for j, t := range r.Tags {
			if !tagRE.MatchString(t) {
				errs = append(errs, &Error{Path: fmt.Sprintf("%s.tags[%d]", p, j), Msg: fmt.Sprintf("bad tag %q: lower-case letters, digits, '.', '_' and '-', at most 64", t)})
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
				errs = append(errs, err)
			}
		}
		for j := range i {
			if f.Tags[j].Match == r.Match {
				errs = append(errs, &Error{Path: p + ".match", Msg: fmt.Sprintf("overlaps tags[%d]: both match the same devices; give all their tags in one rule", j)})
			}
		}
	}
	if len(f.Policies.Default.Tags) > 0 {
		errs = append(errs, &Error{Path: "policies.default.tags", Msg: "the default policy applies to devices no rule takes; it has no tags"})
	}
	if err := checkRule(f.Policies.Default, "policies.default", o); err != nil {
		errs = append(errs, err)
	}
	owner := map[string]int{} // tag -> the first rule that takes it
	for i, r := range f.Policies.Rules {
		p := fmt.Sprintf("policies.rules[%d]", i)
		if len(r.Tags) == 0 {
			errs = append(errs, &Error{Path: p + ".tags", Msg: "a policy rule must name at least one tag (the default policy is policies.default)"})
			continue
		}
		shadowed := true
		var by []string
		for j, t := range r.Tags {
			if !assigned[t] {
				errs = append(errs, &Error{Path: fmt.Sprintf("%s.tags[%d]", p, j), Msg: fmt.Sprintf("tag %q is given by no tags rule", t)})
			}
			if k, ok := owner[t]; ok {
				by = append(by, fmt.Sprintf("policies.rules[%d] (%s)", k, t))
				continue
			}
			shadowed = false
			owner[t] = i
		}
		if shadowed {
			errs = append(errs, &Error{Path: p + ".tags", Msg: "overlaps earlier rules, so it never applies (first match wins): " + strings.Join(by, ", ")})
		}
		if err := checkRule(r, p, o); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &Config{File: f, tagRules: f.Tags, def: f.Policies.Default, rules: f.Policies.Rules}, nil
}

func checkRule(r Rule, p string, o Options) error {
	if r.Clipboard != nil && *r.Clipboard != ClipboardReadWrite && *r.Clipboard != ClipboardWrite && *r.Clipboard != ClipboardNone {
		return &Error{Path: p + ".clipboard", Msg: fmt.Sprintf("%q: want read_write, write or none", *r.Clipboard)}
	}
	if r.Apps != nil && r.Apps.InstallDir != nil && *r.Apps.InstallDir != "" && !filepath.IsAbs(*r.Apps.InstallDir) {
		return &Error{Path: p + ".apps.install_dir", Msg: fmt.Sprintf("%q: want an absolute path (the directory of the APKs agents may install)", *r.Apps.InstallDir)}
	}
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
