package tools

import (
	"context"
	"fmt"

	"github.com/adb-connector/adb-connector/store"
)

// WriteAudit adds a record to the audit trail for work done outside a tool
// call (the reset of a released device), so the operator reviews it with
// the calls. r.Args must already be redacted. Safe for concurrent use.
func WriteAudit(ctx context.Context, db *store.DB, r AuditRecord) error {
	args := string(r.Args)
	if args == "" {
		args = "{}"
	}
	_, err := db.Write.ExecContext(ctx, auditInsertSQL, r.At.UnixMilli(), r.ChannelID, r.DeviceHint, r.ToolID,
		r.ToolCallID, args, r.Outcome, r.Latency.Milliseconds(), r.Replayed)
	if err != nil {
		return fmt.Errorf("audit row: %w", err)
	}
	return nil
}
