package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/binding"
)

// operatorError words an admin refusal about the device named serial for
// the operator at the terminal: what is wrong with that device, by name,
// and the command to run next. Other errors pass unchanged, among them
// device_in_use and no_free_device, whose messages the operator API words
// with the holder and the way out already.
func operatorError(ctx context.Context, c *admin.Client, serial string, err error) error {
	var ae *admin.Error
	if !errors.As(err, &ae) {
		return err
	}
	switch ae.Code {
	case admin.CodeUnknownDevice:
		return fmt.Errorf("unknown device %q; `adb-connector devices` lists them", serial)
	case admin.CodeNotBound:
		// unbind of a serial no binding has: say whether adb knows it.
		if rows, derr := c.Devices(ctx); derr == nil {
			for _, r := range rows {
				if r.Serial == serial || r.Endpoint+"/"+r.Serial == serial {
					return fmt.Errorf("%s is not bound to any channel: nothing to unbind (`adb-connector devices` shows BOUND)", serial)
				}
			}
		}
		return fmt.Errorf("unknown device %q: no channel holds it and adb does not list it; `adb-connector devices` lists them", serial)
	case admin.CodeNeedsReset:
		return fmt.Errorf("%s needs a reset before it is used again (its last reset failed or has not run); check the phone, then `adb-connector unbind %s --clear-reset`", serial, serial)
	case admin.CodeResetting:
		return fmt.Errorf("%s is being reset; try again in a few seconds (`adb-connector devices` shows RESET)", serial)
	case admin.CodeNoReset:
		return fmt.Errorf("%s owes no reset: nothing to clear", serial)
	case admin.CodeAmbiguousSerial:
		return fmt.Errorf("%s is on several adb servers: give ENDPOINT/%s (`adb-connector devices` shows the ENDPOINT)", serial, serial)
	}
	return err
}

// reportDevice ends a device operation that answers with the device's
// key: a refusal is worded by operatorError, a success printed to stdout
// as format with the serial and the endpoint.
func reportDevice(ctx context.Context, c *admin.Client, serial string, stdout io.Writer, key string, err error, format string) error {
	if err != nil {
		return operatorError(ctx, c, serial, err)
	}
	ep, sr := binding.SplitKey(key)
	_, err = fmt.Fprintf(stdout, format, sr, ep)
	return err
}
