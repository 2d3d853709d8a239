// Package binding is the exclusive channel<->device table of the Device
// Profile xagent.device.v1 (Device Profile v1 §3): a channel holds at most
// one device and a device is bound to at most one channel, kept in SQLite
// so bindings survive restarts and reconnects. Device keys are
// "endpoint/serial". Every committed change is reported through
// Options.OnChange, so the Descriptors of those channels can be pushed.
//
// A binding ends by release (logout, channel closed), operator revoke or
// lease expiry; the last two leave a marker (revoked, expired) on the
// channel. Every end records the reset the device owes (reset.go) in the
// same transaction, and a device that owes one is not bound again.
package binding
