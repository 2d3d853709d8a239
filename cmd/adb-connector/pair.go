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
	fs, dataDir := newAdminFlags("pair", stdout, "pair SERIAL [--ttl DURATION] [--force] [--data-dir DIR]",
		"Issues a one-time pairing code for SERIAL (`adb-connector devices` lists them); the user types",
		"SERIAL and the code in the device_pairing form.")
	ttl := fs.Duration("ttl", auth.DefaultPairingTTL, "how long the code stays valid, a `DURATION` of at most 24h")
	force := fs.Bool("force", false, "issue a code for a device another channel holds (it works once the device is free)")
	pos, err := parseAdminArgs(fs, args, stderr, "SERIAL")
	if err != nil {
		return err
	}
	if *ttl <= 0 {
		return usageError(fs, stderr, fmt.Sprintf("--ttl %s: want a positive duration of at most 24h", *ttl))
	}
	return withAdmin(*dataDir, stderr, func(ctx context.Context, c *admin.Client) error {
		code, err := c.Pair(ctx, pos[0], *ttl, forceOption(*force)...)
		if err != nil {
			return operatorError(ctx, c, pos[0], err)
		}
		// The code alone on the last line, so scripts can take `tail -n 1`.
		_, err = fmt.Fprintf(stdout, "One-time pairing code for %s, valid %s (until %s):\n%s\n",
			pos[0], *ttl, time.Now().Add(*ttl).Format("15:04 MST"), code)
		return err
	})
}
