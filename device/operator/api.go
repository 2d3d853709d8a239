package operator

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/ask"
	"github.com/adb-connector/adb-connector/device/auth"
	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/device/lease"
	"github.com/adb-connector/adb-connector/device/policy"
	"github.com/adb-connector/adb-connector/device/reset"
	"github.com/adb-connector/adb-connector/store"
)

// Config is what the API acts on: the Profile's tables, flows, leases and
// resets (device.Service.Operator fills them) and serve's part (Serve).
type Config struct {
	Bindings *binding.Table
	Pairing  *auth.Pairing
	Requests *auth.Requests
	// ADB reads the battery and the thumbnail of a device.
	ADB *adb.Client
	// DB holds the audit trail, read through its Read handle.
	DB *store.DB
	// Devices lists what adb tracking sees now (nil: no devices).
	Devices func() []auth.DeviceInfo
	// Tags gives a device's policy tags (nil: no tags).
	Tags func(auth.DeviceInfo) []string
	// Leases says who holds each device until when (nil: nobody).
	Leases *lease.Leases
	// Resets runs the resets devices owe (nil: none run here).
	Resets *reset.Resets
	// Policy is the config file in force (nil: none).
	Policy *policy.Holder
	// Questions are the agents' open questions (nil: none).
	Questions *ask.Board
	// Now is the clock. Default time.Now.
	Now func() time.Time
	Serve
}

// Serve is serve's part of the API: what the policy page shows of the
// server. The zero value shows nothing of it.
type Serve struct {
	// Settings are serve's settings in force (no secret: a key is "set").
	Settings []Setting
	// ConfigPath is the config file ("" none); Reloader reloads it (nil:
	// never reloaded).
	ConfigPath string
	Reloader   *policy.Reloader
	// Link says whether a channel is open on a live xAgent connection and
	// since when (connector.Server.ChannelLink). Nil: not known.
	Link func(channelID string) (open bool, since time.Time, ok bool)
}

// Setting is one server setting.
type Setting struct{ Name, Value string }

// API is the operator API. Safe for concurrent use.
type API struct {
	cfg Config

	mu      sync.Mutex
	battery map[string]batteryRead // by device key, see batteryOf
	models  map[string]string      // by device key, see modelOf
}

var _ admin.Handler = (*API)(nil)

// New returns the API over cfg.
func New(cfg Config) *API {
	if cfg.Devices == nil {
		cfg.Devices = func() []auth.DeviceInfo { return nil }
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &API{cfg: cfg, battery: map[string]batteryRead{}, models: map[string]string{}}
}

// invalid is an operand refused before anything runs.
func invalid(msg string) *admin.Error {
	return &admin.Error{Code: admin.CodeInvalidArgument, Message: "invalid argument: " + msg}
}

// checkDevice is the one check of a device an operator names (a serial,
// "endpoint/serial" or a key): present and within admin.MaxSerialLen.
func checkDevice(op, dev string) error {
	switch {
	case dev == "":
		return invalid(op + " needs a serial")
	case len(dev) > admin.MaxSerialLen:
		return invalid("serial too long")
	}
	return nil
}

// errorFor is the one place operator error codes are chosen: a known flow
// or binding error keeps its message (written for the operator); any
// other stays as it is, which the admin socket answers "internal" and
// logs.
func errorFor(err error) error {
	if err == nil {
		return nil
	}
	var ae *admin.Error
	if errors.As(err, &ae) {
		return err
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

// Devices lists what adb sees, marked bound or not, then bound devices adb
// does not see (state "offline"), so the operator can unbind them, and
// devices that owe a reset, with the reset's state.
func (a *API) Devices(ctx context.Context) ([]admin.DeviceRow, error) {
	rows, err := a.devices(ctx)
	return rows, errorFor(err)
}

func (a *API) devices(ctx context.Context) ([]admin.DeviceRow, error) {
	bindings, err := a.cfg.Bindings.List(ctx)
	if err != nil {
		return nil, err
	}
	resets, err := a.cfg.Bindings.Resets(ctx)
	if err != nil {
		return nil, err
	}
	owed := map[string]binding.Reset{}
	for _, r := range resets {
		owed[r.DeviceKey] = r
	}
	holders, err := a.holders(ctx, bindings)
	if err != nil {
		return nil, err
	}
	rows := []admin.DeviceRow{}
	for _, d := range a.cfg.Devices() {
		r := owed[d.Key]
		h := holders[d.Key]
		rows = append(rows, admin.DeviceRow{Serial: d.Serial, Endpoint: d.Endpoint, State: d.State, Model: d.Model, Bound: h != nil,
			Holder: h, Tags: a.tags(d), Reset: resetWord(r.Status), ResetError: r.Error})
		delete(holders, d.Key)
		delete(owed, d.Key)
	}
	for _, b := range bindings {
		if h := holders[b.DeviceKey]; h != nil {
			d := deviceOfKey(b.DeviceKey)
			rows = append(rows, admin.DeviceRow{Serial: d.Serial, Endpoint: d.Endpoint, State: "offline", Bound: true, Holder: h, Tags: a.tags(d)})
		}
	}
	for _, r := range resets {
		if _, ok := owed[r.DeviceKey]; ok {
			d := deviceOfKey(r.DeviceKey)
			rows = append(rows, admin.DeviceRow{Serial: d.Serial, Endpoint: d.Endpoint, State: "offline", Reset: resetWord(r.Status), ResetError: r.Error})
		}
	}
	return rows, nil
}

func (a *API) tags(d auth.DeviceInfo) []string {
	if a.cfg.Tags == nil {
		return nil
	}
	return a.cfg.Tags(d)
}

// deviceOfKey is a device adb does not list, known by its key only.
func deviceOfKey(key string) auth.DeviceInfo {
	ep, serial := binding.SplitKey(key)
	return auth.DeviceInfo{Key: key, Endpoint: ep, Serial: serial}
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

// Pair issues a one-time pairing code for a device adb sees (bare serial
// or "endpoint/serial"); ttl 0 means the default. A device that owes a
// reset gets none: the code could not be redeemed. A device another
// channel holds gets none either (device_in_use, naming the holder)
// unless force: the code is then issued for when the phone is free again
// (the holder keeps it; redeeming it meanwhile is device_in_use).
func (a *API) Pair(ctx context.Context, serial string, ttl time.Duration, force bool) (string, error) {
	if err := checkDevice("pair", serial); err != nil {
		return "", err
	}
	code, err := a.pair(ctx, serial, ttl, force)
	return code, errorFor(err)
}

func (a *API) pair(ctx context.Context, serial string, ttl time.Duration, force bool) (string, error) {
	d, err := auth.FindDevice(a.cfg.Devices(), serial)
	if err != nil {
		return "", err
	}
	if err := a.checkHeld(ctx, "pair", serial, d.Key, force); err != nil {
		return "", err
	}
	a.waitReset(ctx, d.Key)
	resets, err := a.cfg.Bindings.Resets(ctx)
	if err != nil {
		return "", err
	}
	for _, r := range resets {
		if r.DeviceKey == d.Key {
			if r.Status == binding.ResetRunning {
				return "", binding.ErrResetting
			}
			return "", binding.ErrNeedsReset
		}
	}
	return a.cfg.Pairing.IssuePairingCode(ctx, d.Key, ttl)
}

// waitReset waits for the resets running on the device serial names, so
// an operation right after a release finds the device free.
func (a *API) waitReset(ctx context.Context, serial string) {
	if a.cfg.Resets != nil {
		a.cfg.Resets.Wait(ctx, serial)
	}
}

// Approve answers a device_request code (see auth.Requests.Approve),
// binding its channel to the device serial names ("" any free device); it
// returns the device key. A device another channel holds is refused
// (device_in_use, naming the holder) unless force, which revokes that
// binding first, as Unbind does; "no free online device" says how many
// are bound and how many of their holders are gone.
func (a *API) Approve(ctx context.Context, code, serial string, force bool) (string, error) {
	switch {
	case code == "":
		return "", invalid("approve needs a code")
	case len(code) > admin.MaxCodeLen:
		return "", invalid("code too long")
	case len(serial) > admin.MaxSerialLen:
		return "", invalid("serial too long")
	}
	if serial != "" {
		if d, err := auth.FindDevice(a.cfg.Devices(), serial); err == nil {
			if err := a.checkHeld(ctx, "approve", serial, d.Key, force); err != nil {
				return "", errorFor(err)
			}
			if force {
				if err := a.takeHeld(ctx, d.Key); err != nil {
					return "", errorFor(err)
				}
			}
		}
	}
	a.waitReset(ctx, serial)
	r, err := a.cfg.Requests.Approve(ctx, code, serial)
	if errors.Is(err, auth.ErrNoFreeDevice) {
		if rows, derr := a.devices(ctx); derr == nil {
			err = noFreeError(err, rows)
		}
	}
	return r.DeviceKey, errorFor(err)
}

// checkHeld refuses the device with this key when a channel holds it
// (heldError), unless force.
func (a *API) checkHeld(ctx context.Context, op, serial, key string, force bool) error {
	if force {
		return nil
	}
	bindings, err := a.cfg.Bindings.List(ctx)
	if err != nil {
		return err
	}
	holders, err := a.holders(ctx, bindings)
	if err != nil {
		return err
	}
	if h := holders[key]; h != nil {
		return heldError(op, serial, h, a.cfg.Now())
	}
	return nil
}

// takeHeld revokes the binding of the device with this key, if any (the
// release resets the phone, which the caller then waits for).
func (a *API) takeHeld(ctx context.Context, key string) error {
	if _, err := a.cfg.Bindings.Revoke(ctx, key); err != nil && !errors.Is(err, binding.ErrNotBound) {
		return err
	}
	// The release owes a reset; it starts here if the release's own
	// start has not yet, so waitReset finds it running and waits.
	if a.cfg.Resets != nil {
		a.cfg.Resets.Claim(key)
	}
	return nil
}

// Unbind revokes the binding of the device with this serial (bare or
// "endpoint/serial"), seen by adb or not; it returns the device key. The
// release resets the phone.
func (a *API) Unbind(ctx context.Context, serial string) (string, error) {
	if err := checkDevice("unbind", serial); err != nil {
		return "", err
	}
	key, err := a.unbind(ctx, serial)
	return key, errorFor(err)
}

func (a *API) unbind(ctx context.Context, serial string) (string, error) {
	bindings, err := a.cfg.Bindings.List(ctx)
	if err != nil {
		return "", err
	}
	var keys []auth.DeviceInfo
	for _, b := range bindings {
		if b.State == binding.Bound {
			keys = append(keys, deviceOfKey(b.DeviceKey))
		}
	}
	d, err := auth.FindDevice(keys, serial)
	if errors.Is(err, auth.ErrUnknownDevice) {
		return "", fmt.Errorf("unbind: %w", binding.ErrNotBound)
	}
	if err != nil {
		return "", err
	}
	if _, err := a.cfg.Bindings.Revoke(ctx, d.Key); err != nil {
		return "", err
	}
	return d.Key, nil
}

// ClearReset drops the reset the device with this serial owes: the
// operator says it is fit to hand out. It returns the device key.
func (a *API) ClearReset(ctx context.Context, serial string) (string, error) {
	if err := checkDevice("clear_reset", serial); err != nil {
		return "", err
	}
	r, err := a.owedReset(ctx, "clear reset", serial)
	if err == nil {
		err = a.cfg.Bindings.ClearReset(ctx, r.DeviceKey)
	}
	if err != nil {
		return "", errorFor(err)
	}
	return r.DeviceKey, nil
}

// Reset starts the reset the device with this serial owes (pending or
// failed) at once, rather than when the device next answers or at the
// next retry; it returns the device key without waiting for the outcome,
// which Devices and the audit trail show. A reset already running is
// binding.ErrResetting.
func (a *API) Reset(ctx context.Context, serial string) (string, error) {
	if err := checkDevice("reset", serial); err != nil {
		return "", err
	}
	r, err := a.owedReset(ctx, "reset", serial)
	if err == nil && r.Status == binding.ResetRunning {
		err = binding.ErrResetting
	}
	if err != nil {
		return "", errorFor(err)
	}
	if a.cfg.Resets != nil {
		a.cfg.Resets.RunOwed(r.DeviceKey)
	}
	return r.DeviceKey, nil
}

// owedReset is the reset the device with this serial owes;
// binding.ErrNoReset (with op) when it owes none.
func (a *API) owedReset(ctx context.Context, op, serial string) (binding.Reset, error) {
	resets, err := a.cfg.Bindings.Resets(ctx)
	if err != nil {
		return binding.Reset{}, err
	}
	keys := make([]auth.DeviceInfo, len(resets))
	for i, r := range resets {
		keys[i] = deviceOfKey(r.DeviceKey)
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
