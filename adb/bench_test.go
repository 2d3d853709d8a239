package adb

import (
	"context"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/adb/adbtest"
)

// Per-command overhead: Shell("true") through this package against the
// same command through the adb CLI, on one adbtest virtual phone, in the
// same run. `go test -run XXX -bench . ./adb/` prints both; the ratio is
// the CLI's ns/op over ours. Screencap: PNG (device encodes) vs raw.
func BenchmarkOverhead(b *testing.B) {
	env := adbtest.Start(b, adbtest.Options{Devices: 1})
	c, err := New(context.Background(), Config{NoTracking: true, Endpoints: []string{env.ServerAddr}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	serial := env.Devices[0].Serial()
	d, _ := c.Device(DeviceKey(env.ServerAddr, serial))
	ctx := context.Background()

	b.Run("Shell_true", func(b *testing.B) {
		for b.Loop() {
			if _, err := d.Shell(ctx, "true"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ExecOut_true", func(b *testing.B) {
		for b.Loop() {
			if _, err := d.ExecOut(ctx, "true"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("CLI_shell_true", func(b *testing.B) {
		for b.Loop() {
			if out, err := env.Adb("-s", serial, "shell", "true"); err != nil {
				b.Fatal(err, out)
			}
		}
	})
	b.Run("ScreencapPNG", func(b *testing.B) {
		for b.Loop() {
			if _, err := d.ScreencapPNG(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ScreencapRaw", func(b *testing.B) {
		for b.Loop() {
			if _, err := d.ScreencapRaw(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkTapEventsVsInput: Tap as input events on the touchscreen's node
// against Tap through `input` (Config.NoTouchEvents) and against the adb
// CLI's `adb shell input tap`, on one virtual phone under the pixel-usb
// timing profile (adbd's shell start per stream and a `cmd input` call per
// `input` on its SDK 33, the USB link), in the same run. The phone runs
// adb root: stock Android 10+ refuses the events, and Tap goes through
// `input` there. It reports each path's ms per tap and the events path's cost as a
// fraction of the other two (events/input, events/cli); the screen
// geometry the events path maps with is refreshed (`dumpsys input`) every
// 2 s, as in use (events-tap-warm: the fastest tap, without that query).
func BenchmarkTapEventsVsInput(b *testing.B) {
	env := adbtest.Start(b, adbtest.Options{Devices: 1, Profile: "pixel-usb", Rooted: true})
	serial := env.Devices[0].Serial()
	key := DeviceKey(env.ServerAddr, serial)
	dev := func(cfg Config) *Device {
		cfg.NoTracking, cfg.Endpoints = true, []string{env.ServerAddr}
		c, err := New(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { c.Close() })
		d, _ := c.Device(key)
		return d
	}
	events, input := dev(Config{}), dev(Config{NoTouchEvents: true})
	ctx := context.Background()
	// The first tap finds the panel, reads the screen and opens the stream.
	if err := events.Tap(ctx, 5, 5); err != nil {
		b.Fatal(err)
	}
	var tEv, tIn, tCLI time.Duration
	minEv := time.Hour
	for b.Loop() {
		t0 := time.Now()
		if err := events.Tap(ctx, 5, 5); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := input.Tap(ctx, 5, 5); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if out, err := env.Adb("-s", serial, "shell", "input", "tap", "5", "5"); err != nil {
			b.Fatal(err, out)
		}
		tEv, tIn, tCLI = tEv+t1.Sub(t0), tIn+t2.Sub(t1), tCLI+time.Since(t2)
		minEv = min(minEv, t1.Sub(t0))
	}
	n := float64(b.N)
	b.ReportMetric(float64(tEv.Microseconds())/1000/n, "ms/events-tap")
	b.ReportMetric(float64(minEv.Microseconds())/1000, "ms/events-tap-warm")
	b.ReportMetric(float64(tIn.Microseconds())/1000/n, "ms/input-tap")
	b.ReportMetric(float64(tCLI.Microseconds())/1000/n, "ms/cli-input-tap")
	b.ReportMetric(float64(tEv)/float64(tIn), "events/input")
	b.ReportMetric(float64(tEv)/float64(tCLI), "events/cli")
}

// BenchmarkSession compares short commands on the device's shell session
// with the same commands on streams of their own (the session held busy,
// so every command takes the fallback), on the pixel-usb profile: a
// flagship on a USB 2 cable, whose link charges every OPEN, WRTE, OKAY and
// CLSE. `go test -run XXX -bench Session ./adb/`; the ratio is fresh
// ns/op over session ns/op.
func BenchmarkSession(b *testing.B) {
	env := adbtest.Start(b, adbtest.Options{Devices: 1, Profile: "pixel-usb"})
	c, err := New(context.Background(), Config{NoTracking: true, Endpoints: []string{env.ServerAddr}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	d, _ := c.Device(DeviceKey(env.ServerAddr, env.Devices[0].Serial()))
	ctx := context.Background()
	ops := []struct {
		name string
		run  func() error
	}{
		{"Shell_true", func() error { _, err := d.Shell(ctx, "true"); return err }},
		{"Properties", func() error { _, err := d.Properties(ctx, true); return err }},
		{"Battery", func() error { _, err := d.Battery(ctx); return err }},
		{"Status", func() error { _, err := d.Status(ctx); return err }},
	}
	for _, op := range ops {
		b.Run(op.name+"/session", func(b *testing.B) {
			for b.Loop() {
				if err := op.run(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(op.name+"/fresh", func(b *testing.B) {
			d.sessBusy.Lock()
			defer d.sessBusy.Unlock()
			for b.Loop() {
				if err := op.run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
