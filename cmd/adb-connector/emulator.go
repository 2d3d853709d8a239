package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/adb-connector/adb-connector/emulator/android"
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
	fs := newFlags("emulator", stdout, "emulator [--devices N] [--base-port PORT] [--scenario NAME|DIR] [--profile NAME] [--rooted] [--unauthorized] [-v]",
		"Runs virtual Android devices speaking the ADB wire protocol until interrupted.",
		"Prints one 127.0.0.1:PORT per device; then: adb connect 127.0.0.1:PORT")
	n := fs.Int("devices", 1, "`N`umber of virtual devices")
	base := fs.Int("base-port", 0, "device i listens on `PORT`+i (default: free ports)")
	scenario := fs.String("scenario", "launcher", "scenario `NAME` (launcher, login, list, photos) or directory with scenario.json")
	profile := fs.String("profile", android.DefaultProfile, "timing profile `NAME`: "+strings.Join(android.ProfileNames(), ", ")+" (what commands, captures and the link cost, as on a real phone)")
	rooted := fs.Bool("rooted", false, "run the devices' shell as root, as after adb root on a userdebug build (uid 0 in u:r:su:s0: touch events may be written on any SDK)")
	unauth := fs.Bool("unauthorized", false, "start devices unauthorized (adb devices shows \"unauthorized\")")
	verbose := fs.Bool("v", false, "debug logs (commands are logged without their arguments)")
	pos, err := parseArgs(fs, args, stderr)
	if err != nil {
		return err
	}
	if err := wantArgs(fs, stderr, pos); err != nil {
		return err
	}
	v := virtualDevices{N: *n, BasePort: *base, Scenario: *scenario, Unauthorized: *unauth, Profile: *profile, Rooted: *rooted}
	if *n < 1 {
		return usageError(fs, stderr, fmt.Sprintf("--devices %d: want 1 or more", *n))
	}
	if err := v.check(); err != nil {
		return fmt.Errorf("emulator: %w", err)
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	devs, err := v.start(ctx, log)
	if err != nil {
		return err
	}
	defer closeDevices(devs)
	for _, d := range devs {
		if _, err := fmt.Fprintln(stdout, d.Addr()); err != nil {
			return err
		}
	}
	log.Info("virtual devices listening; stop with Ctrl-C", "devices", len(devs), "scenario", *scenario, "profile", *profile)
	<-ctx.Done()
	log.Info("stopping")
	return nil
}
