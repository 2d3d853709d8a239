package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/adb-connector/adb-connector/adb/emulator"
	"github.com/adb-connector/adb-connector/adb/emulator/android"
)

func init() {
	register("emulator", "run virtual Android devices for `adb connect`", runEmulator)
}

func runEmulator(args []string, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return emulatorMain(ctx, args, stdout, stderr)
}

// emulatorMain runs the devices until ctx ends. Once every device listens
// it prints one "127.0.0.1:PORT" line per device on stdout.
func emulatorMain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("emulator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: adb-connector emulator [--devices N] [--base-port P] [--scenario NAME|DIR] [--unauthorized] [-v]")
		fmt.Fprintln(stderr, "\nRuns virtual Android devices speaking the ADB wire protocol until interrupted.")
		fmt.Fprintln(stderr, "Prints one 127.0.0.1:PORT per device; then: adb connect 127.0.0.1:PORT")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	n := fs.Int("devices", 1, "number of virtual devices")
	base := fs.Int("base-port", 0, "device i listens on base-port+i (default: free ports)")
	scenario := fs.String("scenario", "launcher", "scenario name (launcher, login, list) or directory with scenario.json")
	unauth := fs.Bool("unauthorized", false, "start devices unauthorized (adb devices shows \"unauthorized\")")
	verbose := fs.Bool("v", false, "debug logs (commands are logged without their arguments)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 || *n < 1 || *base < 0 || *base > 0 && *base+*n-1 > 65535 {
		fs.Usage()
		return errUsage
	}
	if *base > 0 && *base <= 5585 && *base+*n-1 >= 5554 {
		return errors.New("emulator: ports 5554-5585 are scanned by the adb server for emulators; choose another --base-port")
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	devs := make([]*emulator.Device, 0, *n)
	defer func() {
		for _, d := range devs {
			d.Close()
		}
	}()
	for i := range *n {
		addr := "127.0.0.1:0"
		if *base > 0 {
			addr = fmt.Sprintf("127.0.0.1:%d", *base+i)
		}
		d, err := emulator.Start(ctx, emulator.Options{
			Addr:    addr,
			Android: android.Config{Serial: fmt.Sprintf("VIRT%08d", i+1), Scenario: *scenario},
			Logger:  log.With("device", i),

			Unauthorized: *unauth,
		})
		if err != nil {
			return err
		}
		devs = append(devs, d)
	}
	for _, d := range devs {
		if _, err := fmt.Fprintln(stdout, d.Addr()); err != nil {
			return err
		}
	}
	log.Info("virtual devices listening; stop with Ctrl-C", "devices", len(devs), "scenario", *scenario)
	<-ctx.Done()
	log.Info("stopping")
	return nil
}
