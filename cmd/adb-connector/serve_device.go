package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device"
	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/audit"
	"github.com/adb-connector/adb-connector/device/operator"
	"github.com/adb-connector/adb-connector/device/policy"
	"github.com/adb-connector/adb-connector/device/tools"
	"github.com/adb-connector/adb-connector/emulator"
	"github.com/adb-connector/adb-connector/emulator/android"
	"github.com/adb-connector/adb-connector/files"
	"github.com/adb-connector/adb-connector/sshtunnel"
)

// deviceOptions are serve's device flags.
type deviceOptions struct {
	Endpoints endpointList
	SSH       sshOptions
	Virtual   virtualDevices
	FileTTL   time.Duration
	FileCap   int64
	// AuditRetention is how long audit rows are kept (audit.Writer).
	AuditRetention time.Duration
	// Policy is the config file's tags and policies (nil: no file), read
	// from ConfigPath and reloaded every ConfigPoll and on SIGHUP.
	Policy     *policy.Config
	ConfigPath string
	ConfigPoll time.Duration
	// onVirtual, when set (tests only), receives the virtual devices once
	// they are attached, so a test can drive their faults and read their
	// command logs.
	onVirtual func([]*emulator.Device)
	// lease, when set, is the Service's lease and reset policy
	// (device.ServiceConfig.Lease); nil: device.DefaultLeasePolicy.
	lease func(deviceKey string) device.LeasePolicy
	// onService, when set (tests only), receives the device Service once
	// it is built.
	onService func(*device.Service)
}

// endpointList is the repeatable --adb flag.
type endpointList struct {
	list []string
}

func (l *endpointList) String() string { return strings.Join(l.list, ",") }

func (l *endpointList) Set(v string) error {
	check := checkEndpoint
	if sshtunnel.IsSSH(v) {
		check = func(v string) error { _, err := sshtunnel.Parse(v); return err }
	}
	if err := check(v); err != nil {
		return err
	}
	l.list = append(l.list, v)
	return nil
}

// checkEndpoint accepts HOST:PORT with a non-empty host and a port in 1..65535.
func checkEndpoint(v string) error {
	i := strings.LastIndexByte(v, ':')
	if i <= 0 || i == len(v)-1 {
		return fmt.Errorf("adb server %q: want HOST:PORT", v)
	}
	if p, err := strconv.Atoi(v[i+1:]); err != nil || p < 1 || p > 65535 {
		return fmt.Errorf("adb server %q: bad port", v)
	}
	return nil
}

// registerDeviceFlags adds the device flags to fs; the options hold their
// values once fs is parsed.
func registerDeviceFlags(fs *flag.FlagSet) *deviceOptions {
	deviceOpts := &deviceOptions{AuditRetention: audit.DefaultRetention}
	fs.Var(&deviceOpts.Endpoints, "adb", "adb server `HOST:PORT` (unauthenticated: a trusted network only), or ssh://USER@HOST[:PORT][/ADB_HOST:ADB_PORT] reached through SSH; repeatable (default "+adb.DefaultEndpoint+", started if not running)")
	registerSSHFlags(fs, &deviceOpts.SSH)
	fs.IntVar(&deviceOpts.Virtual.N, "virtual-devices", 0, "start `N` virtual Android devices and attach them to the first adb server")
	fs.StringVar(&deviceOpts.Virtual.Scenario, "virtual-scenario", "launcher", "`SCENARIO` of the virtual devices: launcher, login, list, photos or a directory")
	fs.StringVar(&deviceOpts.Virtual.Profile, "virtual-profile", android.DefaultProfile, "timing `PROFILE` of the virtual devices: "+strings.Join(android.ProfileNames(), ", "))
	fs.DurationVar(&deviceOpts.FileTTL, "file-ttl", files.DefaultTTL, "how long screenshots stay downloadable (a `DURATION`)")
	fs.Int64Var(&deviceOpts.FileCap, "file-cap-bytes", files.DefaultMaxTotalBytes, "total size of cached files in `BYTES`; the oldest are evicted first")
	fs.Func("audit-retention", "how long audit rows are kept, a `DURATION` such as 90d or 720h; older ones are pruned daily (default 90d)",
		func(v string) (err error) {
			deviceOpts.AuditRetention, err = audit.ParseRetention(v)
			return err
		})
	return deviceOpts
}

// wireDevices builds the device layer in order: adb client, virtual
// phones, file store, the Profile (Service) and the tools over it, then, once
// the connector.Server exists (Mount), the download route, metrics, the
// Service's pushes to the Server and the admin socket.
func wireDevices(ctx context.Context, o deviceOptions, w *serveWiring) error {
	if o.Virtual.N < 0 || o.Virtual.N > 256 {
		return fmt.Errorf("--virtual-devices %d: want 0..256", o.Virtual.N)
	}
	if _, err := android.ProfileByName(o.Virtual.Profile); err != nil {
		return fmt.Errorf("--virtual-profile: %w", err)
	}
	if o.FileTTL <= 0 || o.FileCap <= 0 {
		return errors.New("--file-ttl and --file-cap-bytes must be positive")
	}
	endpoints := o.Endpoints.list
	if len(endpoints) == 0 {
		endpoints = []string{adb.DefaultEndpoint}
	}
	log := w.Log

	dialing, err := o.SSH.dialing(endpoints, log.With("component", "ssh"))
	if err != nil {
		return err
	}
	endpoints = dialing.Endpoints
	client, err := adb.New(ctx, adb.Config{Endpoints: endpoints, Dialers: dialing.Dialers, StartLocalServer: true, Logger: log.With("component", "adb")})
	if err != nil {
		dialing.close()
		return err
	}
	w.Stop = append(w.Stop, func() {
		client.Close()
		dialing.close()
	})

	if o.Virtual.N > 0 {
		// ctx ends with SIGTERM, before the drain: calls still running on
		// the phones need them until it is over, so their lifetime is the
		// Stop list's (which runs after the drain), not ctx's.
		devs, err := o.Virtual.start(context.WithoutCancel(ctx), log)
		if err != nil {
			return err
		}
		w.Stop = append(w.Stop, func() {
			dctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			for _, d := range devs {
				// Leave the adb server as we found it: no offline leftovers.
				_ = client.Disconnect(dctx, endpoints[0], d.Addr())
			}
			closeDevices(devs)
		})
		for _, d := range devs {
			// Kept, not just connected: an adb server that restarts knows no
			// network device, and these phones are ours to bring back.
			if err := client.KeepConnected(ctx, endpoints[0], d.Addr()); err != nil {
				return fmt.Errorf("attach virtual device %s to %s: %w", d.Addr(), endpoints[0], err)
			}
		}
		log.Info("virtual devices attached", "count", len(devs), "adb", endpoints[0], "scenario", o.Virtual.Scenario, "profile", o.Virtual.Profile)
		if o.onVirtual != nil {
			o.onVirtual(devs)
		}
	}

	fstore, err := files.Open(ctx, w.DB, files.Config{
		Dir: filepath.Join(w.DataDir, files.DefaultDirName), TTL: o.FileTTL, MaxTotalBytes: o.FileCap,
		Logger: log.With("component", "files"),
	})
	if err != nil {
		return err
	}
	w.Stop = append(w.Stop, func() { fstore.Close() })

	var holder *policy.Holder
	if o.ConfigPath != "" {
		holder = policy.NewHolder(o.Policy)
		log.Info("config file in force", "path", o.ConfigPath, "tag_rules", len(o.Policy.File.Tags),
			"policy_rules", len(o.Policy.File.Policies.Rules), "poll", o.ConfigPoll.String())
	}
	trail := audit.NewWriter(w.DB.Write, o.AuditRetention, nil)
	// The Descriptor lists the tools the Card has: both come from tcfg.
	tcfg := tools.Config{Files: fstore, DB: w.DB, Logger: log.With("component", "tools"),
		Audit: trail, Policy: holder, MaxRecordDuration: o.Policy.MaxRecordCap()}
	svc, err := device.NewService(ctx, device.ServiceConfig{
		DB: w.DB, Audit: trail, ADB: client, Files: fstore, Logger: log.With("component", "device"),
		ToolIDs: tools.IDs(tcfg.Set()), Policy: holder, Lease: o.lease,
	})
	if err != nil {
		return err
	}
	if o.onService != nil {
		o.onService(svc)
	}
	w.Stop = append(w.Stop, func() { svc.Close() })
	tcfg.Resolver = svc
	tcfg.Questions = svc.Questions()
	ts, err := tools.New(tcfg)
	if err != nil {
		return err
	}
	if err := ts.Register(w.Registry); err != nil {
		return err
	}
	w.Profile = svc

	w.Mount = append(w.Mount, func(srv *connector.Server) error {
		srv.Handle(files.RoutePattern, fstore.Handler())
		for _, c := range slices.Concat(fstore.Collectors(), ts.Collectors(), svc.Collectors()) {
			if err := srv.Registry().Register(c); err != nil {
				return fmt.Errorf("metrics: %w", err)
			}
		}
		svc.Start(srv)
		reloader, stopWatch := watchConfig(ctx, o, holder, svc, log.With("component", "config"))
		w.Stop = append(w.Stop, stopWatch)
		w.Operator = svc.Operator(operator.Serve{Settings: w.Settings, ConfigPath: o.ConfigPath, Reloader: reloader,
			Link: srv.ChannelLink})
		closeAdmin, err := admin.Serve(ctx, admin.SocketPath(w.DataDir), w.Operator,
			admin.Options{Log: log.With("component", "admin")})
		if err != nil {
			return fmt.Errorf("admin socket: %w", err)
		}
		w.Stop = append(w.Stop, func() { closeAdmin() })
		return nil
	})
	return nil
}
