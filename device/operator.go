package device

import (
	"context"
	"fmt"
	"time"

	"github.com/adb-connector/adb-connector/device/auth"
	"github.com/adb-connector/adb-connector/device/imageproc"
	"github.com/adb-connector/adb-connector/device/redact"
	"github.com/adb-connector/adb-connector/device/tools"
)

// What the operator console (package device/console, wired by serve) reads
// beyond the admin socket's operations: who holds each device and until
// when, the battery, a thumbnail, the request codes waiting. Reads of the
// caches only, except Battery and Thumbnail, which ask the phone.

// Hold is a bound device as the operator sees it: the channel that holds
// it, since when, and when its lease ends.
type Hold struct {
	DeviceKey string
	ChannelID string
	Since     time.Time
	// LeaseEnds is when the binding ends unless a tool call renews it
	// (zero: its lease bounds nothing); LeaseReason says which bound
	// (ReasonIdle or ReasonMaxDuration).
	LeaseEnds   time.Time
	LeaseReason string
}

// Holds returns the bound devices with their leases, by device key.
func (s *Service) Holds() map[string]Hold {
	out := map[string]Hold{}
	for k, h := range s.leases.Holds() {
		out[k] = Hold{DeviceKey: h.DeviceKey, ChannelID: h.ChannelID, Since: h.Since, LeaseEnds: h.Ends, LeaseReason: h.Reason}
	}
	return out
}

// SerialHintOfKey is the redacted serial the audit trail stores for the
// device with this "endpoint/serial" key.
func SerialHintOfKey(key string) string { return redact.KeyHint(key) }

// batteryTimeout bounds the battery read of one device.
const batteryTimeout = 3 * time.Second

// Battery reads the battery level (percent) of the device with this key;
// it fails for a device adb does not list as online. Bounded by
// batteryTimeout.
func (s *Service) Battery(ctx context.Context, key string) (int, error) {
	d, err := s.cfg.ADB.Device(key)
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, batteryTimeout)
	defer cancel()
	b, err := d.Battery(ctx)
	if err != nil {
		return 0, err
	}
	return b.Percent(), nil
}

// ThumbnailSide is the longest side of a console thumbnail.
const ThumbnailSide = 320

// thumbnailQuality is the JPEG quality of a thumbnail: a glance, not a
// record.
const thumbnailQuality = 60

// Thumbnail captures the screen of the device with this key as a JPEG of
// at most ThumbnailSide pixels, through the tools' capture path
// (tools.CaptureImage). The bytes go to the caller only: nothing is
// stored. It fails for a device adb does not list as online.
func (s *Service) Thumbnail(ctx context.Context, key string) ([]byte, error) {
	d, err := s.cfg.ADB.Device(key)
	if err != nil {
		return nil, err
	}
	img, _, _, _, err := tools.CaptureImage(ctx, d, ThumbnailSide, imageproc.FormatJPEG, thumbnailQuality)
	if err != nil {
		return nil, fmt.Errorf("thumbnail %s: %w", redact.KeyHint(key), err)
	}
	return img, nil
}

// PendingRequests lists the device_request sessions waiting for an
// operator's approval, oldest first, with their codes when known.
func (s *Service) PendingRequests(ctx context.Context) ([]auth.Session, error) {
	return s.requests.Pending(ctx)
}
