package testkit

import (
	"os"
	"os/exec"
	"runtime/debug"
)

// GoBuild returns the command that builds package pkg (run in dir) into
// out with the build settings of the running program: -race, -trimpath
// and CGO_ENABLED as go test (or go run) built it. Built alike, the binary
// reuses every package the build cache already holds for this program, so
// it costs a link, not a second compile of every dependency (SQLite's
// translation alone is a minute on two cores): a test that runs the real
// adb-connector binary then tests it as race-enabled as itself.
func GoBuild(dir, pkg, out string) *exec.Cmd {
	args := []string{"build"}
	env := os.Environ()
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch {
			case s.Key == "-race" && s.Value == "true":
				args = append(args, "-race")
			case s.Key == "-trimpath" && s.Value == "true":
				args = append(args, "-trimpath")
			case s.Key == "CGO_ENABLED":
				env = append(env, "CGO_ENABLED="+s.Value)
			}
		}
	}
	cmd := exec.Command("go", append(args, "-o", out, pkg)...)
	cmd.Dir = dir
	cmd.Env = env
	return cmd
}
