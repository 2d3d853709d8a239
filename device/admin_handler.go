package device

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/auth"
	"github.com/adb-connector/adb-connector/device/binding"
)

// AdminService implements admin.Handler over the binding table and the two
// auth flows; its errors are *admin.Error (adminErrorFor). ListDevices
// supplies live adb data (nil: no devices). Safe for concurrent use once
// its fields are set.
type AdminService struct {
	Bindings    *binding.Table
	Pairing     *auth.Pairing
	Requests    *auth.Requests
	ListDevices func() []auth.DeviceInfo
	// Tags, when set, gives a device's policy tags (nil: no tags).
	Tags func(auth.DeviceInfo) []string
	// WaitReset, when set, waits for the resets running on the device a
	// serial names, before an approval binds it (nil: no wait).
	WaitReset func(ctx context.Context, serial string)
	// RunReset, when set, starts the reset a device owes (ResetNow).
	RunReset func(deviceKey string)
}

var _ admin.Handler = (*AdminService)(nil)

// Devices implements admin.Handler.
func (s *AdminService) Devices(ctx context.Context) ([]admin.DeviceRow, error) {
	rows, err := s.devices(ctx)
	return rows, adminErrorFor(err)
}

// Pair implements admin.Handler.
func (s *AdminService) Pair(ctx context.Context, serial string, ttl time.Duration) (string, error) {
	code, err := s.pair(ctx, serial, ttl)
	return code, adminErrorFor(err)
}

// Approve implements admin.Handler.
func (s *AdminService) Approve(ctx context.Context, code, serial string) (string, error) {
	key, err := s.approve(ctx, code, serial)
	return key, adminErrorFor(err)
}

// Unbind implements admin.Handler.
func (s *AdminService) Unbind(ctx context.Context, serial string) (string, error) {
	key, err := s.unbind(ctx, serial)
	return key, adminErrorFor(err)
}

// ClearReset implements admin.Handler.
func (s *AdminService) ClearReset(ctx context.Context, serial string) (string, error) {
	key, err := s.clearReset(ctx, serial)
	return key, adminErrorFor(err)
}

// adminErrorFor is the one place admin error codes are chosen: a known
// flow or binding error keeps its message (written for the operator); any
// other stays as it is, which the admin server answers "internal" and logs.
func adminErrorFor(err error) error {
	if err == nil {
		return nil
	}
	for _, m := range []struct {
		err  error
		code string
	}{
		{auth.ErrInvalidArgument, admin.CodeInvalidArgument},
		{auth.ErrUnknownDevice, admin.CodeUnknownDevice},
		{auth.ErrAmbiguousSerial, admin.CodeAmbiguousSerial},
		{binding.ErrResetting, admin.CodeResetting},
		{binding.ErrNeedsReset, admin.CodeNeedsReset},
		{binding.ErrNoReset, admin.CodeNoReset},
		{binding.ErrDeviceInUse, admin.CodeDeviceInUse},
		{binding.ErrChannelBound, admin.CodeChannelBound},
		{binding.ErrNotBound, admin.CodeNotBound},
		{auth.ErrInvalidRequestCode, admin.CodeInvalidCode},
		{auth.ErrNoFreeDevice, admin.CodeNoFreeDevice},
	} {
		if errors.Is(err, m.err) {
			return &admin.Error{Code: m.code, Message: err.Error(), Err: err}
		}
	}
	return err
}

func (s *AdminService) seen() []auth.DeviceInfo {
	if s.ListDevices == nil {
		return nil
	}
	return s.ListDevices()
}

// Devices lists what adb sees, marked bound or not, then bound devices adb
// does not see (state "offline"), so the operator can unbind them, and
// devices that owe a reset, with the reset's state.
func (s *AdminService) devices(ctx context.Context) ([]admin.DeviceRow, error) {
	bindings, err := s.Bindings.List(ctx)
	if err != nil {
		return nil, err
	}
	resets, err := s.Bindings.Resets(ctx)
	if err != nil {
		return nil, err
	}
	owed := map[string]binding.Reset{}
	for _, r := range resets {
		owed[r.DeviceKey] = r
	}
	bound := map[string]bool{}
	for _, b := range bindings {
		if b.State == binding.Bound {
			bound[b.DeviceKey] = true
		}
	}
	rows := []admin.DeviceRow{}
	for _, d := range s.seen() {
		r := owed[d.Key]
		row := admin.DeviceRow{Serial: d.Serial, Endpoint: d.Endpoint, State: d.State, Model: d.Model, Bound: bound[d.Key],
			Reset: resetWord(r.Status), ResetError: r.Error}
		if s.Tags != nil {
			row.Tags = s.Tags(d)
		}
		rows = append(rows, row)
		delete(bound, d.Key)
		delete(owed, d.Key)
	}
	for _, b := range bindings {
		if bound[b.DeviceKey] {
			ep, serial := binding.SplitKey(b.DeviceKey)
			row := admin.DeviceRow{Serial: serial, Endpoint: ep, State: "offline", Bound: true}
			if s.Tags != nil {
				row.Tags = s.Tags(auth.DeviceInfo{Key: b.DeviceKey, Endpoint: ep, Serial: serial})
			}
			rows = append(rows, row)
		}
	}
	for _, r := range resets {
		if _, ok := owed[r.DeviceKey]; ok {
			ep, serial := binding.SplitKey(r.DeviceKey)
			rows = append(rows, admin.DeviceRow{Serial: serial, Endpoint: ep, State: "offline", Reset: resetWord(r.Status), ResetError: r.Error})
		}
	}
	return rows, nil
}

// resetWord is how `devices` shows a reset's status.
func resetWord(st binding.ResetStatus) string {
	switch st {
	case binding.ResetFailed:
		return admin.ResetNeeded
	case binding.ResetPending:
		return admin.ResetPending
	case binding.ResetRunning:
		return admin.ResetRunning
	}
	return ""
}

// clearReset drops the reset the device with this serial owes: the
// operator says it is fit to hand out.
func (s *AdminService) clearReset(ctx context.Context, serial string) (string, error) {
	r, err := s.owedReset(ctx, "clear reset", serial)
	if err != nil {
		return "", err
	}
	if err := s.Bindings.ClearReset(ctx, r.DeviceKey); err != nil {
		return "", err
	}
	return r.DeviceKey, nil
}

// ResetNow starts the reset the device with this serial owes (pending or
// failed) at once, rather than when the device next answers or at the next
// retry; it returns the device key without waiting for the outcome, which
// `devices` and the audit trail show. A reset already running is
// binding.ErrResetting. Errors are *admin.Error as Handler's.
func (s *AdminService) ResetNow(ctx context.Context, serial string) (string, error) {
	r, err := s.owedReset(ctx, "reset", serial)
	if err == nil && r.Status == binding.ResetRunning {
		err = binding.ErrResetting
	}
	if err == nil && s.RunReset != nil {
		s.RunReset(r.DeviceKey)
	}
	if err != nil {
		return "", adminErrorFor(err)
	}
	return r.DeviceKey, nil
}

// owedReset is the reset the device with this serial owes;
// binding.ErrNoReset (with op) when it owes none.
func (s *AdminService) owedReset(ctx context.Context, op, serial string) (binding.Reset, error) {
	resets, err := s.Bindings.Resets(ctx)
	if err != nil {
		return binding.Reset{}, err
	}
	var keys []auth.DeviceInfo
	for _, r := range resets {
		ep, sr := binding.SplitKey(r.DeviceKey)
		keys = append(keys, auth.DeviceInfo{Key: r.DeviceKey, Endpoint: ep, Serial: sr})
	}
	d, err := auth.FindDevice(keys, serial)
	if errors.Is(err, auth.ErrUnknownDevice) {
		return binding.Reset{}, fmt.Errorf("%s: %w", op, binding.ErrNoReset)
	}
	if err != nil {
		return binding.Reset{}, err
	}
	for _, r := range resets {
		if r.DeviceKey == d.Key {
			return r, nil
		}
	}
	return binding.Reset{}, fmt.Errorf("%s: %w", op, binding.ErrNoReset)
}

// Pair issues a pairing code for a device adb sees (bare serial or
// "endpoint/serial").
func (s *AdminService) pair(ctx context.Context, serial string, ttl time.Duration) (string, error) {
	d, err := auth.FindDevice(s.seen(), serial)
	if err != nil {
		return "", err
	}
	if err := s.resetGate(ctx, d.Key); err != nil {
		return "", err
	}
	return s.Pairing.IssuePairingCode(ctx, d.Key, ttl)
}

// Approve answers a device_request code (see auth.Requests.Approve).
func (s *AdminService) approve(ctx context.Context, code, serial string) (string, error) {
	if s.WaitReset != nil {
		s.WaitReset(ctx, serial)
	}
	a, err := s.Requests.Approve(ctx, code, serial)
	return a.DeviceKey, err
}

// resetGate refuses a pairing code for a device that owes a reset: the code
// could not be redeemed.
func (s *AdminService) resetGate(ctx context.Context, key string) error {
	if s.WaitReset != nil {
		s.WaitReset(ctx, key)
	}
	resets, err := s.Bindings.Resets(ctx)
	if err != nil {
		return err
	}
	for _, r := range resets {
		if r.DeviceKey == key {
			if r.Status == binding.ResetRunning {
				return binding.ErrResetting
			}
			return binding.ErrNeedsReset
		}
	}
	return nil
}

// Unbind revokes the binding of the device with this serial (bare or
// "endpoint/serial"), seen by adb or not.
func (s *AdminService) unbind(ctx context.Context, serial string) (string, error) {
	bindings, err := s.Bindings.List(ctx)
	if err != nil {
		return "", err
	}
	var keys []auth.DeviceInfo
	for _, b := range bindings {
		if b.State == binding.Bound {
			ep, sr := binding.SplitKey(b.DeviceKey)
			keys = append(keys, auth.DeviceInfo{Key: b.DeviceKey, Endpoint: ep, Serial: sr})
		}
	}
	d, err := auth.FindDevice(keys, serial)
	if errors.Is(err, auth.ErrUnknownDevice) {
		return "", fmt.Errorf("unbind: %w", binding.ErrNotBound)
	}
	if err != nil {
		return "", err
	}
	if _, err := s.Bindings.Revoke(ctx, d.Key); err != nil {
		return "", err
	}
	return d.Key, nil
}
