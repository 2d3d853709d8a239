package main

import (
	"context"
	"io"

	"github.com/adb-connector/adb-connector/device/admin"
)

func init() {
	register("reset", "reset a device that owes a reset (reset-pending, needs-reset) now, without waiting for the retry", runReset)
}

func runReset(args []string, stdout, stderr io.Writer) error {
	fs, dataDir := newAdminFlags("reset", stdout, "reset SERIAL [--data-dir DIR]",
		"Starts the reset the device owes at once; `adb-connector devices` and `adb-connector audit --tool reset` show how it ends.")
	pos, err := parseAdminArgs(fs, args, stderr, "SERIAL")
	if err != nil {
		return err
	}
	return withAdmin(*dataDir, stderr, func(ctx context.Context, c *admin.Client) error {
		key, err := c.Reset(ctx, pos[0])
		return reportDevice(ctx, c, pos[0], stdout, key, err, "reset started for %s on %s; `adb-connector devices` shows how it ends\n")
	})
}
