package services

import "github.com/adb-connector/adb-connector/emulator/android/shell"

// pmClear is runClear: `pm clear [--user USER_ID] [--cache-only] PACKAGE`.
// ActivityManager clears the app's data, which kills it first: here its
// task goes (force-stop) and with it the text typed into its fields. An
// unknown package makes clearApplicationUserData report failure, which
// prints "Failed" and returns 1, as a package it cannot clear does.
func pmClear(c *shell.Ctx, s *shellArgs) int {
	for {
		opt, err := s.nextOption()
		if err != nil || opt == "" {
			break
		}
		switch opt {
		case "--user":
			if _, err := s.nextArgRequired(); err != nil {
				c.Printf("Error: %s\n", err.(*shellError).msg)
				return 1
			}
		case "--cache-only":
		default:
			c.Printf("Error: Unknown option: %s\n", opt)
			return 1
		}
	}
	pkg, ok := s.nextArg()
	if !ok {
		c.Errorf("Error: no package specified\n")
		return 1
	}
	d := phone(c)
	if _, known := d.Scenario.AppByPackage(pkg); !known {
		c.Printf("Failed\n")
		return 1
	}
	d.Lock()
	d.ForceStopLocked(pkg)
	d.Unlock()
	c.Printf("Success\n")
	return 0
}
