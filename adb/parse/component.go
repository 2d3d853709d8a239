package parse

import (
	"regexp"
	"strings"
)

// Component is an Android component name, package plus fully qualified class.
type Component struct {
	Package  string `json:"package"`
	Activity string `json:"activity"`
}

// String is the flattened short form am and pm accept ("pkg/.Act" when the
// class lives in the package, else "pkg/full.Class").
func (c Component) String() string {
	if c.Package == "" {
		return ""
	}
	if strings.HasPrefix(c.Activity, c.Package+".") {
		return c.Package + "/" + strings.TrimPrefix(c.Activity, c.Package)
	}
	return c.Package + "/" + c.Activity
}

var (
	pkgRe   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$`)
	classRe = regexp.MustCompile(`^\.?[A-Za-z0-9_$]+(\.[A-Za-z0-9_$]+)*$`)
)

// ParseComponent reads "pkg/.Act" or "pkg/full.Class" (as dumpsys and
// resolve-activity print them) and expands a leading "." of the class.
func ParseComponent(s string) (Component, error) {
	pkg, cls, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok || !ValidPackage(pkg) || !classRe.MatchString(cls) {
		return Component{}, formatErr("component", "want pkg/Class, got "+clip(s))
	}
	if strings.HasPrefix(cls, ".") {
		cls = pkg + cls
	}
	return Component{Package: pkg, Activity: cls}, nil
}

// ValidPackage reports whether s is a syntactically valid package name.
func ValidPackage(s string) bool { return len(s) <= 255 && pkgRe.MatchString(s) }

// activityRecordRe matches the component inside "ActivityRecord{7d1c3e2 u0
// com.android.settings/.Settings t12}" (also "ActivityRecord{2 u pkg/.A t1}"
// from very old builds, and the ", isShadow:false" suffix of some vendors).
var activityRecordRe = regexp.MustCompile(`ActivityRecord\{[0-9a-f]+ (?:u\d* )?([^\s/{}]+/[^\s,{}]+)`)

// componentInRecord returns the component of the first ActivityRecord in s.
func componentInRecord(s string) (Component, bool) {
	m := activityRecordRe.FindStringSubmatch(s)
	if m == nil {
		return Component{}, false
	}
	c, err := ParseComponent(m[1])
	return c, err == nil
}
