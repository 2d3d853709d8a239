package adb

import (
	"context"
	"testing"

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
