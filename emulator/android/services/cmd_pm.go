package services

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/adb-connector/adb-connector/emulator/android/model"
	"github.com/adb-connector/adb-connector/emulator/android/shell"
	"github.com/adb-connector/adb-connector/emulator/android/ui"
)

// Pm is /system/bin/pm, a script running `cmd package "$@"` since
// Android 7, so everything it prints comes from PackageManagerShellCommand
// (frameworks/base/services/core/java/com/android/server/pm/
// PackageManagerShellCommand.java): errors on stdout unless noted, status
// -1 (255) for bad input.
func Pm(c *shell.Ctx) int { return packageCommand(c, c.Args[1:]) }

// packageCommand is PackageManagerShellCommand.onCommand for the
// subcommands tools use.
func packageCommand(c *shell.Ctx, args []string) int {
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
	case "clear":
		status = pmClear(c, s)
	case "grant", "revoke":
		err = pmGrantRevoke(c, sub, s)
	case "install":
		status, err = pmInstall(c, s)
	case "uninstall":
		status, err = pmUninstall(c, s)
	case "", "help", "-h":
		pmHelp(c)
		return 255 // handleDefaultCommands prints the help and returns -1
	default:
		c.Printf("Unknown command: %s\n", sub)
		return 255
	}
	if e := (*shellError)(nil); errors.As(err, &e) {
		return javaException(c, sub, e, pmFrames[sub]...)
	}
	return status
}

// pmFrames are the frames above BasicShellCommandHandler.exec when a
// subcommand throws: the methods of an Android 13 trace; the line numbers
// differ from build to build and are not taken from a capture.
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
func pmHelp(c *shell.Ctx) {
	c.Printf("Package manager (package) commands:\n  help\n    Print this help text.\n\n" +
		"  path [--user USER_ID] PACKAGE\n    Print the path to the .apk of the given PACKAGE.\n\n" +
		"  list features\n    Prints all features of the system.\n\n" +
		"  list packages [-f] [-d] [-e] [-s] [-3] [-i] [-l] [-u] [-U]\n" +
		"      [--show-versioncode] [--apex-only] [--factory-only]\n" +
		"      [--uid UID] [--user USER_ID] [FILTER]\n    Prints all packages; optionally only those whose name contains\n    the text in FILTER.\n\n" +
		"  resolve-activity [--brief] [--components] [--query-flags FLAGS]\n      [--user USER_ID] INTENT\n" +
		"    Prints the activity that resolves to the given INTENT.\n")
}

// pmList is runList: `list features|packages|package|users`.
func pmList(c *shell.Ctx, s *shellArgs) (int, error) {
	typ, ok := s.nextArg()
	switch {
	case !ok:
		c.Printf("Error: didn't specify type of data to list\n")
		return 255, nil
	case typ == "features":
		pmListFeatures(c)
		return 0, nil
	case typ == "packages" || typ == "package":
		return pmListPackages(c, s), nil
	case typ == "users":
		// runList hands "users" to the user service's "list": the one
		// user of a phone, the owner (FLAG_PRIMARY|ADMIN|INITIALIZED|FULL|
		// SYSTEM = 0xc13), running.
		c.Printf("Users:\n\tUserInfo{0:Owner:c13} running\n")
		return 0, nil
	}
	c.Printf("Error: unknown list type '%s'\n", typ)
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
func pmListFeatures(c *shell.Ctx) {
	c.Printf("feature:reqGlEsVersion=0x30002\n")
	for _, f := range phoneFeatures {
		if f.version > 0 {
			c.Printf("feature:%s=%d\n", f.name, f.version)
		} else {
			c.Printf("feature:%s\n", f.name)
		}
	}
}

// appUID is the app's Linux uid: 10000 + its app id, in scenario order.
func appUID(d *model.Phone, pkg string) int {
	return 10100 + slices.IndexFunc(d.Scenario.Apps, func(a ui.App) bool { return a.Package == pkg })
}

// pmListPackages is runListPackages (Android 13: one user, the system user
// unless --user). Unknown options and bad option values print
// "Error: ..." on stdout and return -1.
func pmListPackages(c *shell.Ctx, s *shellArgs) int {
	var disabled, system, third, files, installer, uid, versions bool
	user := "0"
	for {
		opt, err := s.nextOption()
		if err != nil {
			c.Printf("Error: %v\n", err)
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
				c.Printf("Error: %v\n", err)
				return 255
			}
			if opt == "--user" {
				user = v
			} else {
				uid = true
			}
		default:
			c.Printf("Error: Unknown option: %s\n", opt)
			return 255
		}
	}
	filter, _ := s.nextArg()
	if n, _ := parseUserArg(user); n > 0 {
		return 0 // no such user: an empty list
	}
	for _, a := range phone(c).Scenario.Apps {
		// Every modelled app is enabled: -d lists none.
		if !strings.Contains(a.Package, filter) || disabled || (system && !a.System) || (third && a.System) {
			continue
		}
		line := "package:"
		if files {
			line += model.APKPath(&a) + "="
		}
		line += a.Package
		if versions {
			line += " versionCode:" + strconv.Itoa(appVersionCode(&a))
		}
		if installer {
			line += "  installer=null" // preinstalled and adb-installed apps have none
		}
		if uid {
			line += " uid:" + strconv.Itoa(appUID(phone(c), a.Package))
		}
		c.Printf("%s\n", line)
	}
	return 0
}

// appVersionCode: system apps carry the platform's version code style of
// their builds, other apps 1.
func appVersionCode(a *ui.App) int {
	if a.VersionCode > 0 {
		return int(a.VersionCode)
	}
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
func pmPath(c *shell.Ctx, s *shellArgs) (int, error) {
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
	a, ok := phone(c).Scenario.AppByPackage(pkg)
	if !ok {
		return 1, nil
	}
	c.Printf("package:%s\n", model.APKPath(a))
	return 0, nil
}
