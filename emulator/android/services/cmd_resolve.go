package services

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adb-connector/adb-connector/emulator/android/model"
	"github.com/adb-connector/adb-connector/emulator/android/shell"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

// intentArgs is what Intent.parseCommandArgs (frameworks/base/core/java/
// android/content/Intent.java) builds from the options resolve-activity
// takes.
type intentArgs struct {
	action, data, pkg, comp string
	cats                    []string
}

// Intent categories and actions the model resolves.
const (
	actionMain      = "android.intent.action.MAIN"
	actionView      = "android.intent.action.VIEW"
	categoryLaunch  = "android.intent.category.LAUNCHER"
	categoryHome    = "android.intent.category.HOME"
	categoryDefault = "android.intent.category.DEFAULT"
	categoryBrowse  = "android.intent.category.BROWSABLE"
)

// intentArgCount is how many values each valued Intent.parseCommandArgs
// option takes; other "--activity-*", "--receiver-*", "--grant-*" and
// similar options are flags.
var intentArgCount = map[string]int{
	"-t": 1, "-f": 1, "-i": 1, "--esn": 1,
	"-e": 2, "--es": 2, "--ei": 2, "--eu": 2, "--ecn": 2, "--eia": 2, "--eial": 2, "--el": 2, "--ela": 2,
	"--elal": 2, "--ef": 2, "--efa": 2, "--efal": 2, "--esa": 2, "--esal": 2, "--ez": 2,
}

func intentFlag(opt string) bool {
	for _, p := range []string{"--activity-", "--receiver-", "--grant-"} {
		if strings.HasPrefix(opt, p) {
			return true
		}
	}
	return slices.Contains([]string{"--exclude-stopped-packages", "--include-stopped-packages", "--debug-log-resolution"}, opt)
}

// parseIntent is Intent.parseCommandArgs: intent options, then an
// optional URI (has ':'), component (has '/') or package, which fills in
// MAIN and, when no action was given and no category, LAUNCHER. No intent
// at all throws "No intent supplied".
func parseIntent(s *shellArgs, handle func(opt string) (bool, error)) (intentArgs, error) {
	var in intentArgs
	has := false
	for {
		opt, err := s.nextOption()
		if err != nil {
			return in, err
		}
		if opt == "" {
			break
		}
		if ok, err := handle(opt); err != nil {
			return in, err
		} else if ok {
			continue
		}
		var field *string
		switch opt {
		case "-a":
			field = &in.action
		case "-d":
			field = &in.data
		case "-p":
			field = &in.pkg
		case "-n":
			field = &in.comp
		case "-c":
			v, err := s.nextArgRequired()
			if err != nil {
				return in, err
			}
			in.cats, has = append(in.cats, v), true
			continue
		default:
			n, ok := intentArgCount[opt]
			if !ok && !intentFlag(opt) {
				return in, illegalArgument("Unknown option: %s", opt)
			}
			for range n {
				if _, err := s.nextArgRequired(); err != nil {
					return in, err
				}
			}
			has = has || (n > 0 && opt != "-f")
			continue
		}
		v, err := s.nextArgRequired()
		if err != nil {
			return in, err
		}
		if opt == "-n" && !strings.Contains(v, "/") {
			return in, illegalArgument("Bad component name: %s", v)
		}
		*field, has = v, true
	}
	if arg, ok := s.nextArg(); ok {
		has = true
		switch {
		case strings.Contains(arg, ":"):
			in.data = arg // Intent.parseUri: a VIEW intent of that URI
			if in.action == "" {
				in.action = actionView
			}
		default:
			if strings.Contains(arg, "/") {
				in.comp = arg
			} else {
				in.pkg = arg
			}
			if in.action == "" {
				in.action = actionMain
				if in.cats == nil {
					in.cats = []string{categoryLaunch}
				}
			}
		}
	}
	if !has {
		return in, illegalArgument("No intent supplied")
	}
	return in, nil
}

// resolved is one ResolveInfo of the model.
type resolved struct {
	pkg, activity string // activity "" for the chooser (ResolverActivity)
	match         int
	isDefault     bool
}

// resolveActivity is PackageManagerService.resolveIntent over the
// scenario's apps: launcher (MAIN/LAUNCHER), home (MAIN/HOME/DEFAULT) and
// VIEW (scheme, DEFAULT/BROWSABLE) filters. Several matches resolve to the
// chooser, as on a phone without a preferred activity. The model is locked.
func resolveActivity(d *model.Phone, in intentArgs) (resolved, bool) {
	if in.comp != "" {
		pkg, act, _ := strings.Cut(in.comp, "/")
		a, ok := d.Scenario.AppByPackage(pkg)
		if !ok || !hasActivity(d, a, ui.FullActivity(pkg, act)) {
			return resolved{}, false
		}
		return resolved{pkg: pkg, activity: ui.FullActivity(pkg, act)}, true
	}
	// IntentFilter.match: MATCH_CATEGORY_EMPTY or _SCHEME plus
	// MATCH_ADJUSTMENT_NORMAL.
	const (
		matchEmpty  = 0x108000
		matchScheme = 0x208000
	)
	has := func(filter ...string) bool {
		for _, c := range in.cats {
			if !slices.Contains(filter, c) {
				return false
			}
		}
		return true
	}
	scheme, _, _ := strings.Cut(in.data, ":")
	var hits []resolved
	for _, a := range d.Scenario.Apps {
		if in.pkg != "" && a.Package != in.pkg {
			continue
		}
		act := ui.FullActivity(a.Package, a.Activity)
		switch {
		case in.data == "" && (in.action == "" || in.action == actionMain) && a.Package == d.HomePkg() && has(categoryHome, categoryDefault) && slices.Contains(in.cats, categoryHome):
			hits = append(hits, resolved{a.Package, act, matchEmpty, true})
		case in.data == "" && (in.action == "" || in.action == actionMain) && !a.NoLauncher && has(categoryLaunch):
			hits = append(hits, resolved{a.Package, act, matchEmpty, false})
		case in.data != "" && (in.action == "" || in.action == actionView) && slices.Contains(a.ViewSchemes, strings.ToLower(scheme)) && has(categoryDefault, categoryBrowse):
			hits = append(hits, resolved{a.Package, act, matchScheme, true})
		}
	}
	switch len(hits) {
	case 0:
		return resolved{}, false
	case 1:
		return hits[0], true
	}
	return resolved{pkg: "android"}, true
}

// pmResolveActivity is runResolveActivity with printResolveInfo: --brief
// prints the ResolveInfo summary and the short component, --components only
// the component; otherwise ResolveInfo.dump's leading lines.
func pmResolveActivity(c *shell.Ctx, s *shellArgs) (int, error) {
	var brief, components bool
	in, err := parseIntent(s, func(opt string) (bool, error) {
		switch opt {
		case "--brief":
			brief = true
		case "--components":
			components = true
		case "--user", "--query-flags":
			_, err := s.nextArgRequired()
			return true, err
		default:
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return 0, err
	}
	phone(c).Lock()
	r, ok := resolveActivity(phone(c), in)
	phone(c).Unlock()
	if !ok {
		c.Printf("No activity found\n")
		return 0, nil
	}
	comp := ui.ShortActivity(r.pkg, r.activity)
	if r.activity == "" {
		comp = "android/com.android.internal.app.ResolverActivity"
	}
	summary := fmt.Sprintf("priority=0 preferredOrder=0 match=0x%x specificIndex=-1 isDefault=%t", r.match, r.isDefault)
	switch {
	case components:
		c.Printf("%s\n", comp)
	case brief:
		c.Printf("%s\n%s\n", summary, comp)
	default:
		pkg, name, _ := strings.Cut(comp, "/")
		c.Printf("%s\nActivityInfo:\n  name=%s\n  packageName=%s\n  enabled=true exported=true directBootAware=false\n",
			summary, ui.FullActivity(pkg, name), pkg)
	}
	return 0, nil
}
