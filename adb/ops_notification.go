package adb

import (
	"context"
	"fmt"

	"github.com/adb-connector/adb-connector/adb/parse"
)

// Notifications reads the posted notifications (`dumpsys notification
// --noredact`: titles and texts in clear, which the caller must filter by
// its policy before showing them). Default timeout: DefaultQueryTimeout.
func (d *Device) Notifications(ctx context.Context) ([]parse.Notification, error) {
	parts, err := d.runParts(ctx, "dumpsys notification --noredact")
	if err != nil {
		return nil, fmt.Errorf("dumpsys notification: %w", err)
	}
	return parse.Notifications(parts[0])
}

// NotificationShade pulls the notification shade down (open) or pushes
// it up (`cmd statusbar expand-notifications` / `collapse`, StatusBarShellCommand,
// Android 7+). Serialized with inputs. Default timeout: DefaultInputTimeout.
func (d *Device) NotificationShade(ctx context.Context, open bool) error {
	ctx, cancel := withDefaultTimeout(ctx, DefaultInputTimeout)
	defer cancel()
	cmd := "cmd statusbar collapse"
	if open {
		cmd = "cmd statusbar expand-notifications"
	}
	if _, err := d.shellScript(ctx, opInput, cmd); err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	return nil
}
