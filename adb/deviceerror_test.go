package adb

import (
	"errors"
	"strings"
	"testing"
)

// TestDeviceErrorKeepsSerialOutOfText: a device's key travels as a field,
// so an error's text can be logged or shown without the serial.
func TestDeviceErrorKeepsSerialOutOfText(t *testing.T) {
	t.Parallel()
	const serial = "R58M123ABC"
	_, _, err := SplitKey(serial)
	var de *DeviceError
	if !errors.As(err, &de) || de.Key != serial || !errors.Is(err, ErrDeviceNotFound) {
		t.Fatalf("SplitKey(%q) = %v, want a *DeviceError with the key and ErrDeviceNotFound", serial, err)
	}
	c := &Client{endpoints: []string{"127.0.0.1:5037"}}
	_, err = c.Device("10.0.0.9:5037/" + serial)
	if !errors.As(err, &de) || de.Key != "10.0.0.9:5037/"+serial || !errors.Is(err, ErrDeviceNotFound) {
		t.Fatalf("Device(unknown endpoint) = %v", err)
	}
	for _, e := range []error{err, &DeviceError{Key: "e/" + serial, Op: "check online", Err: ErrDeviceOffline}} {
		if strings.Contains(e.Error(), serial) {
			t.Errorf("error text %q holds the serial", e.Error())
		}
	}
}
