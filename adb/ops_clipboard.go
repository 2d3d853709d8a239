package adb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/adb-connector/adb-connector/adb/helper"
)

// ErrNoHelper: the operation needs the phone helper, which does not run
// on this phone (the stock shell has no clipboard command: `cmd
// clipboard` answers "No shell command implementation.").
var ErrNoHelper = errors.New("adb: the phone helper does not run on this phone")

// Clipboard reads the clipboard's text through the phone helper. Without
// it: ErrNoHelper, wrapped with HelperStatus().Why. Serialized with
// inputs. Default timeout: DefaultInputTimeout.
func (d *Device) Clipboard(ctx context.Context) (string, error) {
	var text string
	err := d.helperOnly(ctx, "clipboard", helper.FeatureClipboard, helper.ClipGet(), d.c.helperCfg.text, func(b []byte) (err error) {
		text, err = helper.ParseClip(b)
		return err
	})
	return text, err
}

// SetClipboard sets the clipboard's text through the phone helper, as
// Clipboard. Counted as an action.
func (d *Device) SetClipboard(ctx context.Context, text string) error {
	d.actions.Add(1)
	return d.helperOnly(ctx, "clipboard", helper.FeatureClipboard, helper.ClipSet(text), d.c.helperCfg.text, ignoreBody(helper.OpClipSet))
}

// Pinch scales the content around (cx, cy) by scale (below 1 pinches
// in) with two fingers over dur, through the phone helper: `input` has no
// multi-touch. Without the helper: ErrNoHelper. Serialized with inputs.
// Default timeout: DefaultInputTimeout.
func (d *Device) Pinch(ctx context.Context, cx, cy int, scale float64, dur time.Duration) error {
	d.actions.Add(1)
	req := helper.Pinch(int32(cx), int32(cy), uint32(scale*1000+0.5), uint32(max(dur.Milliseconds(), 1)))
	return d.helperOnly(ctx, "pinch", helper.FeatureInject, req, d.c.helperCfg.act+dur, ignoreBody(helper.OpPinch))
}

// helperOnly runs req on the helper under the input slot, for what only
// the helper can do (what names it in errors).
func (d *Device) helperOnly(ctx context.Context, what string, feature helper.Feature, req helper.Request, timeout time.Duration, parse func([]byte) error) error {
	ctx, cancel := withDefaultTimeout(ctx, DefaultInputTimeout)
	defer cancel()
	release, err := d.lim.acquire(ctx, opInput)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	served, err := d.helperDo(ctx, feature, req, timeout, parse)
	if !served {
		why := d.HelperStatus().Why
		if why == "" {
			why = "the helper lacks " + feature.String()
		}
		return fmt.Errorf("%w (%s)", ErrNoHelper, why)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
