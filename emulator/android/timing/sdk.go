package timing

import (
	"path"
	"time"
)

// Command costs by Android version. From Android 12 (SDK 31) `input` is a
// shell script over `cmd input` (AOSP frameworks/base cmds/input/input.sh,
// an Android.bp sh_binary; InputShellCommand.java does the work in
// system_server), as am, settings, wm, ime and pm are over `cmd activity`,
// `cmd settings`, `cmd window`, `cmd input_method` and `cmd package`
// (cmds/am/am.sh, cmds/settings/settings.sh, cmds/wm/wm.sh): no Java VM
// starts, the cost is the native `cmd` client's binder call and the
// service's work (Profile.Cmd). Below SDK 31 `input` starts a VM through
// app_process (Profile.Start); the model Charges the other five the same
// there, the dearer case, since its profiles model Android 11 and later
// phones only through SDK 31+. uiautomator, monkey and app_process start
// a VM on every release.

// sdkCmdTools is the first SDK whose input, am, settings, wm, ime and pm
// are `cmd` calls (Android 12).
const sdkCmdTools = 31

// CommandCost is what starting the simple command argv costs on a phone
// of the given SDK: Profile.Cmd for the `cmd`-wrapping tools from SDK 31
// (falling back to Start["cmd"] for one the profile does not price), else
// StartCost.
func (p Profile) CommandCost(sdk int, argv ...string) time.Duration {
	if len(argv) == 0 {
		return 0
	}
	name := path.Base(argv[0])
	if sdk >= sdkCmdTools && isCmdTool(name) {
		if c, ok := p.Cmd[name]; ok {
			return c
		}
		return p.Start["cmd"]
	}
	return p.StartCost(argv...)
}

// isCmdTool reports whether name is one of the tools that are scripts over
// `cmd SERVICE` from SDK 31.
func isCmdTool(name string) bool {
	switch name {
	case "input", "am", "settings", "wm", "ime", "pm":
		return true
	}
	return false
}
