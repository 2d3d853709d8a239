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
	register("approve", "approve a user's device request code, binding a device (device_request flow)", runApprove)
}

func runApprove(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("approve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: adb-connector approve CODE [--serial SERIAL] [--data-dir DIR]")
		fmt.Fprintln(stderr, "Binds the requesting channel to SERIAL, or to any free online device.")
		fs.PrintDefaults()
	}
	dataDir := adminDataDirFlag(fs)
	serial := fs.String("serial", "", "device to bind (serial or endpoint/serial); default: any free online device")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return errUsage
	}
	return withAdmin(*dataDir, func(ctx context.Context, c *adminclient.Client) error {
		key, err := c.Approve(ctx, pos[0], *serial)
		if err != nil {
			return err
		}
		ep, sr := device.SplitDeviceKey(key)
		_, err = fmt.Fprintf(stdout, "approved: the channel is now bound to %s on %s\n", sr, ep)
		return err
	})
}
