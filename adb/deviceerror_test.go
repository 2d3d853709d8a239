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

// TestUnknownDeviceErrorHoldsNoSerial: the real adb server's FAIL for an
// unknown device names it ("device 'SERIAL' not found"); what reaches the
// caller says not found, and the device only as DeviceError.Key.
func TestUnknownDeviceErrorHoldsNoSerial(t *testing.T) {
	env, _, _ := opsEnv(t)
	c, err := New(t.Context(), Config{Endpoints: []string{env.ServerAddr}, NoTracking: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const serial = "ZX9NOSUCH42"
	d, err := c.Device(DeviceKey(env.ServerAddr, serial))
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Shell(t.Context(), "true")
	var de *DeviceError
	if !errors.As(err, &de) || de.Key != DeviceKey(env.ServerAddr, serial) || !errors.Is(err, ErrDeviceNotFound) {
		t.Fatalf("shell on an unknown device = %v, want a *DeviceError matching ErrDeviceNotFound", err)
	}
	if strings.Contains(err.Error(), serial) {
		t.Errorf("error text %q holds the serial", err)
	}
}
