package operator

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/audit"
	"github.com/adb-connector/adb-connector/device/imageproc"
	"github.com/adb-connector/adb-connector/device/redact"
	"github.com/adb-connector/adb-connector/device/tools"
)

// What the console reads beyond Devices: who holds each device and until
// when, the battery, a thumbnail, the request codes waiting, the audit
// trail and the policy. Reads of the caches and the database, except the
// battery and the thumbnail, which ask the phone.

// Device is one device as the console shows it. Devices are named by Key
// ("endpoint/serial"), which every operation accepts.
type Device struct {
	admin.DeviceRow
	Key string
	// Hint is the redacted serial the audit trail stores.
	Hint string
	// Title is "<model> (<hint>)", the model as last seen online, so a
	// card keeps its name when the phone goes offline.
	Title string
	// Status is StatusOf the row; Fix what to do about its adb state
	// (StateFix, "" when online).
	Status, Fix string
	// Battery is the level in percent; -1 when unknown.
	Battery int
	// Helper says whether the phone helper runs, its version, and why
	// not ("" when unknown or offline).
	Helper string
}

// Overview is Devices with each device's holder, lease and battery (read
// at most every batteryTTL, 8 phones at a time).
func (a *API) Overview(ctx context.Context) ([]Device, error) {
	rows, err := a.Devices(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Device, len(rows))
	var g errgroup.Group
	g.SetLimit(8)
	for i, r := range rows {
		key := adb.DeviceKey(r.Endpoint, r.Serial)
		out[i] = Device{DeviceRow: r, Key: key, Hint: redact.KeyHint(key), Title: redact.DisplayName(a.modelOf(key, r.Model), r.Serial),
			Status: StatusOf(r), Fix: StateFix(r.State), Battery: -1}
		if adb.State(r.State) == adb.StateDevice {
			if d, err := a.cfg.ADB.Device(key); err == nil {
				out[i].Helper = d.HelperStatus().Summary()
			}
			g.Go(func() error { out[i].Battery = a.batteryOf(ctx, key); return nil })
		}
	}
	g.Wait()
	return out, nil
}

// maxModels bounds the models remembered for titles: a lab's phones, with
// room for the ones that came and went.
const maxModels = 4096

// modelOf remembers the model of a device seen online, and returns it
// when the device reports none (offline, or adb does not list it).
func (a *API) modelOf(key, model string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if model == "" {
		return a.models[key]
	}
	if _, ok := a.models[key]; !ok && len(a.models) >= maxModels {
		clear(a.models)
	}
	a.models[key] = model
	return model
}

// batteryTTL is how long a battery level is reused: the console refreshes
// every 2 s, a battery does not move that fast.
const batteryTTL = 30 * time.Second

// batteryTimeout bounds the battery read of one device.
const batteryTimeout = 3 * time.Second

type batteryRead struct {
	level int // -1: unreadable
	at    time.Time
}

// batteryOf is the device's battery level, read at most every batteryTTL.
func (a *API) batteryOf(ctx context.Context, key string) int {
	now := a.cfg.Now()
	a.mu.Lock()
	b, ok := a.battery[key]
	a.mu.Unlock()
	if ok && now.Sub(b.at) < batteryTTL {
		return b.level
	}
	level := -1
	if d, err := a.cfg.ADB.Device(key); err == nil {
		bctx, cancel := context.WithTimeout(ctx, batteryTimeout)
		if b, err := d.Battery(bctx); err == nil {
			level = b.Percent()
		}
		cancel()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, v := range a.battery { // devices come and go
		if now.Sub(v.at) >= batteryTTL {
			delete(a.battery, k)
		}
	}
	a.battery[key] = batteryRead{level, now}
	return level
}

// Request is a device_request session waiting for an operator.
type Request struct {
	Code      string // "" when this process does not know it (after a restart)
	ChannelID string
	ExpiresAt time.Time
}

// Requests lists the device_request sessions waiting for approval, oldest
// first.
func (a *API) Requests(ctx context.Context) ([]Request, error) {
	ss, err := a.cfg.Requests.Pending(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Request, len(ss))
	for i, s := range ss {
		out[i] = Request{Code: s.Code, ChannelID: s.ChannelID, ExpiresAt: s.ExpiresAt}
	}
	return out, nil
}

// ThumbnailSide is the longest side of a thumbnail.
const ThumbnailSide = 320

// thumbnailQuality is the JPEG quality of a thumbnail: a glance, not a
// record.
const thumbnailQuality = 60

// Thumbnail captures the screen of the device with this key as a JPEG of
// at most ThumbnailSide pixels, through the tools' capture path
// (tools.CaptureImage). The bytes go to the caller only: nothing is
// stored. It fails for a device adb does not list as online.
func (a *API) Thumbnail(ctx context.Context, key string) ([]byte, error) {
	if err := checkDevice("thumbnail", key); err != nil {
		return nil, err
	}
	d, err := a.cfg.ADB.Device(key)
	if err != nil {
		return nil, err
	}
	img, _, _, _, err := tools.CaptureImage(ctx, d, ThumbnailSide, imageproc.FormatJPEG, thumbnailQuality)
	if err != nil {
		return nil, fmt.Errorf("thumbnail %s: %w", redact.KeyHint(key), err)
	}
	return img, nil
}

// Audit reads the audit trail as f selects it (audit.Filter, the field
// names of `adb-connector audit` without their dashes): newest first, or
// oldest first after f.AfterID. A filter it cannot read is
// invalid_argument, saying what is wanted.
func (a *API) Audit(ctx context.Context, f audit.Filter) ([]audit.Record, error) {
	q, err := f.Query(a.cfg.Now(), func(field string) string { return field })
	if err != nil {
		return nil, &admin.Error{Code: admin.CodeInvalidArgument, Message: err.Error()}
	}
	return audit.Read(ctx, a.cfg.DB.Read, q)
}

// Policy is the configuration in force and how its last reload went.
type Policy struct {
	// Settings are serve's settings in force (no secret: a key is "set").
	Settings []Setting
	// ConfigPath is the config file ("" none); YAML what of it is in force.
	ConfigPath string
	YAML       string
	// AppliedAt is when the file was last applied; Error why the last
	// reload was refused (since ErrorAt), "" when it was not.
	AppliedAt time.Time
	Error     string
	ErrorAt   time.Time
}

// Policy returns the configuration in force and how its last reload went.
func (a *API) Policy(context.Context) Policy {
	p := Policy{Settings: a.cfg.Settings, ConfigPath: a.cfg.ConfigPath}
	if y, err := a.cfg.Policy.Current().YAML(); err == nil {
		p.YAML = y
	} else {
		p.Error = err.Error()
	}
	if a.cfg.Reloader != nil && a.cfg.ConfigPath != "" {
		st := a.cfg.Reloader.Status()
		p.AppliedAt = st.AppliedAt
		if st.Error != "" {
			p.Error, p.ErrorAt = st.Error, st.ErrorAt
		}
	}
	return p
}
