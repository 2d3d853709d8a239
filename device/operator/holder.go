package operator

import (
	"context"
	"fmt"
	"time"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/device/admin"
	"github.com/adb-connector/adb-connector/device/audit"
	"github.com/adb-connector/adb-connector/device/binding"
	"github.com/adb-connector/adb-connector/device/lease"
	"github.com/adb-connector/adb-connector/device/redact"
)

// Who holds a phone, for an operator deciding whether to take it back:
// the channel's short label, whether its xAgent connection is up, since
// when it holds the phone, the lease left and its last tool call.

// holders returns the holder of every bound device, by device key.
func (a *API) holders(ctx context.Context, bindings []binding.Binding) (map[string]*admin.Holder, error) {
	var holds map[string]lease.Hold
	if a.cfg.Leases != nil {
		holds = a.cfg.Leases.Holds()
	}
	out := map[string]*admin.Holder{}
	for _, b := range bindings {
		if b.State != binding.Bound {
			continue
		}
		h := &admin.Holder{Channel: redact.ChannelLabel(b.ChannelID), ChannelID: b.ChannelID, BoundSince: b.CreatedAt}
		if a.cfg.Link != nil {
			h.Connected, h.LinkSince, _ = a.cfg.Link(b.ChannelID)
		}
		if l, ok := holds[b.DeviceKey]; ok && l.ChannelID == b.ChannelID {
			h.LeaseEnds, h.LeaseReason = l.Ends, l.Reason
		}
		if a.cfg.DB != nil {
			// The channel's index serves it: one row per bound phone.
			recs, err := audit.Read(ctx, a.cfg.DB.Read, audit.Query{ChannelID: b.ChannelID,
				DeviceHint: redact.KeyHint(b.DeviceKey), Since: b.CreatedAt, Limit: 1})
			if err != nil {
				return nil, err
			}
			if len(recs) == 1 {
				h.LastTool, h.LastCallAt, h.LastOutcome = recs[0].ToolID, recs[0].At, recs[0].Outcome
			}
		}
		out[b.DeviceKey] = h
	}
	return out, nil
}

// Device statuses, as the console counts and filters them.
const (
	StatusFree      = "free"
	StatusInUse     = "in-use"
	StatusAttention = "attention"
)

// StatusOf is what a device needs from an operator: attention when it is
// not online, owes a reset that failed, or is held by a channel whose
// xAgent connection is gone (nobody is using it, nobody else can);
// in-use when a channel holds it or a reset runs; free otherwise.
func StatusOf(r admin.DeviceRow) string {
	switch {
	case adb.State(r.State) != adb.StateDevice, r.Reset == admin.ResetNeeded,
		r.Holder != nil && !r.Holder.Connected:
		return StatusAttention
	case r.Bound, r.Reset != "":
		return StatusInUse
	}
	return StatusFree
}

// Counts are the devices by StatusOf.
type Counts struct{ Free, InUse, Attention int }

// CountsOf counts rows by StatusOf.
func CountsOf(rows []admin.DeviceRow) Counts {
	var c Counts
	for _, r := range rows {
		switch StatusOf(r) {
		case StatusFree:
			c.Free++
		case StatusInUse:
			c.InUse++
		default:
			c.Attention++
		}
	}
	return c
}

// StateFix is what to do about a phone in adb state st, the doctor's
// words; "" for an online phone. A phone without permissions gets the
// doctor's udev advice, which needs the host: here the generic part.
func StateFix(st string) string {
	switch adb.State(st) {
	case adb.StateDevice:
		return ""
	case adb.StateUnauthorized:
		return "unlock the phone and accept \"Allow USB debugging\" (adb reconnect offline shows the prompt again)"
	case adb.StateNoPermissions:
		return "the adb server may not open the USB device: install the udev rules (adb-connector doctor says which)"
	case adb.StateOffline:
		return "replug the cable, or run adb -P PORT reconnect offline; for a TCP phone, adb connect again"
	case adb.StateAuthorizing, adb.StateConnecting:
		return "wait a few seconds and run doctor again; if it stays, replug"
	}
	return "reboot the phone into Android (adb -s SERIAL reboot)"
}

// heldError refuses a device another channel holds, saying who and what
// to do: the one refusal of pair and approve without force.
func heldError(op, serial string, h *admin.Holder, now time.Time) error {
	next := "free it with `adb-connector unbind " + serial + "`, or pass --force to take it over"
	if op == "pair" {
		next = "a code works once it is free (`adb-connector unbind " + serial + "`); pass --force to issue one anyway"
	}
	return &admin.Error{Code: admin.CodeDeviceInUse, Err: binding.ErrDeviceInUse, Message: fmt.Sprintf(
		"%s: %s is held by channel %s (%s); %s", op, serial, h.Channel, LinkWords(h, now), next)}
}

// LinkWords says how a holder's xAgent connection is: "connected",
// "connected 5m" (since), "disconnected 2h10m ago" or "disconnected".
func LinkWords(h *admin.Holder, now time.Time) string {
	switch {
	case h.Connected && h.LinkSince.IsZero():
		return "connected"
	case h.Connected:
		return "connected " + Round(now.Sub(h.LinkSince))
	case h.LinkSince.IsZero():
		return "disconnected"
	}
	return "disconnected " + Round(now.Sub(h.LinkSince)) + " ago"
}

// Round is a duration as operators read it: 42s, 5m03s, 2h10m.
func Round(d time.Duration) string {
	d = max(d, 0)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

// noFreeError is auth.ErrNoFreeDevice with what an operator needs to
// free one: how many are bound, how many of their holders are gone.
func noFreeError(err error, rows []admin.DeviceRow) error {
	bound, gone := 0, 0
	for _, r := range rows {
		if r.Holder != nil {
			bound++
			if !r.Holder.Connected {
				gone++
			}
		}
	}
	msg := fmt.Sprintf("no free online device: %d bound, %d of their holders disconnected", bound, gone)
	if bound > 0 {
		msg += "; `adb-connector devices` shows who holds each, `adb-connector unbind SERIAL` frees one"
	} else {
		msg += "; plug in a phone or bring one online (`adb-connector doctor` says what is wrong)"
	}
	return &admin.Error{Code: admin.CodeNoFreeDevice, Message: msg, Err: err}
}

// ChannelLabel is a channel as operators read it (redact.ChannelLabel):
// the console's and the audit's name for it.
func ChannelLabel(id string) string { return redact.ChannelLabel(id) }
