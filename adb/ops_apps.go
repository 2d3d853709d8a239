package adb

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/adb-connector/adb-connector/adb/parse"
)

// ErrBadPackage: a package name that is not a valid Android package name.
var ErrBadPackage = errors.New("adb: invalid package name")

// ErrNoLauncher: the package has no launcher activity.
var ErrNoLauncher = errors.New("adb: no launcher activity")

// ErrNotInstalled: no package of that name is installed.
var ErrNotInstalled = errors.New("adb: package not installed")

// ErrNoActivity: am start was given an activity the package does not have
// (am: "Error: Activity class {...} does not exist.").
var ErrNoActivity = errors.New("adb: no such activity")

// ErrNoHandler: no activity handles the intent (am: "Error: Activity not
// started, unable to resolve Intent").
var ErrNoHandler = errors.New("adb: no activity handles the intent")

// App is one installed package.
type App struct {
	Package string
	// Label is the user-visible name when the device reports it (empty on
	// stock Android, whose shell tools do not print labels).
	Label string
	// System is true for packages not installed by the user.
	System bool
}

// AppsOptions selects what Apps lists. The zero value lists all packages.
type AppsOptions struct {
	// ThirdParty lists only user-installed packages (pm list packages -3).
	ThirdParty bool
}

// Apps lists installed packages (pm list packages), sorted by name, in one
// shell round trip. Default timeout: DefaultQueryTimeout.
func (d *Device) Apps(ctx context.Context, opt AppsOptions) ([]App, error) {
	cmds := []string{"pm list packages -3"}
	if !opt.ThirdParty {
		cmds = append(cmds, "pm list packages")
	}
	parts, err := d.runParts(ctx, cmds...)
	if err != nil {
		return nil, fmt.Errorf("apps: %w", err)
	}
	lists := make([][]parse.Package, len(parts))
	for i, p := range parts {
		if lists[i], err = parse.Packages(p); err != nil {
			return nil, fmt.Errorf("apps: %w", err)
		}
	}
	isUser := map[string]bool{}
	var out []App
	for _, p := range lists[0] {
		isUser[p.Name] = true
		out = append(out, App{Package: p.Name})
	}
	if len(lists) > 1 {
		for _, p := range lists[1] {
			if !isUser[p.Name] {
				out = append(out, App{Package: p.Name, System: true})
			}
		}
	}
	slices.SortFunc(out, func(x, y App) int { return strings.Compare(x.Package, y.Package) })
	return out, nil
}

// LauncherActivity returns pkg's launcher activity as "pkg/.Activity" or
// "pkg/full.Name" (cmd package resolve-activity), or ErrNoLauncher.
// Default timeout: DefaultQueryTimeout.
func (d *Device) LauncherActivity(ctx context.Context, pkg string) (string, error) {
	if !parse.ValidPackage(pkg) {
		return "", fmt.Errorf("%w: %q", ErrBadPackage, pkg)
	}
	cmd, _ := QuoteArgs("cmd", "package", "resolve-activity", "--brief", "-c", "android.intent.category.LAUNCHER", pkg)
	parts, err := d.runParts(ctx, cmd)
	if err != nil {
		return "", fmt.Errorf("resolve-activity %s: %w", pkg, err)
	}
	act, err := parse.ResolveActivity(parts[0])
	if err != nil {
		if errors.Is(err, parse.ErrNotFound) {
			return "", fmt.Errorf("%w: %s", ErrNoLauncher, pkg)
		}
		return "", fmt.Errorf("resolve-activity %s: %w", pkg, err)
	}
	return act, nil
}

// Installed reports whether pkg is installed (pm path, which prints nothing
// and exits 1 for an unknown package: AOSP PackageManagerShellCommand
// runPath). Default timeout: DefaultQueryTimeout.
func (d *Device) Installed(ctx context.Context, pkg string) (bool, error) {
	if !parse.ValidPackage(pkg) {
		return false, fmt.Errorf("%w: %q", ErrBadPackage, pkg)
	}
	cmd, _ := QuoteArgs("pm", "path", pkg)
	parts, err := d.runParts(ctx, cmd)
	if err != nil {
		return false, fmt.Errorf("pm path %s: %w", pkg, err)
	}
	if _, err := parse.PMPath(parts[0]); err != nil {
		if errors.Is(err, parse.ErrNotFound) {
			return false, nil
		}
		return false, fmt.Errorf("pm path %s: %w", pkg, err)
	}
	return true, nil
}

// launcherQuery lists every launcher activity in one binder call (AOSP
// PackageManagerShellCommand runQueryIntentActivities: with --components,
// one "pkg/.Class" per line, or "No activities found").
const launcherQuery = "cmd package query-activities --brief --components -a android.intent.action.MAIN -c android.intent.category.LAUNCHER"

// Launchable reports which of pkgs have a launcher activity: from one
// query-activities, or where the phone's package manager lacks it or its
// --components option (older Android versions) or prints something else,
// with one resolve-activity per package in one more shell round trip.
// Default timeout: DefaultQueryTimeout.
func (d *Device) Launchable(ctx context.Context, pkgs []string) (map[string]bool, error) {
	out := make(map[string]bool, len(pkgs))
	if len(pkgs) == 0 {
		return out, nil
	}
	cmds := make([]string, len(pkgs))
	for i, p := range pkgs {
		if !parse.ValidPackage(p) {
			return nil, fmt.Errorf("%w: %q", ErrBadPackage, p)
		}
		cmds[i], _ = QuoteArgs("cmd", "package", "resolve-activity", "--brief", "-c", "android.intent.category.LAUNCHER", p)
	}
	parts, err := d.runParts(ctx, launcherQuery)
	if err != nil {
		return nil, fmt.Errorf("query-activities: %w", err)
	}
	if all, ok := launcherPackages(parts[0]); ok {
		for _, p := range pkgs {
			out[p] = all[p]
		}
		return out, nil
	}
	if parts, err = d.runParts(ctx, cmds...); err != nil {
		return nil, fmt.Errorf("resolve-activity: %w", err)
	}
	for i, p := range pkgs {
		_, err := parse.ResolveActivity(parts[i])
		out[p] = err == nil
	}
	return out, nil
}

// launcherPackages reads the output of launcherQuery: the packages with a
// launcher activity, and false when the output is not that (an unknown
// command, an error, nothing at all).
func launcherPackages(out string) (map[string]bool, bool) {
	pkgs := map[string]bool{}
	seen := false
	for line := range strings.SplitSeq(out, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "WARNING:"):
			continue
		case line == "No activities found":
			seen = true
			continue
		}
		c, err := parse.ParseComponent(line)
		if err != nil {
			return nil, false
		}
		pkgs[c.Package], seen = true, true
	}
	return pkgs, seen
}

// Launch starts pkg: activity when given ("pkg/.Act" or ".Act"), else its
// launcher activity (am start -W -n), and returns the activity am reports
// in front once the launch completed (-W waits for it). A package that is
// not installed is ErrNotInstalled, one without a launcher ErrNoLauncher,
// an activity it does not have ErrNoActivity. Serialized with inputs.
// Default timeout: DefaultInputTimeout for am start, after
// DefaultQueryTimeout for the launcher lookup when no activity is given.
func (d *Device) Launch(ctx context.Context, pkg, activity string) (parse.Component, error) {
	if !parse.ValidPackage(pkg) {
		return parse.Component{}, fmt.Errorf("%w: %q", ErrBadPackage, pkg)
	}
	comp := activity
	if comp == "" {
		c, err := d.LauncherActivity(ctx, pkg)
		if errors.Is(err, ErrNoLauncher) {
			if ok, ierr := d.Installed(ctx, pkg); ierr == nil && !ok {
				err = fmt.Errorf("%w: %s", ErrNotInstalled, pkg)
			}
		}
		if err != nil {
			return parse.Component{}, fmt.Errorf("launch %s: %w", pkg, err)
		}
		comp = c
	} else if !strings.Contains(comp, "/") {
		comp = pkg + "/" + comp
	}
	if _, err := parse.ParseComponent(comp); err != nil {
		return parse.Component{}, fmt.Errorf("launch %s: bad activity %q: %w", pkg, activity, err)
	}
	return d.amStart(ctx, "launch "+pkg, "am", "start", "-W", "-n", comp)
}

// amStart runs am start -W and returns the component it reports in front
// ("Activity: pkg/.Act"; zero when this am version does not print it). am
// exits 0 on many failures, so its printed "Error" lines are the errors:
// an unknown activity is ErrNoActivity, an intent nothing handles
// ErrNoHandler (AOSP ActivityManagerShellCommand runStartActivity).
func (d *Device) amStart(ctx context.Context, op string, argv ...string) (parse.Component, error) {
	cmd, err := QuoteArgs(argv...)
	if err != nil {
		return parse.Component{}, err
	}
	ctx, cancel := withDefaultTimeout(ctx, DefaultInputTimeout)
	defer cancel()
	res, err := d.shellScript(ctx, opInput, cmd)
	if err != nil && !isExit(err) {
		return parse.Component{}, fmt.Errorf("%s: %w", op, err)
	}
	var (
		front parse.Component
		fail  string
	)
	out := string(res.Stdout) + string(res.Stderr)
	for line := range strings.SplitSeq(out, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "Error:") || fail == "" && strings.HasPrefix(line, "Error"):
			// "Error type 3" comes before the line that says what.
			fail = line
		case strings.HasPrefix(line, "Activity: "):
			front, _ = parse.ParseComponent(strings.TrimPrefix(line, "Activity: "))
		}
	}
	switch {
	case strings.Contains(fail, "does not exist"):
		return parse.Component{}, fmt.Errorf("%s: %w", op, ErrNoActivity)
	case strings.Contains(fail, "unable to resolve"):
		return parse.Component{}, fmt.Errorf("%s: %w", op, ErrNoHandler)
	case fail != "":
		return parse.Component{}, fmt.Errorf("%s: %w", op, &FailError{Message: fail})
	case err != nil:
		return parse.Component{}, fmt.Errorf("%s: %w", op, err)
	}
	return front, nil
}

// ForceStop stops pkg (am force-stop). Serialized with inputs. Default
// timeout: DefaultInputTimeout.
func (d *Device) ForceStop(ctx context.Context, pkg string) error {
	if !parse.ValidPackage(pkg) {
		return fmt.Errorf("%w: %q", ErrBadPackage, pkg)
	}
	ctx, cancel := withDefaultTimeout(ctx, DefaultInputTimeout)
	defer cancel()
	cmd, _ := QuoteArgs("am", "force-stop", pkg)
	if _, err := d.shellScript(ctx, opInput, cmd); err != nil {
		return fmt.Errorf("force-stop %s: %w", pkg, err)
	}
	return nil
}

// OpenURL opens rawURL with a VIEW intent (am start -W -a VIEW -d URL) and
// returns the activity that handled it (am's report; on a phone with no
// default for the URL, the chooser: package "android"). No handler is
// ErrNoHandler. It checks only that the URL parses with a scheme; which
// schemes are allowed is the caller's policy. Serialized with inputs.
// Default timeout: DefaultInputTimeout.
func (d *Device) OpenURL(ctx context.Context, rawURL string) (parse.Component, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" {
		return parse.Component{}, fmt.Errorf("adb: bad URL %q", rawURL)
	}
	return d.amStart(ctx, "open url", "am", "start", "-W", "-a", "android.intent.action.VIEW", "-d", rawURL)
}
