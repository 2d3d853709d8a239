package device

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// AdminService implements AdminHandler over the binding table and the two
// auth flows. ListDevices supplies live adb data (nil: no devices). Safe for
// concurrent use once its fields are set.
type AdminService struct {
	Bindings    *Bindings
	Pairing     *Pairing
	Requests    *Requests
	ListDevices func() []DeviceInfo
}

var _ AdminHandler = (*AdminService)(nil)

func (s *AdminService) devices() []DeviceInfo {
	if s.ListDevices == nil {
		return nil
	}
	return s.ListDevices()
}

// Devices lists what adb sees, marked bound or not, then bound devices adb
// does not see (state "offline"), so the operator can unbind them.
func (s *AdminService) Devices(ctx context.Context) ([]DeviceRow, error) {
	bindings, err := s.Bindings.List(ctx)
	if err != nil {
		return nil, err
	}
	bound := map[string]bool{}
	for _, b := range bindings {
		if b.State == BindingBound {
			bound[b.DeviceKey] = true
		}
	}
	rows := []DeviceRow{}
	for _, d := range s.devices() {
		rows = append(rows, DeviceRow{Serial: d.Serial, Endpoint: d.Endpoint, State: d.State, Model: d.Model, Bound: bound[d.Key]})
		delete(bound, d.Key)
	}
	for _, b := range bindings {
		if bound[b.DeviceKey] {
			ep, serial := SplitDeviceKey(b.DeviceKey)
			rows = append(rows, DeviceRow{Serial: serial, Endpoint: ep, State: "offline", Bound: true})
		}
	}
	return rows, nil
}

// Pair issues a pairing code for a device adb sees (bare serial or
// "endpoint/serial").
func (s *AdminService) Pair(ctx context.Context, serial string, ttl time.Duration) (string, error) {
	d, err := FindDevice(s.devices(), serial)
	if err != nil {
		return "", err
	}
	return s.Pairing.IssuePairingCode(ctx, d.Key, ttl)
}

// Approve answers a device_request code (see Requests.Approve).
func (s *AdminService) Approve(ctx context.Context, code, serial string) (string, error) {
	a, err := s.Requests.Approve(ctx, code, serial)
	return a.DeviceKey, err
}

// Unbind revokes the binding of the device with this serial (bare or
// "endpoint/serial"), seen by adb or not.
func (s *AdminService) Unbind(ctx context.Context, serial string) (string, error) {
	bindings, err := s.Bindings.List(ctx)
	if err != nil {
		return "", err
	}
	var keys []DeviceInfo
	for _, b := range bindings {
		if b.State == BindingBound {
			ep, sr := SplitDeviceKey(b.DeviceKey)
			keys = append(keys, DeviceInfo{Key: b.DeviceKey, Endpoint: ep, Serial: sr})
		}
	}
	d, err := FindDevice(keys, serial)
	if errors.Is(err, ErrUnknownDevice) {
		return "", fmt.Errorf("unbind: %w", ErrNotBound)
	}
	if err != nil {
		return "", err
	}
	if _, err := s.Bindings.Revoke(ctx, d.Key); err != nil {
		return "", err
	}
	return d.Key, nil
}
