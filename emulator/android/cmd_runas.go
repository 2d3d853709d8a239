package android

import (
	"strconv"
	"strings"

	"github.com/adb-connector/adb-connector/emulator/android/shell"
)

// cmdRunAs is run-as (AOSP system/core/run-as/run-as.cpp, main): it runs
// a command in a debuggable app's data directory /data/user/0/PKG, and
// refuses as that tool does, through error(3) ("run-as: MESSAGE", status
// 1): "unknown package: PKG" when not installed, "package not an
// application: PKG" for system-uid packages, "package not debuggable:
// PKG" for release builds. Without a command it runs sh. The command is
// exec'd directly (execvp, no shell), so an unknown one is "exec failed
// for CMD: No such file or directory". It runs as the shell user here: the
// app's uid is not modelled.
func cmdRunAs(c *shell.Ctx) int {
	args := c.Args[1:]
	if len(args) == 0 {
		// The usage message ends in "\n" and error(3) adds another.
		c.Errorf("run-as: usage: run-as <package-name> [--user <uid>] <command> [<args>]\n\n")
		return 1
	}
	pkg, args := args[0], args[1:]
	user := 0
	if len(args) >= 2 && args[0] == "--user" {
		user, _ = strconv.Atoi(args[1])
		if user < 0 {
			c.Errorf("run-as: negative user id: %d\n", user)
			return 1
		}
		args = args[2:]
	}
	app, ok := dev(c).p.Scenario.AppByPackage(pkg)
	if !ok || user != 0 {
		c.Errorf("run-as: unknown package: %s\n", pkg)
		return 1
	}
	if _, uid := dev(c).p.AppIDs(pkg); uid < 10000 {
		c.Errorf("run-as: package not an application: %s\n", pkg)
		return 1
	}
	if !app.Debuggable {
		c.Errorf("run-as: package not debuggable: %s\n", pkg)
		return 1
	}
	dataDir := "/data/user/0/" + pkg
	for _, d := range []string{dataDir, dataDir + "/cache", dataDir + "/code_cache"} {
		dev(c).p.FS.Mkdir(d, true)
	}
	if len(args) == 0 {
		args = []string{"sh"}
	}
	name := strings.TrimPrefix(args[0], "/system/bin/")
	fn, ok := dev(c).command(name)
	if !ok || strings.HasPrefix(name, "__") || strings.Contains(name, "/") {
		c.Errorf("run-as: exec failed for %s: No such file or directory\n", args[0])
		return 1
	}
	sub := *c
	sub.Args, sub.Dir = append([]string{name}, args[1:]...), dataDir
	return fn(&sub)
}
