package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/adb-connector/adb-connector/device"
	"github.com/adb-connector/adb-connector/device/adminclient"
)

func init() {
	register("unbind", "revoke a device's binding; its channel reports revoked", runUnbind)
}

func runUnbind(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("unbind", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: adb-connector unbind SERIAL [--data-dir DIR]")
		fs.PrintDefaults()
	}
	dataDir := adminDataDirFlag(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return errUsage
	}
	return withAdmin(*dataDir, func(ctx context.Context, c *adminclient.Client) error {
		key, err := c.Unbind(ctx, pos[0])
		if err != nil {
			return err
		}
		ep, sr := device.SplitDeviceKey(key)
		_, err = fmt.Fprintf(stdout, "unbound %s on %s; its channel now reports revoked\n", sr, ep)
		return err
	})
}
