package android

// pmClear is runClear: `pm clear [--user USER_ID] [--cache-only] PACKAGE`.
// ActivityManager clears the app's data, which kills it first: here its
// task goes (force-stop) and with it the text typed into its fields. An
// unknown package makes clearApplicationUserData report failure, which
// prints "Failed" and returns 1, as a package it cannot clear does.
func pmClear(c *cmdCtx, s *shellArgs) int {
	for {
		opt, err := s.nextOption()
		if err != nil || opt == "" {
			break
		}
		switch opt {
		case "--user":
			if _, err := s.nextArgRequired(); err != nil {
				c.printf("Error: %s\n", err.(*shellError).msg)
				return 1
			}
		case "--cache-only":
		default:
			c.printf("Error: Unknown option: %s\n", opt)
			return 1
		}
	}
	pkg, ok := s.nextArg()
	if !ok {
		c.errorf("Error: no package specified\n")
		return 1
	}
	d := c.d
	if _, known := d.sc.AppByPackage(pkg); !known {
		c.printf("Failed\n")
		return 1
	}
	d.mu.Lock()
	d.forceStopLocked(pkg)
	d.mu.Unlock()
	c.printf("Success\n")
	return 0
}
