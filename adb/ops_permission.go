package adb

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/adb-connector/adb-connector/adb/parse"
)

// ErrBadPermission: a permission name that is not dot-separated parts of
// letters, digits and _.
var ErrBadPermission = errors.New("adb: invalid permission name")

// Permissions reads pkg's requested, install and runtime permissions
// (`dumpsys package PKG`). A package the phone does not have is
// ErrNotInstalled. Default timeout: DefaultQueryTimeout.
func (d *Device) Permissions(ctx context.Context, pkg string) (parse.Permissions, error) {
	if !parse.ValidPackage(pkg) {
		return parse.Permissions{}, fmt.Errorf("%w: %q", ErrBadPackage, pkg)
	}
	parts, err := d.runParts(ctx, "dumpsys package "+pkg)
	if err != nil {
		return parse.Permissions{}, fmt.Errorf("dumpsys package: %w", err)
	}
	p, err := parse.PackagePermissions(parts[0])
	if errors.Is(err, parse.ErrNotFound) {
		return p, fmt.Errorf("%w: %s", ErrNotInstalled, pkg)
	}
	return p, err
}

// SetPermission grants or revokes a runtime permission (`pm grant|revoke
// PKG PERM`). The phone refuses a permission the package did not request
// or that is not a runtime one with an exception (an *ExitError whose
// Stderr says why). Serialized with inputs. Default timeout:
// DefaultInputTimeout.
func (d *Device) SetPermission(ctx context.Context, pkg, perm string, grant bool) error {
	if !parse.ValidPackage(pkg) {
		return fmt.Errorf("%w: %q", ErrBadPackage, pkg)
	}
	if !parse.ValidPackage(strings.ToLower(perm)) {
		return fmt.Errorf("%w: %q", ErrBadPermission, perm)
	}
	ctx, cancel := withDefaultTimeout(ctx, DefaultInputTimeout)
	defer cancel()
	verb := "revoke"
	if grant {
		verb = "grant"
	}
	cmd, _ := QuoteArgs("pm", verb, pkg, perm)
	if _, err := d.shellScript(ctx, opInput, cmd); err != nil {
		return fmt.Errorf("pm %s %s %s: %w", verb, pkg, perm, err)
	}
	return nil
}
