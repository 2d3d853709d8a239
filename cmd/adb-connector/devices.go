package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/operator"
	"github.com/adb-connector/adb-connector/store"
)

// The operator commands (devices, pair, approve, unbind) talk to a running
// `adb-connector serve` over the admin socket in its data directory; the
// server is the only database writer. Helpers shared by the four live here.

// dataDirEnv overrides defaultDataDir, for serve and the operator commands.
// systemDataDir is the data directory of the packaged systemd unit: an
// operator command given no --data-dir also looks there.
const (
	dataDirEnv     = "ADB_CONNECTOR_DATA_DIR"
	defaultDataDir = "./data"
	systemDataDir  = "/var/lib/adb-connector"
)

// newAdminFlags starts the flag set of operator command name (newFlags)
// with --data-dir: given (or $ADB_CONNECTOR_DATA_DIR), else the running
// server's (resolveDataDir). The command adds its own flags, then calls
// parseAdminArgs.
func newAdminFlags(name string, stdout io.Writer, synopsis string, description ...string) (fs *flag.FlagSet, dataDir *string) {
	fs = newFlags(name, stdout, synopsis, description...)
	return fs, fs.String("data-dir", envOr(dataDirEnv, ""), "data directory `DIR` of the running server (env "+dataDirEnv+"; default: "+defaultDataDir+", else "+systemDataDir+", whichever a running server listens in)")
}

// dataDirCandidates are where an operator command looks for the server's
// data directory when it is given none (tests replace the system one).
var dataDirCandidates = []string{defaultDataDir, systemDataDir}

// resolveDataDir returns dir when it was given (flag or environment);
// else the first of defaultDataDir and systemDataDir whose admin socket a
// server answers on; else the first that holds a database (a stopped
// server's, which audit reads); else defaultDataDir (whose error then
// says what to do). It says on stderr which it took when that is not the
// default.
func resolveDataDir(dir string, stderr io.Writer) string {
	if dir != "" {
		return dir
	}
	candidates := dataDirCandidates
	pick := func(d, why string) string {
		if d != defaultDataDir {
			fmt.Fprintf(stderr, "using %s, %s (--data-dir sets another)\n", d, why)
		}
		return d
	}
	for _, d := range candidates {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := admin.Dial(ctx, admin.SocketPath(d))
		cancel()
		if err == nil {
			c.Close()
			return pick(d, "the running server's data directory")
		}
	}
	for _, d := range candidates {
		if _, err := os.Stat(filepath.Join(d, store.FileName)); err == nil {
			return pick(d, "the data directory that holds a database")
		}
	}
	return defaultDataDir
}

// parseAdminArgs parses args (parseArgs) and returns the positionals,
// which must be those named (wantArgs).
func parseAdminArgs(fs *flag.FlagSet, args []string, stderr io.Writer, names ...string) ([]string, error) {
	pos, err := parseArgs(fs, args, stderr)
	if err != nil {
		return nil, err
	}
	return pos, wantArgs(fs, stderr, pos, names...)
}

// withAdmin dials the admin socket of dataDir (resolveDataDir), runs f
// and closes the connection.
func withAdmin(dataDir string, stderr io.Writer, f func(ctx context.Context, c *admin.Client) error) error {
	ctx := context.Background()
	dataDir = resolveDataDir(dataDir, stderr)
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
	fs, dataDir := newAdminFlags("devices", stdout, "devices [--json] [--data-dir DIR]",
		"Lists the devices the running server sees: state, model, who holds each, tags, reset.")
	asJSON := fs.Bool("json", false, "print a JSON array of {serial, endpoint, state, model, bound, holder, tags, reset, reset_error}")
	if _, err := parseAdminArgs(fs, args, stderr); err != nil {
		return err
	}
	return withAdmin(*dataDir, stderr, func(ctx context.Context, c *admin.Client) error {
		rows, err := c.Devices(ctx)
		if err != nil {
			return err
		}
		return printRows(stdout, *asJSON, rows, "no devices", printDevices)
	})
}

// printRows ends a listing command: rows as indented JSON with --json,
// else the none line when there are none, else table.
func printRows[T any](stdout io.Writer, asJSON bool, rows []T, none string, table func(io.Writer, []T, time.Time) error) error {
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(stdout, none)
		return err
	}
	return table(stdout, rows, time.Now())
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
