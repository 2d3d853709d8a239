package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/adb-connector/adb-connector/device"
	"github.com/adb-connector/adb-connector/device/adminclient"
)

func init() {
	register("pair", "issue a one-time pairing code for a device (device_pairing flow)", runPair)
}

func runPair(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("pair", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: adb-connector pair SERIAL [--ttl 15m] [--data-dir DIR]")
		fmt.Fprintln(stderr, "Prints a one-time code; the user types SERIAL and the code in the pairing form.")
		fs.PrintDefaults()
	}
	dataDir := adminDataDirFlag(fs)
	ttl := fs.Duration("ttl", device.DefaultPairingTTL, "how long the code stays valid (at most 24h)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *ttl <= 0 {
		fs.Usage()
		return errUsage
	}
	return withAdmin(*dataDir, func(ctx context.Context, c *adminclient.Client) error {
		code, err := c.Pair(ctx, pos[0], *ttl)
		if err != nil {
			return err
		}
		// The code alone on the last line, so scripts can take `tail -n 1`.
		_, err = fmt.Fprintf(stdout, "One-time pairing code for %s, valid %s (until %s):\n%s\n",
			pos[0], *ttl, time.Now().Add(*ttl).Format("15:04 MST"), code)
		return err
	})
}
