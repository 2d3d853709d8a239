package audit

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/device/redact"
)

// Filter is the audit trail's filter as an operator types it, in the
// flags of `adb-connector audit` or the fields of the console's audit
// page (the same names): Since and Until are a duration back from now
// (90m, 2h, 7d) or an RFC 3339 time, Device a serial, an
// "endpoint/serial" key or the hint the trail shows; "" means no bound.
// AfterID keeps only rows written after that one (oldest first).
type Filter struct {
	Since, Until, Device, Channel, Tool, Outcome string
	Limit                                        int
	AfterID                                      int64
}

// Query checks the filter and turns it into the query: the one reading of
// an operator's filter. name gives a field's name as the operator typed
// it ("since" is "--since" on the command line), for the error, which
// says what is wanted.
func (f Filter) Query(now time.Time, name func(field string) string) (Query, error) {
	q := Query{AfterID: f.AfterID}
	var err error
	if q.Since, err = parseWhen(now, f.Since); err != nil {
		return q, fmt.Errorf("%s: %w", name("since"), err)
	}
	if q.Until, err = parseWhen(now, f.Until); err != nil {
		return q, fmt.Errorf("%s: %w", name("until"), err)
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Since.Before(q.Until) {
		return q, fmt.Errorf("%s must be before %s", name("since"), name("until"))
	}
	if f.Limit < 1 || f.Limit > MaxLimit {
		return q, fmt.Errorf("%s %d: want 1..%d", name("limit"), f.Limit, MaxLimit)
	}
	if f.AfterID < 0 {
		return q, fmt.Errorf("%s: want a row id", name("after"))
	}
	q.Limit = f.Limit
	q.ChannelID, q.ToolID, q.Outcome = strings.TrimSuffix(f.Channel, "…"), f.Tool, f.Outcome
	q.DeviceHint = deviceHint(f.Device)
	return q, nil
}

// parseWhen reads a since/until value: empty (no bound), a duration back
// from now (Go syntax, plus whole days as "7d"), or an RFC 3339 time.
func parseWhen(now time.Time, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if d, err := ParseDays(v); err == nil {
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

// ParseDays is time.ParseDuration that also reads whole days ("90d"), the
// unit retention and reviews are thought in.
func ParseDays(v string) (time.Duration, error) {
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

// ParseRetention reads a retention as the operator gives it: a positive
// duration or days.
func ParseRetention(v string) (time.Duration, error) {
	d, err := ParseDays(v)
	if err != nil {
		return 0, fmt.Errorf("audit retention %q: want a duration such as 90d or 720h", v)
	}
	if d <= 0 {
		return 0, errors.New("audit retention " + strconv.Quote(v) + ": must be positive")
	}
	return d, nil
}

// deviceHint turns a device as the operator names it into the redacted
// form the trail stores (redact.SerialHint): a hint is kept as it is
// ("..." may stand for "…"), anything else is a serial, or
// ENDPOINT/SERIAL as `devices` prints keys.
func deviceHint(v string) string {
	switch {
	case v == "":
		return ""
	case strings.HasPrefix(v, "…"), strings.HasPrefix(v, "tcp #"):
		return v
	case strings.HasPrefix(v, "..."):
		return "…" + strings.TrimPrefix(v, "...")
	}
	return redact.KeyHint(v)
}
