package parse

import (
	"fmt"
	"strconv"
	"strings"
)

// Package is one line of `pm list packages` (or `cmd package list packages`).
type Package struct {
	Name string `json:"name"`
	// Path is the APK path (with -f), else "".
	Path string `json:"path,omitempty"`
	// VersionCode is set with --show-versioncode, UID with -U, Installer with -i.
	VersionCode int64  `json:"version_code,omitempty"`
	UID         int    `json:"uid,omitempty"`
	Installer   string `json:"installer,omitempty"`
}

// Packages parses `pm list packages [-f] [-3] [-U] [-i] [--show-versioncode]`:
//
//	package:com.android.settings
//	package:/data/app/~~Gx1g==/com.example-Ab3==/base.apk=com.example versionCode:12 uid:10123
//
// Empty output is an empty list. Any other line (an error message such as
// "Error: ..." or "cmd: Failure calling service package") is an error;
// "WARNING: linker:" noise is skipped.
func Packages(out string) ([]Package, error) {
	pkgs := []Package{}
	for _, line := range splitLines(out) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "WARNING:") {
			continue
		}
		rest, ok := strings.CutPrefix(line, "package:")
		if !ok {
			return nil, formatErr("pm list packages", "unexpected line "+clip(line))
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return nil, formatErr("pm list packages", "empty package line")
		}
		var p Package
		spec := fields[0]
		if i := strings.LastIndexByte(spec, '='); i >= 0 && strings.HasPrefix(spec, "/") {
			p.Path, p.Name = spec[:i], spec[i+1:]
		} else {
			p.Name = spec
		}
		if !ValidPackage(p.Name) {
			return nil, formatErr("pm list packages", "bad package name "+clip(p.Name))
		}
		for _, f := range fields[1:] {
			switch {
			case strings.HasPrefix(f, "versionCode:"):
				p.VersionCode, _ = strconv.ParseInt(strings.TrimPrefix(f, "versionCode:"), 10, 64)
			case strings.HasPrefix(f, "uid:"):
				p.UID, _ = strconv.Atoi(strings.TrimPrefix(f, "uid:"))
			case strings.HasPrefix(f, "installer="):
				p.Installer = strings.TrimPrefix(f, "installer=")
			}
		}
		if p.Installer == "null" {
			p.Installer = ""
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// PMPath parses `pm path <pkg>`: one "package:/path.apk" line per APK (base
// first, then splits). No line (pm prints nothing and exits 1 for an unknown
// package) wraps ErrNotFound.
func PMPath(out string) ([]string, error) {
	var paths []string
	for _, line := range splitLines(out) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "WARNING:") {
			continue
		}
		p, ok := strings.CutPrefix(line, "package:")
		if !ok || !strings.HasPrefix(p, "/") {
			return nil, formatErr("pm path", "unexpected line "+clip(line))
		}
		paths = append(paths, p)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("parse pm path: no apk: %w", ErrNotFound)
	}
	return paths, nil
}

// ResolveActivity parses `cmd package resolve-activity --brief [-c
// android.intent.category.LAUNCHER] <pkg>`, whose last line is the component
// ("com.android.settings/.Settings") after a "priority=0 preferredOrder=0
// ..." line. "No activity found" wraps ErrNotFound. The component is
// returned as printed.
func ResolveActivity(out string) (string, error) {
	lines := splitLines(out)
	last := ""
	for i := len(lines) - 1; i >= 0; i-- {
		if t := strings.TrimSpace(lines[i]); t != "" {
			last = t
			break
		}
	}
	if last == "" {
		return "", formatErr("resolve-activity", "empty output")
	}
	if last == "No activity found" {
		return "", fmt.Errorf("parse resolve-activity: no activity found: %w", ErrNotFound)
	}
	if _, err := ParseComponent(last); err != nil {
		return "", formatErr("resolve-activity", "last line is not a component: "+clip(last))
	}
	return last, nil
}
