package tools

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
)

// outcomeOK is the audit outcome and metrics label of a successful call;
// failures use their wire error code.
const outcomeOK = "ok"

// AuditRecord is one tool call in the audit trail the operator reviews:
// who, on which device, what (redacted), how it ended.
type AuditRecord struct {
	ID         int64 // increasing in write order; AuditQuery.AfterID follows from it
	At         time.Time
	ChannelID  string
	DeviceHint string          // redacted serial; empty when no device was resolved
	ToolID     string          //
	ToolCallID string          // context.tool_call_id, may be empty
	Args       json.RawMessage // redacted arguments: free text as its length only
	Outcome    string          // "ok" or the wire error code
	Latency    time.Duration   // millisecond precision
	Replayed   bool            // a repeated tool_call_id answered from the record
}

// auditRow is an AuditRecord being built by the pipeline.
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
		auditIns, err := t.idem.stmts.get(ctx, t.cfg.DB.Write, auditInsertSQL)
		if err != nil {
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
		if err := insertAudit(ctx, tx, auditIns, r); err != nil {
			return err
		}
		if err := t.pruneAudit(ctx, tx); err != nil {
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

// auditPruneEvery is how often pruneAudit deletes: daily is enough for a
// retention counted in days, and keeps the DELETE off most writes.
const auditPruneEvery = 24 * time.Hour

// pruneAudit deletes audit rows older than AuditRetention, at most once a
// day (the first at the first write), in the transaction that writes a
// row: the trail stays bounded with no janitor of its own.
func (t *Tools) pruneAudit(ctx context.Context, tx *sql.Tx) error {
	now := t.cfg.Now()
	t.sweepMu.Lock()
	due := now.Sub(t.lastAuditSweep) >= auditPruneEvery
	if due {
		t.lastAuditSweep = now
	}
	t.sweepMu.Unlock()
	if !due {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM tool_audit WHERE at_ms < ?`, now.Add(-t.cfg.AuditRetention).UnixMilli()); err != nil {
		return fmt.Errorf("audit prune: %w", err)
	}
	return nil
}

// defaultPersistTimeout bounds persist: the call is over, its ack must not
// wait for ever on a write connection that stays busy.
const defaultPersistTimeout = 10 * time.Second

const auditInsertSQL = `INSERT INTO tool_audit
		(at_ms, channel_id, device_hint, tool_id, tool_call_id, args, outcome, latency_ms, replayed)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`

// insertAudit writes r in tx with ins (auditInsertSQL prepared on the
// write handle).
func insertAudit(ctx context.Context, tx *sql.Tx, ins *sql.Stmt, r auditRow) error {
	args := []byte("{}")
	if r.args != nil {
		if b, err := json.Marshal(r.args); err == nil {
			args = b
		}
	}
	_, err := tx.StmtContext(ctx, ins).ExecContext(ctx, r.at.UnixMilli(), r.channelID, r.deviceHint, r.toolID, r.toolCallID, string(args), r.outcome,
		r.latency.Milliseconds(), r.replayed)
	if err != nil {
		return fmt.Errorf("audit row: %w", err)
	}
	return nil
}

// redactArgs keeps what an auditor needs and nothing sensitive: numbers,
// booleans and enum strings as sent; any other string as {"len": N}
// (typed text, URLs, selectors); nested values as their kind only. The
// redundant connector_channel_id is dropped (the row has the channel).
func redactArgs(s *compiledSchema, args map[string]any) map[string]any {
	out := make(map[string]any, len(args))
	for k, v := range args {
		if k == "connector_channel_id" {
			continue
		}
		switch v := v.(type) {
		case json.Number, bool, nil:
			out[k] = v
		case string:
			if s != nil && s.enums[k] {
				out[k] = v
			} else {
				out[k] = map[string]int{"len": utf8.RuneCountInString(v)}
			}
		case []any:
			out[k] = map[string]int{"items": len(v)}
		default:
			out[k] = "(object)"
		}
	}
	return out
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
