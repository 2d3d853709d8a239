package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/adb-connector/adb-connector/device"
	"github.com/adb-connector/adb-connector/device/tools"
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
	return audit(ctx, time.Now, args, stdout, stderr)
}

// auditOptions are the parsed flags of `audit`.
type auditOptions struct {
	dataDir string
	query   tools.AuditQuery
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
	channel := fs.String("channel", "", "only calls on this connector_channel_id (`ID`)")
	tool := fs.String("tool", "", "only calls of this tool (`ID`), e.g. android_tap")
	outcome := fs.String("outcome", "", "only calls with this `OUTCOME`: ok or an error code, e.g. device_offline")
	limit := fs.Int("limit", tools.DefaultAuditLimit, fmt.Sprintf("print at most the newest N calls (1..%d)", tools.MaxAuditLimit))
	asJSON := fs.Bool("json", false, "print one JSON object per call (JSON lines)")
	follow := fs.Bool("follow", false, "keep printing new calls as they are written, until interrupted")
	poll := fs.Duration("poll-interval", defaultPollInterval, "with --follow, how often to look for new calls")
	if _, err := parseAdminArgs(fs, args, stderr); err != nil {
		return auditOptions{}, err
	}
	o := auditOptions{dataDir: resolveDataDir(*dataDir, stderr), json: *asJSON, follow: *follow, poll: *poll}
	q, err := auditQuery(now, auditFilter{since: *since, until: *until, device: *dev, channel: *channel,
		tool: *tool, outcome: *outcome, limit: *limit})
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

// auditFilter is the audit trail's filter as an operator types it, in
// `audit`'s flags or the console's audit page.
type auditFilter struct {
	since, until, device, channel, tool, outcome string
	limit                                        int
}

// auditQuery checks a filter and turns it into the query: the one reading
// of the filters, shared by `audit` and the console.
func auditQuery(now time.Time, f auditFilter) (tools.AuditQuery, error) {
	var q tools.AuditQuery
	var err error
	if q.Since, err = parseWhen(now, f.since); err != nil {
		return q, fmt.Errorf("--since: %w", err)
	}
	if q.Until, err = parseWhen(now, f.until); err != nil {
		return q, fmt.Errorf("--until: %w", err)
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Since.Before(q.Until) {
		return q, errors.New("--since must be before --until")
	}
	if f.limit < 1 || f.limit > tools.MaxAuditLimit {
		return q, fmt.Errorf("--limit %d: want 1..%d", f.limit, tools.MaxAuditLimit)
	}
	q.Limit = f.limit
	q.ChannelID, q.ToolID, q.Outcome = f.channel, f.tool, f.outcome
	q.DeviceHint = deviceHintOf(f.device)
	return q, nil
}

// parseWhen reads a --since/--until value: empty (no bound), a duration
// back from now (Go syntax, plus whole days as "7d"), or an RFC 3339 time.
func parseWhen(now time.Time, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if d, err := parseDays(v); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("%q: a duration back from now must not be negative", v)
		}
		return now.Add(-d), nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q: want a duration (90m, 2h, 7d) or an RFC 3339 time (2026-01-02T15:04:05Z)", v)
	}
	return t, nil
}

// parseDays is time.ParseDuration that also reads whole days ("90d"), the
// unit retention and reviews are thought in.
func parseDays(v string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(v, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil {
			return 0, fmt.Errorf("%q: not a number of days", v)
		}
		if days > 100*365 || days < -100*365 {
			return 0, fmt.Errorf("%q: too many days", v)
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	return time.ParseDuration(v)
}

// parseRetention reads --audit-retention: a positive duration or days.
func parseRetention(v string) (time.Duration, error) {
	d, err := parseDays(v)
	if err != nil {
		return 0, fmt.Errorf("audit retention %q: want a duration such as 90d or 720h", v)
	}
	if d <= 0 {
		return 0, fmt.Errorf("audit retention %q: must be positive", v)
	}
	return d, nil
}

// deviceHintOf turns --device into the redacted form the trail stores
// (device.SerialHint): a hint is kept as it is ("..." may stand for "…"),
// anything else is a serial, or ENDPOINT/SERIAL as `devices` prints keys.
func deviceHintOf(v string) string {
	switch {
	case v == "":
		return ""
	case strings.HasPrefix(v, "…"), strings.HasPrefix(v, "tcp #"):
		return v
	case strings.HasPrefix(v, "..."):
		return "…" + strings.TrimPrefix(v, "...")
	}
	if _, serial, ok := strings.Cut(v, "/"); ok {
		v = serial
	}
	return device.SerialHint(v)
}

// audit runs `adb-connector audit` until done (or, with --follow, until
// ctx ends, which is not an error).
func audit(ctx context.Context, now func() time.Time, args []string, stdout, stderr io.Writer) error {
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

	// Taken before the first query: with nothing to print yet, following
	// starts here, so a row written meanwhile is not missed.
	last, err := tools.LastAuditID(ctx, db)
	if err != nil {
		return err
	}
	recs, err := tools.QueryAudit(ctx, db, o.query)
	if err != nil {
		return err
	}
	slices.Reverse(recs) // oldest first, as a log reads
	if len(recs) == 0 && !o.json && !o.follow {
		_, err := fmt.Fprintln(stdout, "no tool calls")
		return err
	}
	if err := p.print(recs); err != nil {
		return err
	}
	if !o.follow {
		return nil
	}
	if len(recs) > 0 {
		// The newest matching row: a matching row with a higher id was
		// written after the query.
		last = recs[len(recs)-1].ID
	}
	q := o.query
	q.Limit = tools.MaxAuditLimit
	tick := time.NewTicker(o.poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		for {
			q.AfterID = last
			recs, err := tools.QueryAudit(ctx, db, q)
			if ctx.Err() != nil {
				return nil
			}
			if err != nil {
				return err
			}
			if err := p.print(recs); err != nil {
				return err
			}
			if len(recs) == 0 {
				break
			}
			last = recs[len(recs)-1].ID
			if len(recs) < q.Limit {
				break
			}
		}
	}
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

func (p *auditPrinter) print(recs []tools.AuditRecord) error {
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.At.UTC().Format(auditTimeLayout), r.ChannelID,
			dash(r.DeviceHint), r.ToolID, dash(r.ToolCallID), outcome, r.Latency.String(), string(r.Args))
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
