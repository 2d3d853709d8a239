package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/adb-connector/adb-connector/emulator"
	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/emulator/phonefw"
)

// virtualDevices describes a set of virtual Android devices, as both
// `emulator` and `serve --virtual-devices` start them.
type virtualDevices struct {
	N            int
	BasePort     int // device i listens on BasePort+i; 0: free ports
	Scenario     string
	Unauthorized bool
	// Profile is the timing profile ("" = instant).
	Profile string
	// Rooted runs the devices' shell as root, as after `adb root` on a
	// userdebug build (android.Config.Rooted).
	Rooted bool
}

func (v virtualDevices) check() error {
	if _, err := android.ProfileByName(v.Profile); err != nil {
		return err
	}
	if v.N < 0 || v.BasePort < 0 || v.BasePort > 0 && v.BasePort+v.N-1 > 65535 {
		return errors.New("virtual devices: bad count or base port")
	}
	if v.BasePort > 0 && v.BasePort <= 5585 && v.BasePort+v.N-1 >= 5554 {
		return errors.New("ports 5554-5585 are scanned by the adb server for emulators; choose another base port")
	}
	return nil
}

// start starts the devices (serials VIRT00000001, ...). On error it closes
// the ones already started. The caller closes the rest.
func (v virtualDevices) start(ctx context.Context, log *slog.Logger) ([]*emulator.Device, error) {
	if err := v.check(); err != nil {
		return nil, err
	}
	devs := make([]*emulator.Device, 0, v.N)
	for i := range v.N {
		addr := "127.0.0.1:0"
		if v.BasePort > 0 {
			addr = fmt.Sprintf("127.0.0.1:%d", v.BasePort+i)
		}
		d, err := emulator.Start(ctx, emulator.Options{
			Addr:         addr,
			Android:      android.Config{Serial: fmt.Sprintf("VIRT%08d", i+1), Scenario: v.Scenario, Profile: v.Profile, Rooted: v.Rooted},
			Logger:       log.With("virtual_device", i+1),
			Unauthorized: v.Unauthorized,
		})
		if err != nil {
			closeDevices(devs)
			return nil, fmt.Errorf("virtual device %d: %w", i+1, err)
		}
		// The phone helper runs on this host's JVM when it has one (java,
		// enjarify); without, app_process aborts as on a phone where the
		// helper cannot start.
		d.Android().SetAppProcess(phonefw.Run)
		devs = append(devs, d)
	}
	return devs, nil
}

func closeDevices(devs []*emulator.Device) {
	for _, d := range devs {
		d.Close()
	}
}
