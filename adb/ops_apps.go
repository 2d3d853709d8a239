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

// Launch starts pkg: activity when given ("pkg/.Act" or ".Act"), else its
// launcher activity (am start -n). Serialized with inputs. Default timeout:
// DefaultInputTimeout for am start, after DefaultQueryTimeout for the
// launcher lookup when no activity is given.
func (d *Device) Launch(ctx context.Context, pkg, activity string) error {
	if !parse.ValidPackage(pkg) {
		return fmt.Errorf("%w: %q", ErrBadPackage, pkg)
	}
	comp := activity
	if comp == "" {
		c, err := d.LauncherActivity(ctx, pkg)
		if err != nil {
			return fmt.Errorf("launch %s: %w", pkg, err)
		}
		comp = c
	} else if !strings.Contains(comp, "/") {
		comp = pkg + "/" + comp
	}
	if _, err := parse.ParseComponent(comp); err != nil {
		return fmt.Errorf("launch %s: bad activity %q: %w", pkg, activity, err)
	}
	return d.amStart(ctx, "launch "+pkg, "am", "start", "-n", comp)
}

// amStart runs am start and turns its printed errors into Go errors (am
// exits 0 on many failures).
func (d *Device) amStart(ctx context.Context, op string, argv ...string) error {
	cmd, err := QuoteArgs(argv...)
	if err != nil {
		return err
	}
	ctx, cancel := withDefaultTimeout(ctx, DefaultInputTimeout)
	defer cancel()
	res, err := d.shellScript(ctx, opInput, cmd)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	out := string(res.Stdout) + string(res.Stderr)
	for line := range strings.SplitSeq(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "Error") {
			return fmt.Errorf("%s: %w", op, &FailError{Message: strings.TrimSpace(line)})
		}
	}
	return nil
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

// OpenURL opens rawURL with a VIEW intent (am start -a VIEW -d URL). It
// checks only that the URL parses with a scheme; which schemes are allowed
// is the caller's policy. Serialized with inputs. Default timeout:
// DefaultInputTimeout.
func (d *Device) OpenURL(ctx context.Context, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" {
		return fmt.Errorf("adb: bad URL %q", rawURL)
	}
	return d.amStart(ctx, "open url", "am", "start", "-a", "android.intent.action.VIEW", "-d", rawURL)
}
