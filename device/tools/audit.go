package tools

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/adb-connector/adb-connector/device/audit"
)

// outcomeOK is the audit outcome and metrics label of a successful call;
// failures use their wire error code.
const outcomeOK = audit.OutcomeOK

// auditRow is an audit.Record being built by the pipeline.
type auditRow struct {
	at         time.Time
	channelID  string
	deviceHint string
	toolID     string
	toolCallID string
	args       map[string]any
	outcome    string
	latency    time.Duration
	replayed   bool
}

// persist writes the audit row and, for a call that claimed a
// tool_call_id, its idempotency record, in one transaction; then it
// releases the duplicates waiting on f. A failure is logged, never
// returned (the call already happened). It runs even when ctx is canceled
// (the device may have acted), for at most persistTimeout.
func (t *Tools) persist(ctx context.Context, r auditRow, f *flight, a ack) {
	// A call cut short by cancellation (the server stopping) has no outcome
	// to replay: the same tool_call_id must run again, not get "canceled".
	keep := f != nil && recordable(a) && !errors.Is(ctx.Err(), context.Canceled)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.persistTimeout)
	defer cancel()
	err := func() error {
		// Prepared before the transaction takes the write connection.
		idemIns, err := t.idem.stmts.get(ctx, t.cfg.DB.Write, idemInsertSQL)
		if err != nil {
			return err
		}
		if err := t.audit.Prepare(ctx); err != nil {
			return err
		}
		tx, err := t.cfg.DB.Write.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if keep {
			if err := t.idem.insert(ctx, tx, idemIns, f, a); err != nil {
				return err
			}
		}
		if err := t.audit.WriteTx(ctx, tx, r.record()); err != nil {
			return err
		}
		return tx.Commit()
	}()
	if err != nil {
		t.log.Warn("audit row or idempotency record not written", "tool", r.toolID, "err", err)
	}
	if f != nil {
		t.idem.release(f.key, f, a)
	}
}

// defaultPersistTimeout bounds persist: the call is over, its ack must not
// wait for ever on a write connection that stays busy.
const defaultPersistTimeout = 10 * time.Second

// record is the row as the audit trail stores it.
func (r auditRow) record() audit.Record {
	args := []byte("{}")
	if r.args != nil {
		if b, err := json.Marshal(r.args); err == nil {
			args = b
		}
	}
	return audit.Record{At: r.at, ChannelID: r.channelID, DeviceHint: r.deviceHint, ToolID: r.toolID, ToolCallID: r.toolCallID,
		Args: args, Outcome: r.outcome, Latency: r.latency, Replayed: r.replayed}
}

// What the trail keeps of a call's arguments: what an operator needs to
// read what an agent did, and nothing that may be a secret. Numbers,
// booleans, enum values, package and activity names, element selectors
// (what the agent looked for on the screen, which the screen shows to
// anyone) are kept as sent; a URL keeps its scheme and host; any other
// string (typed text, shell commands, log filters) is its length only;
// an array is its item count. The shapes come from the published
// input_schema, so a new tool's arguments are redacted unless its schema
// says they are safe (an enum, a selector, a package).

// argClass is how one string argument is written to the trail.
type argClass int

const (
	classLength argClass = iota // {"len": N}
	classAsIs                   // the value as sent
	classOrigin                 // {"origin": "scheme://host", "len": N}
)

// auditShape is the audit view of an object schema: its string properties'
// classes and its nested objects' shapes.
type auditShape struct {
	class map[string]argClass
	sub   map[string]*auditShape
}

// shownByName are string arguments that are not secrets whatever the
// tool: Android package, activity and permission names (public
// identifiers of apps and of the platform).
var shownByName = map[string]argClass{"package": classAsIs, "activity": classAsIs, "permission": classAsIs, "url": classOrigin}

// selectorFields are the fields every element selector has
// (selectorProperties): an object schema with them is a selector, kept as
// sent. android_type_text's text sits beside no selector field, so it
// stays its length.
var selectorFields = []string{"resource_id", "content_desc"}

// auditShapeOf reads an object schema's properties into their audit shape.
func auditShapeOf(schema map[string]any) *auditShape {
	sh := &auditShape{class: map[string]argClass{}, sub: map[string]*auditShape{}}
	props, _ := schema["properties"].(map[string]any)
	selector := true
	for _, f := range selectorFields {
		if _, ok := props[f]; !ok {
			selector = false
		}
	}
	for name, p := range props {
		pm, ok := p.(map[string]any)
		if !ok {
			continue
		}
		if _, ok := pm["properties"].(map[string]any); ok {
			sh.sub[name] = auditShapeOf(pm)
			continue
		}
		_, enum := pm["enum"]
		switch c, named := shownByName[name]; {
		case enum, selector:
			sh.class[name] = classAsIs
		case named:
			sh.class[name] = c
		}
	}
	return sh
}

// redactArgs is the arguments as the trail stores them (see above). The
// redundant connector_channel_id is dropped (the row has the channel).
func redactArgs(s *compiledSchema, args map[string]any) map[string]any {
	var sh *auditShape
	if s != nil {
		sh = s.audit
	}
	out := sh.redact(args)
	delete(out, "connector_channel_id")
	return out
}

func (sh *auditShape) redact(args map[string]any) map[string]any {
	out := make(map[string]any, len(args))
	for k, v := range args {
		switch v := v.(type) {
		case json.Number, bool, nil:
			out[k] = v
		case string:
			out[k] = sh.string(k, v)
		case []any:
			out[k] = map[string]int{"items": len(v)}
		case map[string]any:
			if sub := sh.subShape(k); sub != nil {
				out[k] = sub.redact(v)
			} else {
				out[k] = "(object)"
			}
		default:
			out[k] = "(object)"
		}
	}
	return out
}

func (sh *auditShape) subShape(k string) *auditShape {
	if sh == nil {
		return nil
	}
	return sh.sub[k]
}

func (sh *auditShape) string(k, v string) any {
	c := classLength
	if sh != nil {
		c = sh.class[k]
	}
	n := utf8.RuneCountInString(v)
	switch c {
	case classAsIs:
		return v
	case classOrigin:
		if o := origin(v); o != "" {
			return map[string]any{"origin": o, "len": n}
		}
	}
	return map[string]int{"len": n}
}

// origin is a URL's scheme and host ("https://example.com:8443"): where it
// leads, without the path, query, fragment or user info that may carry a
// token. "" when v has no scheme and host.
func origin(v string) string {
	u, err := url.Parse(v)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// toolMetrics are the pipeline's collectors. Labels are bounded: tool ids
// come from the registry, outcomes from the wire code set.
type toolMetrics struct {
	calls    *prometheus.CounterVec
	replays  *prometheus.CounterVec
	duration *prometheus.HistogramVec
	// screenshotBytes is the size of each image android_screenshot and
	// android_observe store, by format (png, jpeg): what downloads and the
	// file cache carry.
	screenshotBytes *prometheus.HistogramVec
	// screenshotCaptures counts the captures behind them by how the phone
	// delivered the screen (raw, png): the choice adb.Device.Screenshot
	// made from its measurements, fallbacks included.
	screenshotCaptures *prometheus.CounterVec
	refusals           *prometheus.CounterVec // policy refusals by tool and rule
}

func newToolMetrics() *toolMetrics {
	return &toolMetrics{
		refusals: newRefusals(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adb_connector_tool_invocations_total",
			Help: "tool.invoke calls, by tool and outcome (ok or error code).",
		}, []string{"tool", "outcome"}),
		replays: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adb_connector_tool_replays_total",
			Help: "Repeated tool_call_ids answered from the recorded ack without acting again.",
		}, []string{"tool"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "adb_connector_tool_duration_seconds",
			Help:    "tool.invoke duration, validation to recorded ack, by tool and outcome (ok or error code).",
			Buckets: prometheus.ExponentialBuckets(0.001, 2.5, 12),
		}, []string{"tool", "outcome"}),
		screenshotBytes: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "adb_connector_tool_screenshot_bytes",
			Help:    "Size of the screenshots stored for download, by format.",
			Buckets: prometheus.ExponentialBuckets(16<<10, 2, 10), // 16 KiB to 8 MiB
		}, []string{"format"}),
		screenshotCaptures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adb_connector_tool_screenshot_captures_total",
			Help: "Screen captures behind stored screenshots, by how the phone delivered them (raw pixels or png).",
		}, []string{"mode"}),
	}
}

func (m *toolMetrics) observe(tool, outcome string, replayed bool, d time.Duration) {
	m.calls.WithLabelValues(tool, outcome).Inc()
	if replayed {
		m.replays.WithLabelValues(tool).Inc()
	}
	m.duration.WithLabelValues(tool, outcome).Observe(d.Seconds())
}

// Collectors returns the pipeline's Prometheus collectors, for the
// server's registry.
func (t *Tools) Collectors() []prometheus.Collector {
	return []prometheus.Collector{t.metrics.calls, t.metrics.replays, t.metrics.duration, t.metrics.screenshotBytes, t.metrics.screenshotCaptures, t.metrics.refusals}
}
