// Package device is the Device Profile xagent.device.v1 (Device Profile
// v1) for Android phones: the Service implements connector.Profile — device
// presence fed by adb tracking, the Descriptor state rules (descriptor.ComputeState,
// DisplayName) and their pushes, and the auth.* handlers that glue the flows
// of package auth to the table of package binding — and answers the
// operator's admin socket (AdminService) — and reports phones, adb servers
// and bindings to Prometheus (Service.Collectors). It also ends bindings
// whose device lease ran out (lease.go, Device Profile §3 leaves leases to
// each connector) and resets a phone on every release before it is handed
// out again (reset.go). The Card's identity is here too (CardConfig).
//
// Its rooms: binding (the channel<->device table), auth (pairing and
// request flows, the install secret), admin (the operator socket's wire
// format, server and client), policy (the operator's config file: device
// tags and what agents may do on each) and tools (the tool pipeline and the
// android_* tools, which reach devices through the Service as a
// tools.Resolver).
// connector knows nothing of Android, adb nothing of xAgent.
package device
