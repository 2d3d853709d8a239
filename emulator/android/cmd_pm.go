package android

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// cmdPm is /system/bin/pm, a script running `cmd package "$@"` since
// Android 7, so everything it prints comes from PackageManagerShellCommand
// (frameworks/base/services/core/java/com/android/server/pm/
// PackageManagerShellCommand.java): errors on stdout unless noted, status
// -1 (255) for bad input.
func cmdPm(c *cmdCtx) int { return packageCommand(c, c.args[1:]) }

// packageCommand is PackageManagerShellCommand.onCommand for the
// subcommands tools use.
func packageCommand(c *cmdCtx, args []string) int {
	s := &shellArgs{args: args}
	sub, _ := s.nextArg()
	var err error
	status := 0
	switch sub {
	case "list":
		status, err = pmList(c, s)
	case "path":
		status, err = pmPath(c, s)
	case "resolve-activity":
		status, err = pmResolveActivity(c, s)
	case "", "help", "-h":
		pmHelp(c)
		return 255 // handleDefaultCommands prints the help and returns -1
	default:
		c.printf("Unknown command: %s\n", sub)
		return 255
	}
	if e, ok := err.(*shellError); ok {
		return javaException(c, sub, e, pmFrames[sub]...)
	}
	return status
}

// pmFrames are the frames of PackageManagerShellCommand above
// BasicShellCommandHandler.exec when a subcommand throws, as an Android
// 13 phone prints them.
var pmFrames = map[string][]string{
	"path": {
		"com.android.modules.utils.BasicShellCommandHandler.getNextArgRequired(BasicShellCommandHandler.java:295)",
		"com.android.server.pm.PackageManagerShellCommand.runPath(PackageManagerShellCommand.java:703)",
		"com.android.server.pm.PackageManagerShellCommand.onCommand(PackageManagerShellCommand.java:239)",
	},
	"resolve-activity": {
		"android.content.Intent.parseCommandArgs(Intent.java:11961)",
		"com.android.server.pm.PackageManagerShellCommand.parseIntentAndUser(PackageManagerShellCommand.java:1117)",
		"com.android.server.pm.PackageManagerShellCommand.runResolveActivity(PackageManagerShellCommand.java:1172)",
		"com.android.server.pm.PackageManagerShellCommand.onCommand(PackageManagerShellCommand.java:245)",
	},
}

// pmHelp is an abridged PackageManagerShellCommand.onHelp: the entries of
// the commands modelled here (the real text runs to some 300 lines).
func pmHelp(c *cmdCtx) {
	c.printf("Package manager (package) commands:\n  help\n    Print this help text.\n\n" +
		"  path [--user USER_ID] PACKAGE\n    Print the path to the .apk of the given PACKAGE.\n\n" +
		"  list features\n    Prints all features of the system.\n\n" +
		"  list packages [-f] [-d] [-e] [-s] [-3] [-i] [-l] [-u] [-U]\n" +
		"      [--show-versioncode] [--apex-only] [--factory-only]\n" +
		"      [--uid UID] [--user USER_ID] [FILTER]\n    Prints all packages; optionally only those whose name contains\n    the text in FILTER.\n\n" +
		"  resolve-activity [--brief] [--components] [--query-flags FLAGS]\n      [--user USER_ID] INTENT\n" +
		"    Prints the activity that resolves to the given INTENT.\n")
}

// pmList is runList: `list features|packages|package`.
func pmList(c *cmdCtx, s *shellArgs) (int, error) {
	typ, ok := s.nextArg()
	switch {
	case !ok:
		c.printf("Error: didn't specify type of data to list\n")
		return 255, nil
	case typ == "features":
		pmListFeatures(c)
		return 0, nil
	case typ == "packages" || typ == "package":
		return pmListPackages(c, s), nil
	}
	c.printf("Error: unknown list type '%s'\n", typ)
	return 255, nil
}

// phoneFeatures are the system features of a Pixel-class phone: the
// handheld set of frameworks/native/data/etc/handheld_core_hardware.xml
// plus the usual hardware permissions files a phone's /vendor/etc/
// permissions declares. Versions are FeatureInfo.version (printed after
// "=" when > 0).
var phoneFeatures = []struct {
	name    string
	version int
}{
	{"android.hardware.audio.low_latency", 0}, {"android.hardware.audio.output", 0}, {"android.hardware.audio.pro", 0},
	{"android.hardware.bluetooth", 0}, {"android.hardware.bluetooth_le", 0},
	{"android.hardware.camera", 0}, {"android.hardware.camera.any", 0}, {"android.hardware.camera.autofocus", 0},
	{"android.hardware.camera.flash", 0}, {"android.hardware.camera.front", 0},
	{"android.hardware.faketouch", 0}, {"android.hardware.fingerprint", 0},
	{"android.hardware.location", 0}, {"android.hardware.location.gps", 0}, {"android.hardware.location.network", 0},
	{"android.hardware.microphone", 0}, {"android.hardware.nfc", 0}, {"android.hardware.nfc.any", 0},
	{"android.hardware.opengles.aep", 0}, {"android.hardware.ram.normal", 0},
	{"android.hardware.screen.landscape", 0}, {"android.hardware.screen.portrait", 0},
	{"android.hardware.sensor.accelerometer", 0}, {"android.hardware.sensor.barometer", 0}, {"android.hardware.sensor.compass", 0},
	{"android.hardware.sensor.gyroscope", 0}, {"android.hardware.sensor.light", 0}, {"android.hardware.sensor.proximity", 0},
	{"android.hardware.sensor.stepcounter", 0}, {"android.hardware.sensor.stepdetector", 0},
	{"android.hardware.telephony", 0}, {"android.hardware.telephony.gsm", 0},
	{"android.hardware.touchscreen", 0}, {"android.hardware.touchscreen.multitouch", 0},
	{"android.hardware.touchscreen.multitouch.distinct", 0}, {"android.hardware.touchscreen.multitouch.jazzhand", 0},
	{"android.hardware.usb.accessory", 0}, {"android.hardware.usb.host", 0},
	{"android.hardware.vulkan.compute", 0}, {"android.hardware.vulkan.level", 1}, {"android.hardware.vulkan.version", 4206592},
	{"android.hardware.wifi", 0}, {"android.hardware.wifi.direct", 0},
	{"android.software.activities_on_secondary_displays", 0}, {"android.software.app_widgets", 0},
	{"android.software.autofill", 0}, {"android.software.backup", 0}, {"android.software.cant_save_state", 0},
	{"android.software.companion_device_setup", 0}, {"android.software.device_admin", 0},
	{"android.software.home_screen", 0}, {"android.software.input_methods", 0},
	{"android.software.live_wallpaper", 0}, {"android.software.managed_users", 0}, {"android.software.midi", 0},
	{"android.software.opengles.deqp.level", 132383489}, {"android.software.picture_in_picture", 0},
	{"android.software.print", 0}, {"android.software.secure_lock_screen", 0},
	{"android.software.verified_boot", 0}, {"android.software.voice_recognizers", 0},
	{"android.software.vulkan.deqp.level", 132383489}, {"android.software.webview", 0},
	{"android.software.window_magnification", 0},
}

// pmListFeatures is runListFeatures: the features sorted by name, the
// nameless OpenGL ES entry ("reqGlEsVersion=0x30002", GLES 3.2) first.
func pmListFeatures(c *cmdCtx) {
	c.printf("feature:reqGlEsVersion=0x30002\n")
	for _, f := range phoneFeatures {
		if f.version > 0 {
			c.printf("feature:%s=%d\n", f.name, f.version)
		} else {
			c.printf("feature:%s\n", f.name)
		}
	}
}

// appUID is the app's Linux uid: 10000 + its app id, in scenario order.
func appUID(d *Device, pkg string) int {
	return 10100 + slices.IndexFunc(d.sc.Apps, func(a App) bool { return a.Package == pkg })
}

// pmListPackages is runListPackages (Android 13: one user, the system user
// unless --user). Unknown options and bad option values print
// "Error: ..." on stdout and return -1.
func pmListPackages(c *cmdCtx, s *shellArgs) int {
	var disabled, system, third, files, installer, uid, versions bool
	user := "0"
	for {
		opt, err := s.nextOption()
		if err != nil {
			c.printf("Error: %v\n", err)
			return 255
		}
		if opt == "" {
			break
		}
		switch opt {
		case "-d":
			disabled = true
		case "-f":
			files = true
		case "-i":
			installer = true
		case "-s":
			system = true
		case "-3":
			third = true
		case "-U":
			uid = true
		case "--show-versioncode":
			versions = true
		case "-e", "-a", "-l", "-u", "--apex-only", "--factory-only":
			// every modelled app is enabled, installed and not an APEX
		case "--user", "--uid":
			v, err := s.nextArgRequired()
			if err == nil {
				_, err = parseUserArg(v)
			}
			if err != nil {
				c.printf("Error: %v\n", err)
				return 255
			}
			if opt == "--user" {
				user = v
			} else {
				uid = true
			}
		default:
			c.printf("Error: Unknown option: %s\n", opt)
			return 255
		}
	}
	filter, _ := s.nextArg()
	if n, _ := parseUserArg(user); n > 0 {
		return 0 // no such user: an empty list
	}
	for _, a := range c.d.sc.Apps {
		// Every modelled app is enabled: -d lists none.
		if !strings.Contains(a.Package, filter) || disabled || (system && !a.System) || (third && a.System) {
			continue
		}
		line := "package:"
		if files {
			line += apkPath(&a) + "="
		}
		line += a.Package
		if versions {
			line += " versionCode:" + strconv.Itoa(appVersionCode(&a))
		}
		if installer {
			line += "  installer=null" // preinstalled and adb-installed apps have none
		}
		if uid {
			line += " uid:" + strconv.Itoa(appUID(c.d, a.Package))
		}
		c.printf("%s\n", line)
	}
	return 0
}

// appVersionCode: system apps carry the platform's version code style of
// their builds, other apps 1.
func appVersionCode(a *App) int {
	if a.System {
		return 33
	}
	return 1
}

// parseUserArg is UserHandle.parseUserArg: "all" -1, "current"/"cur" -2,
// else a decimal user id (NumberFormatException otherwise).
func parseUserArg(v string) (int, error) {
	switch v {
	case "all":
		return -1, nil
	case "current", "cur":
		return -2, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, &shellError{class: "java.lang.NumberFormatException", msg: fmt.Sprintf("For input string: \"%s\"", v)}
	}
	return n, nil
}

// pmPath is runPath: "package:" and the base APK; an unknown package
// prints nothing and returns 1; a missing name throws.
func pmPath(c *cmdCtx, s *shellArgs) (int, error) {
	if opt, err := s.nextOption(); err != nil {
		return 0, err
	} else if opt == "--user" {
		if _, err := s.nextArgRequired(); err != nil {
			return 0, err
		}
	}
	pkg, err := s.nextArgRequired()
	if err != nil {
		return 0, err
	}
	a, ok := c.d.sc.app(pkg)
	if !ok {
		return 1, nil
	}
	c.printf("package:%s\n", apkPath(a))
	return 0, nil
}

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
// chooser, as on a phone without a preferred activity. d.mu held.
func (d *Device) resolveActivity(in intentArgs) (resolved, bool) {
	if in.comp != "" {
		pkg, act, _ := strings.Cut(in.comp, "/")
		a, ok := d.sc.app(pkg)
		if !ok || !d.hasActivity(a, fullActivity(pkg, act)) {
			return resolved{}, false
		}
		return resolved{pkg: pkg, activity: fullActivity(pkg, act)}, true
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
	for _, a := range d.sc.Apps {
		if in.pkg != "" && a.Package != in.pkg {
			continue
		}
		act := fullActivity(a.Package, a.Activity)
		switch {
		case in.data == "" && (in.action == "" || in.action == actionMain) && a.Package == d.homePkg() && has(categoryHome, categoryDefault) && slices.Contains(in.cats, categoryHome):
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
func pmResolveActivity(c *cmdCtx, s *shellArgs) (int, error) {
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
	c.d.mu.Lock()
	r, ok := c.d.resolveActivity(in)
	c.d.mu.Unlock()
	if !ok {
		c.printf("No activity found\n")
		return 0, nil
	}
	comp := shortActivity(r.pkg, r.activity)
	if r.activity == "" {
		comp = "android/com.android.internal.app.ResolverActivity"
	}
	summary := fmt.Sprintf("priority=0 preferredOrder=0 match=0x%x specificIndex=-1 isDefault=%t", r.match, r.isDefault)
	switch {
	case components:
		c.printf("%s\n", comp)
	case brief:
		c.printf("%s\n%s\n", summary, comp)
	default:
		pkg, name, _ := strings.Cut(comp, "/")
		c.printf("%s\nActivityInfo:\n  name=%s\n  packageName=%s\n  enabled=true exported=true directBootAware=false\n",
			summary, fullActivity(pkg, name), pkg)
	}
	return 0, nil
}
