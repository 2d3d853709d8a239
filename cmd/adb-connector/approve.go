package main

import (
	"context"
	"fmt"
	"io"

	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/binding"
)

func init() {
	register("approve", "approve a user's device request code, binding a device (device_request flow)", runApprove)
}

// forceOption is --force of pair and approve as the admin client takes it.
func forceOption(force bool) []admin.Option {
	if force {
		return []admin.Option{admin.Force}
	}
	return nil
}

func runApprove(args []string, stdout, stderr io.Writer) error {
	fs, dataDir := newAdminFlags("approve", stdout, "approve CODE [--serial SERIAL] [--force] [--data-dir DIR]",
		"Approves a user's device_request CODE: binds the requesting channel to SERIAL, or to any free online device.")
	serial := fs.String("serial", "", "`SERIAL` of the device to bind (or ENDPOINT/SERIAL); default: any free online device")
	force := fs.Bool("force", false, "take the device from the channel that holds it (its binding is revoked and the phone reset first)")
	pos, err := parseAdminArgs(fs, args, stderr, "CODE")
	if err != nil {
		return err
	}
	return withAdmin(*dataDir, stderr, func(ctx context.Context, c *admin.Client) error {
		key, err := c.Approve(ctx, pos[0], *serial, forceOption(*force)...)
		if err != nil {
			return operatorError(ctx, c, *serial, err)
		}
		ep, sr := binding.SplitKey(key)
		_, err = fmt.Fprintf(stdout, "approved: the channel is now bound to %s on %s\n", sr, ep)
		return err
	})
}
