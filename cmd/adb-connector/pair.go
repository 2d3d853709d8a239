package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/auth"
)

func init() {
	register("pair", "issue a one-time pairing code for a device (device_pairing flow)", runPair)
}

func runPair(args []string, stdout, stderr io.Writer) error {
	fs, dataDir := newAdminFlags("pair", stderr,
		"usage: adb-connector pair SERIAL [--ttl 15m] [--data-dir DIR]",
		"Prints a one-time code; the user types SERIAL and the code in the pairing form.")
	ttl := fs.Duration("ttl", auth.DefaultPairingTTL, "how long the code stays valid (at most 24h)")
	pos, err := parseAdminArgs(fs, args, 1)
	if err != nil {
		return err
	}
	if *ttl <= 0 {
		fs.Usage()
		return errUsage
	}
	return withAdmin(*dataDir, stderr, func(ctx context.Context, c *admin.Client) error {
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
