package emulator

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/adb-connector/adb-connector/emulator/adbd"
	"github.com/adb-connector/adb-connector/emulator/android"
)

// Options configures one virtual device. The zero value is usable: a
// launcher-scenario phone on a free port of 127.0.0.1.
type Options struct {
	// Addr is the listen address. Default "127.0.0.1:0" (a free port).
	// Keep devices off ports 5554-5585 (the adb server scans them).
	Addr string
	// Android configures the device model (model, scenario, serialno,
	// timing profile...);
	// its zero value is android's default phone. Its Logger defaults to
	// Logger.
	Android android.Config
	// Unauthorized starts the device unauthorized (see SetUnauthorized).
	Unauthorized bool
	// Logger receives transport and command logs. Default: discard.
	Logger *slog.Logger
}

// Device is one running virtual device. Its methods are safe for
// concurrent use.
type Device struct {
	srv     *adbd.Server
	android *android.Device
}

// Start builds the android device and starts listening. ctx bounds the
// device's life (Close must still be called to wait for its goroutines).
func Start(ctx context.Context, opts Options) (*Device, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg := opts.Android
	if cfg.Logger == nil {
		cfg.Logger = log
	}
	dev, err := android.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("emulator: %w", err)
	}
	// The timing profile's link is the transport's to apply.
	srv, err := adbd.Listen(ctx, dev, adbd.Options{Addr: opts.Addr, Logger: log, Unauthorized: opts.Unauthorized, Link: dev.Profile().Link})
	if err != nil {
		return nil, fmt.Errorf("emulator: %w", err)
	}
	// A scenario's transfer fault is the transport's to inject.
	if f := dev.Scenario().Faults; f.OfflineAfterBytes > 0 {
		srv.DropDuringTransfer(f.OfflineAfterBytes, time.Duration(f.OfflineForMS)*time.Millisecond)
	}
	return &Device{srv: srv, android: dev}, nil
}

// Addr returns the listening address "127.0.0.1:PORT", for `adb connect`.
func (d *Device) Addr() string { return d.srv.Addr() }

// Serial returns the serial the adb server lists the device under once
// connected: its address "127.0.0.1:PORT".
func (d *Device) Serial() string { return d.srv.Addr() }

// Android returns the device model: command log (Commands, WaitCommand),
// command-level faults (SetLatency, FailNext, FailDumpNotIdle,
// HangCommands, ShowANR, SleepAndLock), files and UI state.
func (d *Device) Android() *android.Device { return d.android }

// Server returns the transport, e.g. for Accepted and Connections.
func (d *Device) Server() *adbd.Server { return d.srv }

// Close stops listening, drops every connection and waits for all
// goroutines, including running commands (their contexts are canceled).
// It is idempotent.
func (d *Device) Close() error { return d.srv.Close() }

// DropLink closes the current host connections now, as a pulled cable;
// the device keeps listening and adb 29 reconnects within about 0.3 s
// (showing "offline" meanwhile).
func (d *Device) DropLink() { d.srv.DropLink() }

// Vanish closes the listener and all connections and listens again on the
// same port after dur. adb 29 shows the device "offline" and reconnects by
// itself (retries about every 10 s); after about 60 s away the device is
// removed and needs `adb connect` again.
func (d *Device) Vanish(dur time.Duration) error { return d.srv.Vanish(dur) }

// SetUnauthorized switches unauthorized mode: on drops the link and the
// host then sees "unauthorized"; off accepts hosts waiting in AUTH (as the
// user tapping "Allow").
func (d *Device) SetUnauthorized(on bool) { d.srv.SetUnauthorized(on) }

// SetLatency adds lat to every later shell command (see android.Device).
func (d *Device) SetLatency(lat time.Duration) { d.android.SetLatency(lat) }

// FailNext makes the next n shell commands fail (see android.Device).
func (d *Device) FailNext(n int) { d.android.FailNext(n) }

// DropDuringTransfer makes the device go offline partway through the next
// file transfer, after that many bytes (see adbd.Server.DropDuringTransfer).
func (d *Device) DropDuringTransfer(after int64, away time.Duration) {
	d.srv.DropDuringTransfer(after, away)
}
