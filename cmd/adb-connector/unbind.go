package main

import (
	"context"
	"fmt"
	"io"

	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/binding"
)

func init() {
	register("unbind", "revoke a device's binding; its channel reports revoked", runUnbind)
}

func runUnbind(args []string, stdout, stderr io.Writer) error {
	fs, dataDir := newAdminFlags("unbind", stderr, "usage: adb-connector unbind SERIAL [--data-dir DIR]")
	pos, err := parseAdminArgs(fs, args, 1)
	if err != nil {
		return err
	}
	return withAdmin(*dataDir, func(ctx context.Context, c *admin.Client) error {
		key, err := c.Unbind(ctx, pos[0])
		if err != nil {
			return err
		}
		ep, sr := binding.SplitKey(key)
		_, err = fmt.Fprintf(stdout, "unbound %s on %s; its channel now reports revoked\n", sr, ep)
		return err
	})
}
