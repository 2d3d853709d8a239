package main

import (
	"context"
	"io"

	"github.com/adb-connector/adb-connector/device/admin"
)

func init() {
	register("unbind", "revoke a device's binding; its channel reports revoked (--clear-reset: hand out a device whose reset failed)", runUnbind)
}

func runUnbind(args []string, stdout, stderr io.Writer) error {
	fs, dataDir := newAdminFlags("unbind", stdout, "unbind SERIAL [--clear-reset] [--data-dir DIR]",
		"Revokes SERIAL's binding: its channel reports revoked. With --clear-reset, clears a reset the device owes instead.")
	clearReset := fs.Bool("clear-reset", false, "instead of unbinding, clear the reset the device owes (needs-reset, reset-pending): you vouch it is fit to hand out")
	pos, err := parseAdminArgs(fs, args, stderr, "SERIAL")
	if err != nil {
		return err
	}
	return withAdmin(*dataDir, stderr, func(ctx context.Context, c *admin.Client) error {
		if *clearReset {
			key, err := c.ClearReset(ctx, pos[0])
			return reportDevice(ctx, c, pos[0], stdout, key, err, "reset cleared for %s on %s; it can be paired again\n")
		}
		key, err := c.Unbind(ctx, pos[0])
		return reportDevice(ctx, c, pos[0], stdout, key, err, "unbound %s on %s; its channel now reports revoked\n")
	})
}
