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
	"strconv"
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

const configEnv = "ADB_CONNECTOR_CONFIG"

// policyOptions are what a config file's names are checked against: every
// tool of the catalogue (a policy may name a tool this deployment's Card
// lacks) and android_shell.
func policyOptions() policy.Options {
	return policy.Options{ToolIDs: tools.IDs(tools.Set{Files: true, Shell: true})}
}

// configFlags are serve's --config and --config-poll.
type configFlags struct {
	path *string
	poll *time.Duration
}

func registerConfigFlags(fs *flag.FlagSet) configFlags {
	return configFlags{
		path: fs.String("config", envOr(configEnv, ""), "YAML config file: server settings, device tags and policies (env "+configEnv+"; see deploy/adb-connector.example.yaml). Flags and environment variables given win over it"),
		poll: fs.Duration("config-poll", policy.DefaultPollInterval, "how often the config file is checked for changes (0: only on SIGHUP)"),
	}
}

// applyConfigFile loads the file named by --config (none: nil) and sets
// every flag it gives that neither the command line nor its environment
// variable set, through the flag's own parser, so the file's values are
// checked as the flag's are.
func applyConfigFile(fs *flag.FlagSet, cf configFlags) (*policy.Config, error) {
	if *cf.path == "" {
		return nil, nil
	}
	c, err := policy.Load(*cf.path, policyOptions())
	if err != nil {
		return nil, fmt.Errorf("config file: %w", err)
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	f := c.File
	type setting struct {
		flag, env string
		values    []string // none: not in the file
	}
	dur := func(d policy.Duration) []string {
		if d == 0 {
			return nil
		}
		return []string{time.Duration(d).String()}
	}
	str := func(s string) []string {
		if s == "" {
			return nil
		}
		return []string{s}
	}
	num := func(n int64) []string {
		if n == 0 {
			return nil
		}
		return []string{strconv.FormatInt(n, 10)}
	}
	var virtual []string
	if f.VirtualDevices != nil {
		virtual = []string{strconv.Itoa(*f.VirtualDevices)}
	}
	apiEnv := "ADB_CONNECTOR_API_KEY_FILE"
	if os.Getenv("ADB_CONNECTOR_API_KEY") != "" {
		apiEnv = "ADB_CONNECTOR_API_KEY" // a key in the environment wins over a key file named by the file
	}
	for _, s := range []setting{
		{"listen", "ADB_CONNECTOR_LISTEN", str(f.Listen)},
		{"data-dir", dataDirEnv, str(f.DataDir)},
		{"api-key-file", apiEnv, str(f.APIKeyFile)},
		{"lease-grace", "ADB_CONNECTOR_LEASE_GRACE", dur(f.LeaseGrace)},
		{"log-level", "ADB_CONNECTOR_LOG_LEVEL", str(f.LogLevel)},
		{"drain-timeout", "", dur(f.DrainTimeout)},
		{"adb", "ADB_CONNECTOR_ADB", f.ADB},
		{"ssh-key", "", f.SSHKey},
		{"ssh-known-hosts", "", str(f.SSHKnownHosts)},
		{"virtual-devices", "ADB_CONNECTOR_VIRTUAL_DEVICES", virtual},
		{"virtual-scenario", "ADB_CONNECTOR_VIRTUAL_SCENARIO", str(f.VirtualScenario)},
		{"file-ttl", "", dur(f.FileTTL)},
		{"file-cap-bytes", "", num(f.FileCapBytes)},
		{"max-conns", "ADB_CONNECTOR_MAX_CONNS", num(int64(f.MaxConns))},
		{"max-conns-per-ip", "ADB_CONNECTOR_MAX_CONNS_PER_IP", num(int64(f.MaxConnsPerIP))},
	} {
		if len(s.values) == 0 || given[s.flag] || s.env != "" && os.Getenv(s.env) != "" {
			continue
		}
		for _, v := range s.values {
			if err := fs.Set(s.flag, v); err != nil {
				return nil, fmt.Errorf("config file %s: %s: %w", *cf.path, s.flag, err)
			}
		}
	}
	return c, nil
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
	if len(args) != 2 || args[0] != "check" {
		fmt.Fprintln(stderr, "usage: adb-connector config check FILE")
		fmt.Fprintln(stderr, "  Checks a config file (YAML) as serve --config would, without starting anything.")
		return errUsage
	}
	c, err := policy.Load(args[1], policyOptions())
	if err != nil {
		var pe *policy.Error
		if errors.As(err, &pe) {
			return err
		}
		return fmt.Errorf("config file: %w", err)
	}
	_, err = fmt.Fprintf(stdout, "%s: ok (%d tag rules, %d policy rules besides the default)\n",
		args[1], len(c.File.Tags), len(c.File.Policies.Rules))
	return err
}
