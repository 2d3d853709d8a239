package adb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/adb-connector/adb-connector/adb/parse"
)

// Operations a reset uses when a phone changes hands: which apps run, an
// app's data cleared, and the files this package leaves in /data/local/tmp.

// TempPrefix starts the name of every file this package writes on a phone
// (UI dumps, screen recordings), all in /data/local/tmp.
const TempPrefix = "/data/local/tmp/adbc-"

// RunningPackages lists the packages with a running process (ps -A -o
// NAME: an app's processes are named after its package, with ":name" for
// its secondary ones), sorted. Default timeout: DefaultQueryTimeout.
// Counted as a read.
func (d *Device) RunningPackages(ctx context.Context) ([]string, error) {
	parts, err := d.runParts(ctx, "ps -A -o NAME")
	if err != nil {
		return nil, fmt.Errorf("ps: %w", err)
	}
	var out []string
	for i, line := range strings.Split(parts[0], "\n") {
		name := strings.TrimSpace(line)
		if i == 0 && name == "NAME" {
			continue
		}
		name, _, _ = strings.Cut(name, ":")
		if strings.Contains(name, ".") && parse.ValidPackage(name) && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// ErrClearFailed: pm clear did not report success.
var ErrClearFailed = errors.New("adb: pm clear failed")

// ClearData deletes pkg's data (pm clear, which also stops it). Android
// prints "Success", or "Failed" for a package it cannot clear (unknown
// ones included): that is an error. Serialized with inputs. Default
// timeout: DefaultInputTimeout.
func (d *Device) ClearData(ctx context.Context, pkg string) error {
	if !parse.ValidPackage(pkg) {
		return fmt.Errorf("%w: %q", ErrBadPackage, pkg)
	}
	ctx, cancel := withDefaultTimeout(ctx, DefaultInputTimeout)
	defer cancel()
	cmd, _ := QuoteArgs("pm", "clear", pkg)
	res, err := d.shellScript(ctx, opInput, cmd)
	if err != nil && !isExit(err) {
		return fmt.Errorf("pm clear %s: %w", pkg, err)
	}
	if out := bytes.TrimSpace(res.Stdout); err != nil || !bytes.Equal(out, []byte("Success")) {
		return fmt.Errorf("pm clear %s: %q: %w", pkg, clip(out), errors.Join(err, ErrClearFailed))
	}
	return nil
}

// RemoveTempFiles deletes every file this package left on the phone
// (TempPrefix*: a recording still being written included, and the phone
// helper's jar, the helper stopped first). Default
// timeout: DefaultShellTimeout.
func (d *Device) RemoveTempFiles(ctx context.Context) error {
	ctx, cancel := withDefaultTimeout(ctx, DefaultShellTimeout)
	defer cancel()
	// The phone helper's jar is one of them: the helper stops first.
	d.forgetHelperJar(ctx)
	// The glob is the shell's: TempPrefix holds no character sh treats
	// specially, so it is not quoted.
	if _, err := d.shellScript(ctx, opInput, "rm -f "+TempPrefix+"*"); err != nil {
		return fmt.Errorf("remove temp files: %w", err)
	}
	return nil
}
