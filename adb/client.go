package adb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"slices"
	"strings"
	"sync"
	"time"
)

// Config configures a Client. The zero value talks to the local adb server
// at 127.0.0.1:5037.
type Config struct {
	// Endpoints are adb servers as "host:port", or names of Dialers
	// entries. Default [DefaultEndpoint].
	Endpoints []string
	// Dialers open the connections of the endpoints they name, instead of
	// TCP to a "host:port" (e.g. channels of an SSH connection to a lab
	// host, whose adb server listens on its loopback only). Such an
	// endpoint is a name: device keys are "NAME/SERIAL", so it holds no
	// "/"; it is never normalized and never started locally. A failed
	// dial is tracking's "server down", retried with its backoff. The
	// connections should be sockets (syscall.Conn): an idle session is
	// checked with a non-blocking peek, and deadlines are set on them.
	// Default: none.
	Dialers map[string]DialFunc
	// StartLocalServer starts the adb server of a loopback endpoint that does
	// not answer (`adb -P PORT start-server`): at New, and again whenever
	// tracking finds it down (with tracking's backoff). Default false.
	StartLocalServer bool
	// ADBPath is the adb binary used to start a local server. Default "adb"
	// looked up on PATH.
	ADBPath string
	// Logger receives Debug/Info/Warn records. Default: discard.
	Logger *slog.Logger
	// DialTimeout bounds connecting to an adb server. Default 3 s.
	DialTimeout time.Duration
	// Limits bounds concurrent work per device. Zero fields take defaults.
	Limits Limits
	// NoTracking disables the host:track-devices-l watchers (Watch then
	// yields nothing). Default false: tracking runs from New until Close.
	NoTracking bool
	// NoTouchEvents sends every tap, long press and swipe with the
	// `input` command. Default false: they are written as input events to
	// the touchscreen's /dev/input node over one open stream per device,
	// with `input` where that is not possible (touch.go).
	NoTouchEvents bool
	// NoHelper never starts the resident phone helper (helper_run.go):
	// every operation takes the stock commands. Default false: the helper
	// runs where it can, per device unless Device.SetHelper turned it off.
	NoHelper bool
	// StreamIdle is how long a device's open streams (the shell session,
	// the touch stream) stay open unused before they are closed: a shelf
	// of idle phones then holds no stream, FD or goroutine for them, and
	// the next use opens them again (one stream open, a few ms). Default
	// DefaultStreamIdle; negative: kept until the device goes away.
	StreamIdle time.Duration
}

// DialFunc opens one connection to an adb server; ctx bounds the dial
// (Config.DialTimeout), not the connection's life.
type DialFunc func(ctx context.Context) (net.Conn, error)

// DefaultStreamIdle is Config.StreamIdle's default: longer than an
// agent's pause between two steps, so a working phone keeps its streams.
const DefaultStreamIdle = 60 * time.Second

// streamIdle is the configured idle time (<= 0: never closed).
func (c *Client) streamIdle() time.Duration {
	if c.cfg.StreamIdle == 0 {
		return DefaultStreamIdle
	}
	return c.cfg.StreamIdle
}

// idleTimer calls expire once idle has passed since its last arm; a
// nil *idleTimer (idle <= 0) does nothing. expire returns false when the
// stream is in use: it is then asked again after another idle period.
type idleTimer struct {
	t    *time.Timer
	idle time.Duration
}

func newIdleTimer(idle time.Duration, expire func() bool) *idleTimer {
	if idle <= 0 {
		return nil
	}
	it := &idleTimer{idle: idle}
	// Created stopped and assigned before it can fire, so expire's
	// re-arm sees it.
	it.t = time.AfterFunc(time.Hour, func() {
		if !expire() {
			it.t.Reset(idle)
		}
	})
	it.t.Stop()
	return it
}

// arm starts the idle period again.
func (it *idleTimer) arm() {
	if it != nil {
		it.t.Reset(it.idle)
	}
}

// stop ends the timer (the stream closed).
func (it *idleTimer) stop() {
	if it != nil {
		it.t.Stop()
	}
}

// Client talks to one or more adb servers. It is safe for concurrent use.
// Close stops tracking and waits for its goroutines.
type Client struct {
	cfg          Config
	helperCounts helperCounters
	helperCfg    helperConfig
	log          *slog.Logger
	endpoints    []string

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	closed  bool
	devices map[string]*Device // handles by key
	tracker *tracker
	// keep lists the network devices to keep connected, by endpoint and
	// serial (KeepConnected); reattaching marks endpoints with a re-attach
	// round running.
	keep        map[string]map[string]*keptDevice
	reattaching map[string]bool
	// attachMu orders a re-attach's connect against unkeep.
	attachMu sync.Mutex
}

// New checks the configuration, starts local adb servers when asked, and
// starts device tracking. A remote endpoint that does not answer is not an
// error: tracking retries it with backoff.
func New(ctx context.Context, cfg Config) (*Client, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = defaultDialTimeout
	}
	cfg.Limits = cfg.Limits.withDefaults()
	eps := cfg.Endpoints
	if len(eps) == 0 {
		eps = []string{DefaultEndpoint}
	}
	c := &Client{cfg: cfg, log: cfg.Logger, devices: map[string]*Device{}, helperCfg: defaultHelperConfig(),
		keep: map[string]map[string]*keptDevice{}, reattaching: map[string]bool{}}
	seen := map[string]bool{}
	for _, ep := range eps {
		n, err := normalizeEndpoint(ep)
		if cfg.Dialers[ep] != nil {
			n, err = ep, checkEndpointName(ep)
		}
		if err != nil {
			return nil, err
		}
		if !seen[n] {
			seen[n] = true
			c.endpoints = append(c.endpoints, n)
		}
	}
	if cfg.StartLocalServer {
		for _, ep := range c.endpoints {
			if c.startable(ep) {
				if err := c.ensureLocalServer(ctx, ep); err != nil {
					return nil, err
				}
			}
		}
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.tracker = newTracker(c)
	if !cfg.NoTracking {
		for _, ep := range c.endpoints {
			c.wg.Add(1)
			go func() {
				defer c.wg.Done()
				c.tracker.run(c.ctx, ep)
			}()
		}
	}
	return c, nil
}

// Endpoints returns the normalized adb server addresses.
func (c *Client) Endpoints() []string { return slices.Clone(c.endpoints) }

// Close stops tracking, closes every watcher channel and waits for the
// Client's goroutines. It is idempotent.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	devs := slices.Collect(maps.Values(c.devices))
	c.mu.Unlock()
	c.closeHelpers(devs)
	c.cancel()
	for _, d := range devs {
		d.closeTouch()
		d.closeSession()
	}
	c.wg.Wait()
	c.tracker.closeWatchers()
	return nil
}

func (c *Client) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// Devices lists the devices of every endpoint (host:devices-l), offline and
// unauthorized ones included, sorted by key. When some endpoints fail it
// returns the devices of the others together with an error naming the
// failed endpoints (errors.Is ErrServerUnavailable). Default timeout: 5 s.
func (c *Client) Devices(ctx context.Context) ([]DeviceInfo, error) {
	if c.isClosed() {
		return nil, ErrClosed
	}
	ctx, cancel := withDefaultTimeout(ctx, 5*time.Second)
	defer cancel()
	type res struct {
		list []DeviceInfo
		err  error
	}
	results := make([]res, len(c.endpoints))
	var wg sync.WaitGroup
	for i, ep := range c.endpoints {
		wg.Go(func() {
			list, err := c.endpointDevices(ctx, ep)
			results[i] = res{list, err}
		})
	}
	wg.Wait()
	var all []DeviceInfo
	var errs []error
	for _, r := range results {
		all = append(all, r.list...)
		if r.err != nil {
			errs = append(errs, r.err)
		}
	}
	slices.SortFunc(all, func(a, b DeviceInfo) int { return strings.Compare(a.Key, b.Key) })
	return all, errors.Join(errs...)
}

func (c *Client) endpointDevices(ctx context.Context, ep string) ([]DeviceInfo, error) {
	s, err := c.hostQuery(ctx, ep, "host:devices-l")
	if err != nil {
		return nil, fmt.Errorf("devices %s: %w", ep, err)
	}
	list, err := parseDeviceList(ep, s)
	if err != nil {
		return nil, fmt.Errorf("devices %s: %w", ep, err)
	}
	return list, nil
}

// DeviceInfo returns the current listing of one device. Default timeout 5 s.
func (c *Client) DeviceInfo(ctx context.Context, key string) (DeviceInfo, error) {
	ep, _, err := SplitKey(key)
	if err != nil {
		return DeviceInfo{}, err
	}
	ctx, cancel := withDefaultTimeout(ctx, 5*time.Second)
	defer cancel()
	list, err := c.endpointDevices(ctx, ep)
	if err != nil {
		return DeviceInfo{}, err
	}
	for _, d := range list {
		if d.Key == key {
			return d, nil
		}
	}
	return DeviceInfo{}, &DeviceError{Key: key, Op: "device info", Err: ErrDeviceNotFound}
}

// Device returns the handle for key (the same handle for the same key). The
// handle caches properties and holds the device's concurrency limits. It
// does not check that the device exists; operations do.
func (c *Client) Device(key string) (*Device, error) {
	ep, serial, err := SplitKey(key)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(c.endpoints, ep) {
		return nil, &DeviceError{Key: key, Op: "device", Err: fmt.Errorf("%w: unknown adb server", ErrDeviceNotFound)}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	d := c.devices[key]
	if d == nil {
		d = &Device{c: c, key: key, endpoint: ep, serial: serial, lim: newLimiter(c.cfg.Limits)}
		c.devices[key] = d
	}
	return d, nil
}

// forget drops the cached handle state of a device that went away, so a
// device plugged again starts with fresh properties and a new shell
// session.
func (c *Client) forget(key string) {
	c.mu.Lock()
	d := c.devices[key]
	c.mu.Unlock()
	if d != nil {
		d.resetCache()
		d.resetTouch()
		d.resetHelper()
		d.closeSession()
	}
}
