package adb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/adb/parse"
)

// DefaultInstallTimeout bounds Install when ctx has no deadline: the push
// of a large APK over USB 2 and the package manager's verification and
// dex optimisation take tens of seconds on a slow phone.
const DefaultInstallTimeout = 3 * time.Minute

// PMError is a failure `pm install` or `pm uninstall` reported (AOSP
// PackageManagerShellCommand: "Failure [CODE: message]", "Error: ...").
type PMError struct {
	// Op is "install" or "uninstall".
	Op string
	// Code is the PackageManager constant (INSTALL_FAILED_VERSION_DOWNGRADE,
	// INSTALL_PARSE_FAILED_NO_CERTIFICATES, DELETE_FAILED_INTERNAL_ERROR);
	// "" when the phone gave none.
	Code string
	// Message is the phone's whole message.
	Message string
}

func (e *PMError) Error() string { return "pm " + e.Op + ": " + e.Message }

// InstallOptions are the options of Install.
type InstallOptions struct {
	// GrantAll grants every runtime permission the app requests (pm
	// install -g, Android 6+).
	GrantAll bool
}

// Install installs the APK r yields: pushed (sync) to a temporary file
// under TempPrefix, installed with `pm install -r` (a reinstall or an
// upgrade keeps the app's data; a lower version is refused), the file
// removed whatever the outcome. A failure the phone reports is a
// *PMError. Serialized with inputs. Default timeout:
// DefaultInstallTimeout for the whole.
func (d *Device) Install(ctx context.Context, r io.Reader, opt InstallOptions) error {
	ctx, cancel := withDefaultTimeout(ctx, DefaultInstallTimeout)
	defer cancel()
	var rnd [8]byte
	_, _ = rand.Read(rnd[:]) // crypto/rand.Read never fails (Go 1.24+)
	// A name of its own per call: two installs never share a file, and a
	// file left by a call cut off is one of the reset's TempPrefix files.
	path := TempPrefix + "install-" + hex.EncodeToString(rnd[:]) + ".apk"
	if err := d.Push(ctx, r, path, 0o644); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	argv := []string{"pm", "install", "-r"}
	if opt.GrantAll {
		argv = append(argv, "-g")
	}
	install, _ := QuoteArgs(append(argv, path)...)
	rm, _ := QuoteArgs("rm", "-f", path)
	// pm's own status is the outcome; rm runs whatever it was.
	res, err := d.shellScript(ctx, opInput, install+" 2>&1; "+rm)
	if err != nil && !isExit(err) {
		return fmt.Errorf("install: %w", err)
	}
	return pmOutcome("install", string(res.Stdout)+string(res.Stderr))
}

// Uninstall removes pkg for every user (pm uninstall). A package the
// phone does not have is ErrNotInstalled (checked first: pm answers it
// only with DELETE_FAILED_INTERNAL_ERROR, as it does for a system app it
// cannot remove); another failure is a *PMError. Serialized with inputs.
// Default timeout: DefaultInputTimeout for pm.
func (d *Device) Uninstall(ctx context.Context, pkg string) error {
	ok, err := d.Installed(ctx, pkg)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("uninstall: %w: %s", ErrNotInstalled, pkg)
	}
	ctx, cancel := withDefaultTimeout(ctx, DefaultInputTimeout)
	defer cancel()
	cmd, _ := QuoteArgs("pm", "uninstall", pkg)
	res, err := d.shellScript(ctx, opInput, cmd+" 2>&1")
	if err != nil && !isExit(err) {
		return fmt.Errorf("uninstall %s: %w", pkg, err)
	}
	return pmOutcome("uninstall", string(res.Stdout)+string(res.Stderr))
}

// pmOutcome is nil for "Success", else the *PMError of what pm printed.
func pmOutcome(op, out string) error {
	o, err := parse.PMResult(out)
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w", op, err)
	case !o.OK:
		return &PMError{Op: op, Code: o.Code, Message: o.Message}
	}
	return nil
}

// PackageVersion returns pkg's versionCode and versionName as the package
// manager has them (dumpsys package; a versionName that names a resource
// resolved). A package the phone does not have is ErrNotInstalled.
// Default timeout: DefaultQueryTimeout.
func (d *Device) PackageVersion(ctx context.Context, pkg string) (code int64, name string, err error) {
	p, err := d.Permissions(ctx, pkg)
	if err != nil {
		return 0, "", err
	}
	if p.VersionCode == 0 && p.VersionName == "" {
		return 0, "", fmt.Errorf("dumpsys package %s: no version lines: %w", pkg, parse.ErrFormat)
	}
	return p.VersionCode, p.VersionName, nil
}

// IsPMCode reports whether err is a *PMError of code (or of a code
// starting with it, as INSTALL_PARSE_FAILED_).
func IsPMCode(err error, code string) bool {
	var e *PMError
	return errors.As(err, &e) && strings.HasPrefix(e.Code, code)
}
