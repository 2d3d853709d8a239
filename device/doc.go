// Package device is the Device Profile xagent.device.v1 (Device Profile
// v1) for Android phones: the Service implements connector.Profile — device
// presence fed by adb tracking, the Descriptor and its pushes, and the
// auth.* handlers that glue the flows of package auth to the table of
// package binding — resolves devices for the tools (tools.Resolver),
// reports phones, adb servers and bindings to Prometheus
// (Service.Collectors), and gives the operator API over its parts
// (Service.Operator). A device's lease and reset policy comes from the
// config file or ServiceConfig.Lease (lease.go).
//
// Its rooms: binding (the channel<->device table), auth (pairing and
// request flows, the install secret), card (the Card's identity, flows and
// auth.* payloads), descriptor (the Descriptor state rules), lease (idle
// and max-duration expiry, Device Profile §3 leaves leases to each
// connector), reset (the reset on every release), operator (the one
// operator API), admin (the operator socket's wire format, server and
// client), audit (the audit trail), console (the operator's web console),
// policy (the operator's config file) and tools (the tool pipeline and the
// android_* tools, which reach devices through the Service as a
// tools.Resolver). No room imports the Profile.
// connector knows nothing of Android, adb nothing of xAgent.
package device
