package adb

import (
	"context"
	"errors"
	"fmt"

	"github.com/adb-connector/adb-connector/adb/helper"
)

// ErrNoHelper: the operation needs the phone helper, which does not run
// on this phone (the stock shell has no clipboard command: `cmd
// clipboard` answers "No shell command implementation.").
var ErrNoHelper = errors.New("adb: the phone helper does not run on this phone")

// Clipboard reads the clipboard's text through the phone helper. Without
// it: ErrNoHelper, wrapped with HelperStatus().Why. Serialized with
// inputs. Default timeout: DefaultQueryTimeout.
func (d *Device) Clipboard(ctx context.Context) (string, error) {
	var text string
	err := d.clipboardDo(ctx, helper.ClipGet(), func(b []byte) (err error) {
		text, err = helper.ParseClip(b)
		return err
	})
	return text, err
}

// SetClipboard sets the clipboard's text through the phone helper, as
// Clipboard. Counted as an action.
func (d *Device) SetClipboard(ctx context.Context, text string) error {
	d.actions.Add(1)
	return d.clipboardDo(ctx, helper.ClipSet(text), func(b []byte) error { return helper.ParseEmpty(helper.OpClipSet, b) })
}

// clipboardDo runs a clipboard request on the helper under the input slot.
func (d *Device) clipboardDo(ctx context.Context, req helper.Request, parse func([]byte) error) error {
	ctx, cancel := withDefaultTimeout(ctx, DefaultQueryTimeout)
	defer cancel()
	release, err := d.lim.acquire(ctx, opInput)
	if err != nil {
		return fmt.Errorf("clipboard: %w", err)
	}
	defer release()
	served, err := d.helperDo(ctx, helper.FeatureClipboard, req, d.c.helperCfg.text, parse)
	if !served {
		why := d.HelperStatus().Why
		if why == "" {
			why = "the helper has no clipboard access"
		}
		return fmt.Errorf("%w (%s)", ErrNoHelper, why)
	}
	if err != nil {
		return fmt.Errorf("clipboard: %w", err)
	}
	return nil
}
