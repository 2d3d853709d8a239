// Package redact turns device serials and models into what may be shown:
// the Descriptor's display name, the hint logs and the audit trail carry
// (never a full serial, an IP address or a port; Device Profile §4).
package redact
