package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/operator"
)

// The operator commands (devices, pair, approve, unbind) talk to a running
// `adb-connector serve` over the admin socket in its data directory; the
// server is the only database writer. Helpers shared by the four live here.

// dataDirEnv overrides defaultDataDir, for serve and the operator commands.
const (
	dataDirEnv     = "ADB_CONNECTOR_DATA_DIR"
	defaultDataDir = "./data"
)

// newAdminFlags starts the flag set of operator command name: errors and
// usage go to stderr (the usage lines, then the flag defaults), and it has
// --data-dir with serve's default (./data, or $ADB_CONNECTOR_DATA_DIR).
// The command adds its own flags, then calls parseAdminArgs.
func newAdminFlags(name string, stderr io.Writer, usage ...string) (fs *flag.FlagSet, dataDir *string) {
	fs = flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		for _, line := range usage {
			fmt.Fprintln(stderr, line)
		}
		fs.PrintDefaults()
	}
	return fs, fs.String("data-dir", envOr(dataDirEnv, defaultDataDir), "data directory of the running server (env "+dataDirEnv+")")
}

// parseAdminArgs parses args with parseInterspersed and returns the
// positionals; unless there are exactly n of them, it prints the usage and
// returns errUsage.
func parseAdminArgs(fs *flag.FlagSet, args []string, n int) ([]string, error) {
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != n {
		fs.Usage()
		return nil, errUsage
	}
	return pos, nil
}

// parseInterspersed parses flags that may come after positional arguments
// (`pair SERIAL --ttl 5m`) and returns the positionals.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// withAdmin dials the admin socket of dataDir, runs f and closes the connection.
func withAdmin(dataDir string, f func(ctx context.Context, c *admin.Client) error) error {
	ctx := context.Background()
	path := admin.SocketPath(dataDir)
	c, err := admin.Dial(ctx, path)
	if errors.Is(err, admin.ErrNotRunning) {
		return fmt.Errorf("cannot reach the admin socket %s: is `adb-connector serve` running with --data-dir %s?", path, dataDir)
	}
	if err != nil {
		return err
	}
	defer c.Close()
	return f(ctx, c)
}

func init() {
	register("devices", "list the devices the running server sees and whether they are bound", runDevices)
}

func runDevices(args []string, stdout, stderr io.Writer) error {
	fs, dataDir := newAdminFlags("devices", stderr, "usage: adb-connector devices [--json] [--data-dir DIR]")
	asJSON := fs.Bool("json", false, "print a JSON array of {serial, endpoint, state, model, bound, holder, tags, reset, reset_error}")
	if _, err := parseAdminArgs(fs, args, 0); err != nil {
		return err
	}
	return withAdmin(*dataDir, func(ctx context.Context, c *admin.Client) error {
		rows, err := c.Devices(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(rows)
		}
		if len(rows) == 0 {
			_, err := fmt.Fprintln(stdout, "no devices")
			return err
		}
		return printDevices(stdout, rows, time.Now())
	})
}

// printDevices is the devices table: each phone, who holds it (the
// channel's short label, whether its xAgent connection is up, for how
// long it is bound, the lease left, its last tool call) and what it owes.
func printDevices(w io.Writer, rows []admin.DeviceRow, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERIAL\tENDPOINT\tSTATE\tMODEL\tHOLDER\tXAGENT\tBOUND FOR\tLEASE LEFT\tLAST CALL\tTAGS\tRESET")
	for _, r := range rows {
		holder, link, since, left, last := "free", "-", "-", "-", "-"
		if h := r.Holder; h != nil {
			holder, link, since = h.Channel, operator.LinkWords(h, now), operator.Round(now.Sub(h.BoundSince))
			left = "no limit"
			if !h.LeaseEnds.IsZero() {
				left = operator.Round(h.LeaseEnds.Sub(now))
			}
			if h.LastTool != "" {
				last = h.LastTool + " " + h.LastOutcome + " " + operator.Round(now.Sub(h.LastCallAt)) + " ago"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Serial, r.Endpoint, r.State, dash(r.Model),
			holder, link, since, left, last, dash(strings.Join(r.Tags, ",")), dash(r.Reset))
	}
	return tw.Flush()
}
