package services

import (
	"slices"
	"strings"

	"github.com/adb-connector/adb-connector/emulator/android/model"
	"github.com/adb-connector/adb-connector/emulator/android/shell"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

// Am: `am start [-W] [-S] (-n PKG/ACT | -a ACTION [-d URL] [-c CAT] [PKG])`,
// `am force-stop PKG`. Output as Android 10-13 print it.
func Am(c *shell.Ctx) int {
	if len(c.Args) < 2 {
		c.Errorf("Activity manager (activity) commands:\n  start [options] <INTENT>\n  force-stop <PACKAGE>\n")
		return 1
	}
	d := phone(c)
	switch c.Args[1] {
	case "force-stop":
		if len(c.Args) < 3 {
			c.Errorf("Error: no package specified\n")
			return 255
		}
		d.Lock()
		d.ForceStopLocked(c.Args[2])
		d.Unlock()
		return 0
	case "start", "start-activity":
	case "broadcast":
		return amBroadcast(c)
	default:
		c.Errorf("Error: Unknown command: %s\n", c.Args[1])
		return 255
	}
	var comp, action, data, pkg string
	var wait, stop bool
	var cats []string
	args := c.Args[2:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch a {
		case "-n":
			comp = next()
		case "-a":
			action = next()
		case "-d":
			data = next()
		case "-c":
			cats = append(cats, next())
		case "-W":
			wait = true
		case "-S":
			stop = true
		case "-f", "-t", "--user", "-e", "--es", "--ei", "--ez":
			next()
			if a == "-e" || a == "--es" || a == "--ei" || a == "--ez" {
				next()
			}
		default:
			if strings.HasPrefix(a, "-") {
				continue
			}
			pkg = a
		}
	}
	var desc []string
	if action != "" {
		desc = append(desc, "act="+action)
	}
	if len(cats) > 0 {
		desc = append(desc, "cat=["+strings.Join(cats, ",")+"]")
	}
	if data != "" {
		desc = append(desc, "dat="+redactURL(data))
	}
	if pkg != "" {
		desc = append(desc, "pkg="+pkg)
	}
	if comp != "" {
		desc = append(desc, "cmp="+comp)
	}
	intent := "Intent { " + strings.Join(desc, " ") + " }"
	c.Printf("Starting: %s\n", intent)

	d.Lock()
	defer d.Unlock()
	target, screen := "", ""
	switch {
	case comp != "":
		p, act, ok := strings.Cut(comp, "/")
		app, found := d.Scenario.AppByPackage(p)
		if !ok || !found || !hasActivity(d, app, ui.FullActivity(p, act)) {
			c.Errorf("Error type 3\nError: Activity class {%s/%s} does not exist.\n", p, ui.FullActivity(p, act))
			return 1
		}
		target = p
		screen = screenForActivity(d, p, ui.FullActivity(p, act))
	case action == "android.intent.action.VIEW" && data != "":
		scheme, _, _ := strings.Cut(data, ":")
		for _, a := range d.Scenario.Apps {
			if slices.Contains(a.ViewSchemes, strings.ToLower(scheme)) && (pkg == "" || pkg == a.Package) {
				target = a.Package
				break
			}
		}
	case pkg != "":
		if a, ok := d.Scenario.AppByPackage(pkg); ok && !a.NoLauncher {
			target = pkg
		}
	}
	if target == "" {
		c.Errorf("Error: Activity not started, unable to resolve %s\n", strings.Replace(intent, " }", " flg=0x10000000 }", 1))
		return 1
	}
	if stop {
		d.ForceStopLocked(target)
	}
	cold := !slices.ContainsFunc(d.State.Tasks, func(t *model.Task) bool { return t.Pkg == target })
	sameScreen := func(t *model.Task) bool { return screen == "" || t.Screens[len(t.Screens)-1] == screen }
	onTop := d.Top().Pkg == target && sameScreen(d.Top())
	broughtFront := slices.ContainsFunc(d.State.Tasks, func(t *model.Task) bool { return t.Pkg == target && sameScreen(t) })
	d.LaunchLocked(target, screen)
	// am prints these on stdout (ActivityManagerShellCommand.runStartActivity).
	switch {
	case onTop:
		c.Printf("Warning: Activity not started, intent has been delivered to currently running top-most instance.\n")
	case broughtFront:
		c.Printf("Warning: Activity not started, its current task has been brought to the front\n")
	}
	if wait {
		_, act := d.Foreground()
		state := "WARM"
		if cold {
			state = "COLD"
		}
		c.Printf("Status: ok\nLaunchState: %s\nActivity: %s\nTotalTime: 312\nWaitTime: 318\nComplete\n", state, ui.ShortActivity(target, act))
	}
	return 0
}

// redactURL keeps am's intent description short, as Android 12+ does
// ("dat=https://example.com/..." hides the path).
func redactURL(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	host, _, more := strings.Cut(rest, "/")
	if more {
		return scheme + "://" + host + "/..."
	}
	return u
}

func hasActivity(d *model.Phone, a *ui.App, act string) bool {
	if ui.FullActivity(a.Package, a.Activity) == act {
		return true
	}
	for _, s := range d.Scenario.Screens {
		if s.Package == a.Package && s.Activity != "" && ui.FullActivity(a.Package, s.Activity) == act {
			return true
		}
	}
	return false
}

func screenForActivity(d *model.Phone, pkg, act string) string {
	for _, s := range d.Scenario.Screens {
		if s.Package == pkg && s.Activity != "" && ui.FullActivity(pkg, s.Activity) == act {
			return s.ID
		}
	}
	return ""
}

// Monkey: `monkey -p PKG -c android.intent.category.LAUNCHER 1` starts
// the app; other monkey uses are not emulated.
func Monkey(c *shell.Ctx) int {
	args := c.Args[1:]
	for _, a := range args {
		c.Printf("  bash arg: %s\n", a)
	}
	var pkg string
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "-p" {
			pkg = args[i+1]
		}
	}
	c.Printf("args: [%s]\n", strings.Join(args, ", "))
	for _, a := range args {
		c.Printf(" arg: %q\n", a)
	}
	d := phone(c)
	d.Lock()
	defer d.Unlock()
	app, ok := d.Scenario.AppByPackage(pkg)
	if !ok || app.NoLauncher {
		c.Printf("** No activities found to run, monkey aborted.\n")
		return 252
	}
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "-p" || args[i] == "-c" {
			c.Printf("data=%q\n", args[i+1])
		}
	}
	d.LaunchLocked(pkg, "")
	c.Printf("Events injected: 1\n## Network stats: elapsed time=15ms (0ms mobile, 0ms wifi, 15ms not connected)\n")
	return 0
}
