package parse

import (
	"fmt"
	"strconv"
	"strings"
)

// Permissions are a package's permissions as `dumpsys package PACKAGE`
// prints them (ComputerEngine.dumpPackagesLPr and
// PermissionManagerServiceImpl's dump; the same lines from Android 6 to 14).
type Permissions struct {
	// Requested are the <uses-permission> names, in the manifest's order.
	Requested []string `json:"requested"`
	// Install are the install-time permissions (granted at install, not
	// changeable by pm grant/revoke), by name: granted.
	Install map[string]bool `json:"install"`
	// Runtime are the runtime permissions of user 0 (the first "User N:"
	// block), by name: granted.
	Runtime map[string]bool `json:"runtime"`
	// VersionCode and VersionName are the package's version, from the
	// block's "versionCode=N minSdk=..." and "versionName=X" lines (0 and
	// "" when absent). The package manager resolves a versionName that
	// names a resource, so this is the text the app shows.
	VersionCode int64  `json:"version_code,omitempty"`
	VersionName string `json:"version_name,omitempty"`
}

// PackagePermissions reads the first package block of `dumpsys package
// PACKAGE`. "Unable to find package" wraps ErrNotFound; output with no
// package block wraps ErrFormat.
func PackagePermissions(out string) (Permissions, error) {
	if strings.Contains(out, "Unable to find package:") {
		return Permissions{}, fmt.Errorf("parse dumpsys package: %w", ErrNotFound)
	}
	p := Permissions{Install: map[string]bool{}, Runtime: map[string]bool{}}
	var (
		inPkg, seenUser, userDone bool
		section                   string
		sectionIndent             int
	)
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r")
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " "))
		if strings.HasPrefix(t, "Package [") {
			if inPkg {
				break // only the first package block
			}
			inPkg = true
			continue
		}
		if !inPkg {
			continue
		}
		if section != "" && indent > sectionIndent {
			name, rest, _ := strings.Cut(t, ":")
			name, _, _ = strings.Cut(name, ",")
			if !validPermission(name) {
				continue
			}
			granted := strings.Contains(rest, "granted=true")
			switch section {
			case "requested":
				p.Requested = append(p.Requested, name)
			case "install":
				p.Install[name] = granted
			case "runtime":
				if !userDone {
					p.Runtime[name] = granted
				}
			}
			continue
		}
		section = ""
		switch {
		case strings.HasPrefix(t, "versionCode=") && p.VersionCode == 0:
			v, _, _ := strings.Cut(strings.TrimPrefix(t, "versionCode="), " ")
			p.VersionCode, _ = strconv.ParseInt(v, 10, 64)
		case strings.HasPrefix(t, "versionName=") && p.VersionName == "":
			p.VersionName = strings.TrimPrefix(t, "versionName=")
		case strings.HasPrefix(t, "User ") && strings.Contains(t, ":"):
			if seenUser {
				userDone = true
			}
			seenUser = true
		case t == "requested permissions:":
			section, sectionIndent = "requested", indent
		case t == "install permissions:":
			section, sectionIndent = "install", indent
		case t == "runtime permissions:":
			section, sectionIndent = "runtime", indent
		}
	}
	if !inPkg {
		return Permissions{}, fmt.Errorf("parse dumpsys package: no package block: %w", ErrFormat)
	}
	return p, nil
}

// validPermission: a permission name is dot-separated parts of letters,
// digits and _ (a package name's syntax, upper case allowed).
func validPermission(s string) bool {
	return s != "" && len(s) <= 255 && !strings.HasPrefix(s, ".") && ValidPackage(strings.ToLower(s))
}
