package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/adb-connector/adb-connector/device/audit"
	"github.com/adb-connector/adb-connector/device/redact"
	"github.com/adb-connector/adb-connector/store"
)

// `adb-connector audit` reads the tool-call audit trail straight from the
// database, opened read-only: the trail is history an operator reviews
// after the fact, also when the server is stopped or has crashed, so it
// does not go through the admin socket (which needs a running server and
// is for acting on live state). The server stays the only writer. Rows
// hold redacted arguments only (free text as its length), so nothing typed
// on a phone can be printed here.

func init() {
	register("audit", "print the tool-call audit trail (who did what on which device)", runAudit)
}

// defaultPollInterval is how often --follow looks for new rows.
const defaultPollInterval = time.Second

func runAudit(args []string, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return auditCmd(ctx, time.Now, args, stdout, stderr)
}

// auditOptions are the parsed flags of `audit`.
type auditOptions struct {
	dataDir string
	query   audit.Query
	json    bool
	follow  bool
	poll    time.Duration
}

func parseAuditFlags(now time.Time, args []string, stdout, stderr io.Writer) (auditOptions, error) {
	fs, dataDir := newAdminFlags("audit", stdout, "audit [--since WHEN] [--until WHEN] [--device SERIAL] [--channel ID] [--tool ID]\n"+
		"                           [--outcome ok|CODE] [--limit N] [--json] [--follow] [--data-dir DIR]",
		"Prints the audit trail of tool calls, oldest first, newest last; WHEN is a duration back from now",
		"(90m, 2h, 7d) or an RFC 3339 time.")
	since := fs.String("since", "", "only calls at or after `WHEN`: a duration back from now (2h, 7d) or an RFC 3339 time")
	until := fs.String("until", "", "only calls before `WHEN`: a duration back from now or an RFC 3339 time")
	dev := fs.String("device", "", "only calls on this device: its `SERIAL` (or ENDPOINT/SERIAL) or the hint the trail shows (…3F9A, \"tcp #1a2b\")")
	channel := fs.String("channel", "", "only calls on this channel: its `ID` (connector_channel_id) or the short label the trail shows")
	tool := fs.String("tool", "", "only calls of this tool (`ID`), e.g. android_tap")
	outcome := fs.String("outcome", "", "only calls with this `OUTCOME`: ok or an error code, e.g. device_offline")
	limit := fs.Int("limit", audit.DefaultLimit, fmt.Sprintf("print at most the newest N calls (1..%d)", audit.MaxLimit))
	asJSON := fs.Bool("json", false, "print one JSON object per call (JSON lines)")
	follow := fs.Bool("follow", false, "keep printing new calls as they are written, until interrupted")
	poll := fs.Duration("poll-interval", defaultPollInterval, "with --follow, how often to look for new calls")
	if _, err := parseAdminArgs(fs, args, stderr); err != nil {
		return auditOptions{}, err
	}
	o := auditOptions{dataDir: resolveDataDir(*dataDir, stderr), json: *asJSON, follow: *follow, poll: *poll}
	q, err := audit.Filter{Since: *since, Until: *until, Device: *dev, Channel: *channel,
		Tool: *tool, Outcome: *outcome, Limit: *limit}.Query(now, flagName)
	if err != nil {
		return auditOptions{}, err
	}
	o.query = q
	if o.poll <= 0 {
		return auditOptions{}, errors.New("--poll-interval must be positive")
	}
	if o.follow && !q.Until.IsZero() {
		return auditOptions{}, errors.New("--follow prints new calls, which --until would hide: use one or the other")
	}
	return o, nil
}

// auditCmd runs `adb-connector audit` until done (or, with --follow, until
// ctx ends, which is not an error).
func auditCmd(ctx context.Context, now func() time.Time, args []string, stdout, stderr io.Writer) error {
	o, err := parseAuditFlags(now(), args, stdout, stderr)
	if err != nil {
		return err
	}
	db, err := store.OpenReadOnly(ctx, o.dataDir)
	if errors.Is(err, store.ErrNoDatabase) {
		return fmt.Errorf("no database in %s: is it the --data-dir of `adb-connector serve`?", o.dataDir)
	}
	if err != nil {
		return err
	}
	defer db.Close()
	p := newAuditPrinter(stdout, o.json)

	first := true
	err = audit.Follow(ctx, db, o.query, o.follow, o.poll, func(recs []audit.Record) error {
		if first && len(recs) == 0 && !o.json && !o.follow {
			_, err := fmt.Fprintln(stdout, "no tool calls")
			return err
		}
		first = false
		return p.print(recs)
	})
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// auditPrinter writes records as a table (header once) or JSON lines.
type auditPrinter struct {
	w      io.Writer
	json   bool
	header bool
}

func newAuditPrinter(w io.Writer, asJSON bool) *auditPrinter {
	return &auditPrinter{w: w, json: asJSON}
}

// auditLine is one record of `audit --json`.
type auditLine struct {
	ID         int64           `json:"id"`
	At         string          `json:"at"` // RFC 3339, milliseconds, UTC
	ChannelID  string          `json:"channel_id"`
	Device     string          `json:"device"` // redacted serial hint; "" for a call that resolved none
	ToolID     string          `json:"tool_id"`
	ToolCallID string          `json:"tool_call_id"`
	Args       json.RawMessage `json:"args"` // redacted: free text as {"len": N}
	Outcome    string          `json:"outcome"`
	LatencyMS  int64           `json:"latency_ms"`
	Replayed   bool            `json:"replayed"`
}

const auditTimeLayout = "2006-01-02T15:04:05.000Z07:00"

func (p *auditPrinter) print(recs []audit.Record) error {
	if len(recs) == 0 {
		return nil
	}
	if p.json {
		enc := json.NewEncoder(p.w)
		for _, r := range recs {
			args := r.Args
			if !json.Valid(args) {
				args = json.RawMessage("{}")
			}
			if err := enc.Encode(auditLine{ID: r.ID, At: r.At.UTC().Format(auditTimeLayout), ChannelID: r.ChannelID,
				Device: r.DeviceHint, ToolID: r.ToolID, ToolCallID: r.ToolCallID, Args: args, Outcome: r.Outcome,
				LatencyMS: r.Latency.Milliseconds(), Replayed: r.Replayed}); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(p.w, 0, 4, 2, ' ', 0)
	if !p.header {
		fmt.Fprintln(tw, "TIME\tCHANNEL\tDEVICE\tTOOL\tCALL\tOUTCOME\tLATENCY\tARGS")
		p.header = true
	}
	for _, r := range recs {
		outcome := r.Outcome
		if r.Replayed {
			outcome += " (replayed)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.At.UTC().Format(auditTimeLayout), redact.ChannelLabel(r.ChannelID),
			dash(r.DeviceHint), r.ToolID, dash(r.ToolCallID), outcome, r.Latency.String(), string(r.Args))
	}
	return tw.Flush()
}

// flagName is an audit filter field as `audit` spells it: a flag.
func flagName(field string) string { return "--" + field }

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
