package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/adb-connector/adb-connector/device"
	"github.com/adb-connector/adb-connector/device/policy"
	"github.com/adb-connector/adb-connector/device/tools"
)

// The config file (--config, env ADB_CONNECTOR_CONFIG): server settings
// that fill in the flags not given (a flag or environment variable given
// wins), and the tags and policies, which are reloaded on SIGHUP and when
// the file changes. Package policy reads and checks it.

// policyOptions are what a config file's names are checked against: every
// tool of the catalogue (a policy may name a tool this deployment's Card
// lacks) and android_shell.
func policyOptions() policy.Options {
	return policy.Options{ToolIDs: tools.IDs(tools.FullSet()), Settings: serveSettingKeys()}
}

// configFlags are serve's --config and --config-poll.
type configFlags struct {
	path *string
	poll *time.Duration
}

func registerConfigFlags(fs *flag.FlagSet) configFlags {
	return configFlags{
		path: fs.String("config", "", "YAML config `FILE`: server settings, device tags and policies (see deploy/adb-connector.example.yaml); flags and environment variables given win over it"),
		poll: fs.Duration("config-poll", policy.DefaultPollInterval, "how often the config file is checked for changes (a `DURATION`; 0: only on SIGHUP)"),
	}
}

// applyConfigFile loads the config file at path (none: nil) and sets
// every setting it gives that neither the command line nor its
// environment variable set (given), through the flag's own parser, so the
// file's values are checked as the flag's are. Every mistake of the file
// is reported, each with its line.
func applyConfigFile(fs *flag.FlagSet, names []string, given map[string]bool, path string) (*policy.Config, error) {
	if path == "" {
		return nil, nil
	}
	c, err := loadConfigFile(path)
	var settings map[string]policy.Setting
	if c != nil {
		settings = c.File.Settings
	} else if err == nil {
		return nil, nil
	}
	if err == nil {
		err = applyFile(fs, names, given, settings)
		if err == nil {
			return c, nil
		}
	}
	return nil, fmt.Errorf("config file %s:\n%w", path, err)
}

// loadConfigFile reads and checks the file at path: its policies, and its
// server settings' keys. A file with mistakes returns them all (joined
// *policy.Error values) and, when its settings could still be read, a
// Config holding them, so that their values are checked too.
func loadConfigFile(path string) (*policy.Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return policy.Parse(b, policyOptions())
}

// watchConfig reloads the config file on SIGHUP and when it changes, and
// has the Service re-push Descriptors whose tool set changed. Without a
// config file SIGHUP is still caught (and logged): `systemctl reload` must
// not stop the server. It returns the Reloader (whose Status the console
// shows); stop ends the watch and waits.
func watchConfig(ctx context.Context, o deviceOptions, holder *policy.Holder, svc *device.Service, log *slog.Logger) (r *policy.Reloader, stop func()) {
	r = &policy.Reloader{
		Path: o.ConfigPath, Holder: holder, Options: policyOptions(), Log: log,
		OnApply: func(_, _ *policy.Config) { svc.PolicyChanged() },
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		if o.ConfigPath == "" {
			for {
				select {
				case <-ctx.Done():
					return
				case <-hup:
					log.Warn("SIGHUP: no config file to reload (serve --config)")
				}
			}
		}
		if o.ConfigPoll > 0 {
			r.Run(ctx, o.ConfigPoll, hup)
			return
		}
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				_ = r.Reload()
			}
		}
	})
	return r, func() {
		signal.Stop(hup)
		cancel()
		wg.Wait()
	}
}

func init() {
	register("config", "check a config file: config check FILE", runConfig)
}

func runConfig(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("config", stdout, "config check FILE",
		"Checks a config file (YAML) as serve --config would, without starting anything: every mistake, each with its line.")
	pos, err := parseArgs(fs, args, stderr)
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 0 || pos[0] != "check":
		return usageError(fs, stderr, "missing the word check: adb-connector config check FILE")
	case len(pos) == 1:
		return usageError(fs, stderr, "missing FILE: adb-connector config check FILE")
	case len(pos) > 2:
		return usageError(fs, stderr, fmt.Sprintf("unexpected argument %q: one FILE at a time", pos[2]))
	}
	path := pos[1]
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	f, err := policy.Check(b, policyOptions())
	// The server settings' values, through serve's own flag parsers.
	sfs := flag.NewFlagSet("serve", flag.ContinueOnError)
	names := registerSettings(sfs, func(fs *flag.FlagSet) { registerServeFlagsOnly(fs) })
	if err = settingsLines(err, applyFile(sfs, names, map[string]bool{}, f.Settings)); err != nil {
		lines := strings.Split(err.Error(), "\n")
		for _, l := range lines {
			fmt.Fprintf(stderr, "%s: %s\n", path, l)
		}
		return fmt.Errorf("%s: %d mistake(s); fix them and run config check again", path, len(lines))
	}
	_, err = fmt.Fprintf(stdout, "%s: ok (%d server settings, %d tag rules, %d policy rules besides the default)\n",
		path, len(f.Settings), len(f.Tags), len(f.Policies.Rules))
	return err
}
