package services

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/adb-connector/adb-connector/emulator/android/model"
	"github.com/adb-connector/adb-connector/emulator/android/shell"
)

// Runtime permissions: `pm grant|revoke PACKAGE PERMISSION` and the
// permission lines of `dumpsys package PACKAGE`.

// runtimePermissions are the dangerous (runtime) permissions the virtual
// phone knows, from AOSP frameworks/base/core/res/AndroidManifest.xml
// (protectionLevel="dangerous"). Any other android.permission.* an app
// requests is an install permission, granted at install and not
// changeable.
var runtimePermissions = map[string]bool{
	"android.permission.CAMERA": true, "android.permission.RECORD_AUDIO": true,
	"android.permission.ACCESS_FINE_LOCATION": true, "android.permission.ACCESS_COARSE_LOCATION": true,
	"android.permission.READ_CONTACTS": true, "android.permission.WRITE_CONTACTS": true,
	"android.permission.POST_NOTIFICATIONS": true, "android.permission.READ_PHONE_STATE": true,
	"android.permission.CALL_PHONE": true, "android.permission.READ_CALENDAR": true,
	"android.permission.SEND_SMS": true, "android.permission.READ_MEDIA_IMAGES": true,
	"android.permission.READ_EXTERNAL_STORAGE": true, "android.permission.WRITE_EXTERNAL_STORAGE": true,
}

// pmGrantRevoke is PackageManagerShellCommand.runGrantRevokePermission,
// with the checks of PermissionManagerServiceImpl
// .grantRuntimePermissionInternal / revokeRuntimePermissionInternal as
// their exception messages read on Android 13. Nothing is printed on
// success.
func pmGrantRevoke(c *shell.Ctx, sub string, s *shellArgs) error {
	for {
		opt, err := s.nextOption()
		if err != nil {
			return err
		}
		if opt == "" {
			break
		}
		if opt == "--user" {
			if _, err := s.nextArgRequired(); err != nil {
				return err
			}
			continue
		}
		return illegalArgument("Unknown option: %s", opt)
	}
	pkg, ok := s.nextArg()
	if !ok {
		c.Printf("Error: no package specified\n")
		return nil
	}
	perm, ok := s.nextArg()
	if !ok {
		c.Printf("Error: no permission specified\n")
		return nil
	}
	d := phone(c)
	d.Lock()
	defer d.Unlock()
	app, known := d.Scenario.AppByPackage(pkg)
	switch {
	case !known:
		return illegalArgument("Unknown package: %s", pkg)
	case !strings.HasPrefix(perm, "android.permission.") || strings.ContainsAny(perm, " \t"):
		return illegalArgument("Unknown permission: %s", perm)
	case !slices.Contains(app.Permissions, perm):
		return &shellError{class: "java.lang.SecurityException", msg: fmt.Sprintf("Package %s has not requested permission %s", pkg, perm)}
	case !runtimePermissions[perm]:
		return &shellError{class: "java.lang.SecurityException", msg: fmt.Sprintf("Permission %s requested by %s is not a changeable permission type", perm, pkg)}
	}
	if d.State.Granted == nil {
		d.State.Granted = map[string]bool{}
	}
	d.State.Granted[pkg+" "+perm] = sub == "grant"
	return nil
}

// dumpPackage is `dumpsys package PACKAGE`, abridged to the package's
// block as Android 13 prints it (ComputerEngine.dumpPackagesLPr, then
// PermissionManagerServiceImpl's permission lines): requested
// permissions, install permissions (granted=true), and under "User 0:" the
// runtime permissions with their flags. A package the phone does not have:
// "Unable to find package: NAME". The format of the permission lines is
// that of a real phone's dump (appium/appium-adb test/unit/
// adb-commands-specs.js, captured from a device).
func dumpPackage(d *model.Phone, c *shell.Ctx, args []string) {
	if len(args) == 0 {
		c.Printf("(the full package dump is not emulated)\n")
		return
	}
	pkg := args[0]
	app, ok := d.Scenario.AppByPackage(pkg)
	if !ok {
		c.Printf("Unable to find package: %s\n", pkg)
		return
	}
	_, uid := d.AppIDs(pkg)
	code, name := max(app.VersionCode, 1), cmp.Or(app.VersionName, "1.0")
	c.Printf("Packages:\n  Package [%s] (%s):\n    userId=%d\n    versionCode=%d minSdk=24 targetSdk=%d\n    versionName=%s\n", pkg, model.ObjID("pkg", pkg), uid, code, d.SDK, name)
	c.Printf("    requested permissions:\n")
	for _, p := range app.Permissions {
		c.Printf("      %s\n", p)
	}
	c.Printf("    install permissions:\n")
	for _, p := range app.Permissions {
		if !runtimePermissions[p] {
			c.Printf("      %s: granted=true\n", p)
		}
	}
	c.Printf("    User 0: ceDataInode=%d installed=true hidden=false suspended=false distractionFlags=0 stopped=false notLaunched=false enabled=0 instant=false virtual=false\n", 100000+uid)
	c.Printf("      gids=[3003]\n      runtime permissions:\n")
	for _, p := range app.Permissions {
		if runtimePermissions[p] {
			g, set := d.State.Granted[pkg+" "+p]
			flags := "USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED"
			if set {
				flags = "USER_SET|" + flags
			}
			c.Printf("        %s: granted=%t, flags=[ %s]\n", p, g, flags)
		}
	}
	c.Printf("\n")
}
