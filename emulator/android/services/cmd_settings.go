package services

import (
	"slices"
	"strings"

	"github.com/adb-connector/adb-connector/emulator/android/shell"
)

// settingsHelp is SettingsService.MyShellCommand.dumpHelp (AOSP
// frameworks/base/packages/SettingsProvider/src/com/android/providers/
// settings/SettingsService.java), printed on stdout by `settings` alone.
const settingsHelp = `Settings provider (settings) commands:
  help
      Print this help text.
  get [--user <USER_ID> | current] NAMESPACE KEY
      Retrieve the current value of KEY.
  put [--user <USER_ID> | current] NAMESPACE KEY VALUE [TAG] [default]
      Change the contents of KEY to VALUE.
      TAG to associate with the setting.
      {default} to set as the default, case-insensitive only for global/secure namespace
  delete NAMESPACE KEY
      Delete the entry for KEY.
  reset [--user <USER_ID> | current] NAMESPACE {PACKAGE_NAME | RESET_MODE}
      Reset the global/secure table for a package with mode.
      RESET_MODE is one of {untrusted_defaults, untrusted_clear, trusted_defaults}, case-insensitive
  list NAMESPACE
      Print all defined keys.
      NAMESPACE is one of {system, secure, global}, case-insensitive
`

// settingsCmd is one parsed `settings` command line.
type settingsCmd struct {
	verb, ns, key, value string
	user                 bool
}

// parseSettings follows the argument loop of SettingsService.MyShellCommand
// .onCommand (AOSP SettingsService.java): the same order of checks and the
// same messages, each ending the command with status -1 (255 in the shell).
func parseSettings(args []string) (settingsCmd, string) {
	var s settingsCmd
	valid := false
	for i := 0; i < len(args); i++ {
		arg := args[i]
		last := i == len(args)-1
		switch {
		case arg == "--user":
			// Any user id is the owner here (no other users are modelled).
			if s.user || last {
				return s, "Bad arguments"
			}
			i++
			s.user = true
		case s.verb == "":
			v := strings.ToLower(arg)
			if !slices.Contains([]string{"get", "put", "delete", "list", "reset"}, v) {
				return s, "Invalid command: " + arg
			}
			s.verb = v
		case s.ns == "":
			ns := strings.ToLower(arg)
			if ns != "system" && ns != "secure" && ns != "global" {
				return s, "Invalid namespace '" + arg + "'"
			}
			s.ns = ns
			if s.verb == "list" {
				return s, ""
			}
		case s.verb == "reset":
			// A reset mode or package (and a tag) ends the command.
			if len(args)-i > 2 {
				return s, "Too many arguments"
			}
			return s, ""
		case s.verb == "get" || s.verb == "delete":
			s.key = arg
			if !last {
				return s, "Too many arguments"
			}
			return s, ""
		case s.key == "":
			s.key = arg
		case !valid:
			s.value, valid = arg, true
		default:
			// TAG, then "default": accepted and ignored (tags are not modelled).
			switch {
			case strings.EqualFold(arg, "default") || last:
				if !last {
					return s, "Too many arguments"
				}
			case !strings.EqualFold(args[i+1], "default"):
				return s, "Argument expected to be 'default'"
			case i+2 < len(args):
				return s, "Too many arguments"
			}
			return s, ""
		}
	}
	if s.verb != "put" || !valid {
		return s, "Bad arguments"
	}
	return s, ""
}

// Settings: `settings [--user U] get|put|delete|list|reset NAMESPACE
// [KEY [VALUE]]`, answering as SettingsService does: an unset key reads
// "null", errors go to stderr with status 255, delete prints "Deleted N
// rows". Writes take effect through putSettingLocked.
func Settings(c *shell.Ctx) int {
	if len(c.Args) < 2 {
		c.Printf("%s", settingsHelp)
		return 255
	}
	s, msg := parseSettings(c.Args[1:])
	if msg != "" {
		c.Errorf("%s\n", msg)
		return 255
	}
	d := phone(c)
	d.Lock()
	defer d.Unlock()
	switch s.verb {
	case "get":
		v, ok := d.State.Settings[s.ns+"/"+s.key]
		if !ok {
			v = "null" // PrintWriter.println of a null String
		}
		c.Printf("%s\n", v)
	case "put":
		d.PutSettingLocked(s.ns+"/"+s.key, s.value)
	case "delete":
		n := 0
		if _, ok := d.State.Settings[s.ns+"/"+s.key]; ok {
			delete(d.State.Settings, s.ns+"/"+s.key)
			n = 1
		}
		c.Printf("Deleted %d rows\n", n)
	case "list":
		var lines []string
		for k, v := range d.State.Settings {
			if key, ok := strings.CutPrefix(k, s.ns+"/"); ok {
				lines = append(lines, key+"="+v)
			}
		}
		slices.Sort(lines) // listForUser sorts the "key=value" lines
		for _, l := range lines {
			c.Printf("%s\n", l)
		}
	case "reset":
		// Resets to package defaults are not modelled; the phone prints nothing.
	}
	return 0
}
