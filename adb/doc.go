// Package adb is the connector's ADB layer: it talks to one or more adb
// servers (endpoints) with a small host-protocol client of its own (AOSP
// SERVICES.TXT, SYNC.TXT), tracks devices keyed "endpoint/serial", runs shell
// commands with exit codes and deadlines (shell v2, exec), moves files over
// the sync service, and offers typed Android operations (properties, screen,
// input, apps, screencap, UI dump, logcat) on a per-device handle. It knows
// nothing of xAgent.
//
// # Use
//
//	c, err := adb.New(ctx, adb.Config{Endpoints: []string{"127.0.0.1:5037"}, Logger: log})
//	defer c.Close()
//	for ev := range c.Watch(ctx) { ... }          // Appeared / StateChanged / Gone
//	d, _ := c.Device("127.0.0.1:5037/R58M123")
//	res, err := d.Shell(ctx, "pm", "list", "packages") // *ExitError on non-zero exit
//
// # Tracking
//
// Each endpoint is followed with host:track-devices-l and, because Debian's
// adb 29 does not push every change on that stream (a TCP device turning
// unauthorized), host:devices-l is also polled every 500 ms: changes are
// reported within a second. Offline and unauthorized devices are listed and
// reported, never dropped. When an adb server goes away its devices are
// reported StateChanged to offline with Event.ServerDown set (they stay in
// the list: the server may come back); the endpoint is retried with backoff
// (50 ms doubling to 1 s), and once it answers its list is re-reported:
// devices it lists change back to their state, devices it no longer lists
// are Gone. The Client never restarts a remote server; with
// Config.StartLocalServer it starts a missing local (loopback) one at New,
// and again, between those retries, whenever it goes down while tracked
// (logged at Warn once per outage, at Info once started). A restarted
// server knows no network device: those registered with KeepConnected are
// connected again whenever the list lacks them, with the same backoff.
//
// # Errors and deadlines
//
// Every blocking call takes a context; when it has no deadline the
// operation's default applies (DefaultShellTimeout 30 s, DefaultExecTimeout
// 60 s, DefaultQueryTimeout 15 s, DefaultInputTimeout 10 s,
// DefaultScreencapTimeout 15 s, DefaultUIDumpTimeout 20 s,
// DefaultLogcatTimeout 15 s, DefaultTransferTimeout 120 s; host queries
// 5-10 s, as each method says). A done context closes the connection at
// once (context.AfterFunc) and the error matches ErrTimeout (and
// context.DeadlineExceeded) or context.Canceled. Conditions to branch on are
// sentinels (ErrDeviceOffline, ErrUnauthorized, ErrDeviceNotFound, ErrBusy,
// ErrTimeout, ErrServerUnavailable, ErrNotExist, ...); a non-zero exit is an
// *ExitError carrying the code and stderr.
//
// # Concurrency
//
// Client and Device are safe for concurrent use. Per device, inputs (tap,
// swipe, text, key, launch, UI dump) run one at a time, reads overlap up to
// Limits.MaxReads, and callers beyond Limits.MaxQueue waiting get ErrBusy.
// Each command is one connection to the adb server (the host protocol does
// not reuse a transport connection after its service ends); the cost is
// about 1-2 ms against the adb CLI's 25-30 ms (bench_test.go). Short reads
// (properties, the status queries, Shell with a deadline of at most 30 s)
// go instead to one shell session kept open per device, a command at a
// time, with output and exit status kept exact by random markers
// (session.go); a busy session, a longer command, a session that fails or
// a device that went away fall back to a stream of the command's own.
// Client.Close and a device leaving close the sessions.
//
// # Touch
//
// Tap, DoubleTap, LongPress and Swipe are written as input events to the
// touchscreen's /dev/input node over one shell stream per device (`tee
// NODE`), found once with `getevent -lp`, where the shell may write it:
// Android 9 and earlier, adb root or a rooted phone. Stock Android 10+
// refuses the write (SELinux), and gestures go through `input` there.
// No stream, shell start or `cmd`/VM start per gesture as with `input`.
// Display points are mapped to the panel's axes with the
// screen's rotation (the latest ScreenInfo or UIDump, else `dumpsys input`,
// trusted for 2 s). Without a usable panel, with a node the shell may not
// write, or when the stream cannot be opened again, gestures go through
// `input` (kept per device until it goes away). Config.NoTouchEvents
// always uses `input`. Errors, deadlines and serialization are the same on
// both paths (touch.go).
//
// # Phone helper
//
// On Android 10 (SDK 29) and later, UI dumps, taps, swipes, keys (while it
// runs), text in any script and screenshots made to measure go first to a
// resident helper of ours (package helper's protocol; helper_run.go,
// helper_ops.go): pushed by content hash to /data/local/tmp, run with
// app_process on one shell v2 stream, stopped after Config.StreamIdle,
// retried with backoff after a failure. Every operation falls back to the
// stock commands; an action the helper took and never confirmed is an
// error, never played twice. Config.NoHelper and Device.SetHelper turn it
// off; HelperStatus and Client.HelperCounts report it.
//
// # gadb
//
// The known defects of gadb v0.1.0 (legacy shell without exit
// codes, partial output with a nil error, a package-global read deadline in
// seconds, no dial timeout, Push dropping bytes returned with io.EOF,
// DeviceList dropping offline devices, raw Unix modes in os.FileMode, no
// error for a missing directory). Every gadb entry point, including sync
// pull, forward and server version, dials without a timeout and cannot be
// cancelled, so this package implements those few host and sync requests
// itself and does not import gadb; each defect has a test here showing it
// is not passed on.
package adb
