package adb

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Device is the handle for one device, obtained from Client.Device. It
// caches the device's properties and holds its concurrency limits: inputs
// (tap, swipe, text, key, launch, ...) run one at a time, reads overlap up
// to Limits.MaxReads, and callers beyond Limits.MaxQueue get ErrBusy. Safe
// for concurrent use.
type Device struct {
	c        *Client
	key      string
	endpoint string
	serial   string
	lim      *limiter

	mu    sync.Mutex
	props map[string]string // cached getprop output; nil until loaded
	geo   ScreenInfo        // the latest ScreenInfo, read at geoAt (zero: none)
	geoAt time.Time
	// geoSeq is ActionSeq before geo was read: while it has not moved,
	// no action of ours can have rotated or resized the screen.
	geoSeq uint64

	touch touchState // the touch event path (touch.go)

	helper     helperState                  // the resident phone helper (helper_run.go)
	helperTid  atomic.Int64                 // transport of the helper's last stream
	helperSnap atomic.Pointer[HelperStatus] // HelperStatus, as of the last helper operation

	capMu sync.Mutex
	cap   captureState // how screenshots are taken (capture.go)

	// sessBusy is held by the one command running on the shell session
	// (session.go); smu guards sess, the open session or nil, and
	// noSession, set once a new session's first command timed out.
	actions atomic.Uint64 // ActionSeq

	sessBusy  sync.Mutex
	smu       sync.Mutex
	sess      *shellSession
	noSession bool
}

// Key returns "endpoint/serial".
func (d *Device) Key() string { return d.key }

// Serial returns the serial as the adb server knows it.
func (d *Device) Serial() string { return d.serial }

// Endpoint returns the adb server address.
func (d *Device) Endpoint() string { return d.endpoint }

// ActionSeq counts the operations started on this handle that may change
// what the phone shows: inputs (tap, swipe, text, keys), app start and
// stop, resets, and every Shell command; a UI dump or any other read does
// not count. Each is counted before it runs, so a caller that read the
// phone's screen while ActionSeq stayed the same read it with no action of
// this handle in between (the phone may still change on its own). Safe for
// concurrent use.
func (d *Device) ActionSeq() uint64 { return d.actions.Load() }

// Info returns the device's current listing. Default timeout 5 s.
func (d *Device) Info(ctx context.Context) (DeviceInfo, error) {
	return d.c.DeviceInfo(ctx, d.key)
}

// open connects to the device's transport and opens service.
func (d *Device) open(ctx context.Context, service string) (*hostConn, error) {
	if d.c.isClosed() {
		return nil, ErrClosed
	}
	hc, err := d.c.openService(ctx, d.endpoint, d.serial, service)
	if err != nil {
		return nil, &DeviceError{Key: d.key, Op: "open", Err: err}
	}
	return hc, nil
}

func (d *Device) resetCache() {
	d.mu.Lock()
	d.props = nil
	d.geo, d.geoAt = ScreenInfo{}, time.Time{}
	d.mu.Unlock()
	d.capMu.Lock()
	d.cap = captureState{pinned: d.cap.pinned}
	d.capMu.Unlock()
}
