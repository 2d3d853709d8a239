// Package device implements the device side of the Device Profile
// xagent.device.v1 (Device Profile v1) for Android phones:
// the exclusive channel<->device binding kept in SQLite (Bindings), the two
// auth flows of protocol 3.0 §8.7–8.14 — device_pairing with an operator's
// one-time code (Pairing) and device_request polled until an operator
// approves it (Requests) —, the pure Descriptor state rules (ComputeState,
// DisplayName), the operator's admin Unix socket (ServeAdmin, AdminService),
// the Service that implements connector.Profile over adb device tracking,
// and the android_* tools with their tool.invoke pipeline (Tools).
//
// It sits between package adb (devices, commands) and package connector
// (wire protocol): connector knows nothing of Android, adb nothing of
// xAgent. Secrets (pairing and request codes, the install secret) are
// stored hashed, compared in constant time and never logged or returned in
// errors.
package device
