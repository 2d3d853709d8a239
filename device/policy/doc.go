// Package policy is the operator's config file: the server settings that
// serve's flags also offer, device tags assigned by rules over serial,
// model, manufacturer and adb server, and a policy per tag (the tools
// offered, package and URL rules, rate, caps, text input, and the lease and
// shell settings other parts enforce). Parse checks a file strictly, naming
// the key, the line and what is allowed; a Holder keeps the one in force
// and a Reloader replaces it when the file changes. Device Profile §3, §5
// and §7 ask connectors for explicit lease, concurrency and safety
// policies: this is where an operator writes them.
//
// It imports neither the Profile nor the tools: both ask it (For) what
// applies to a device.
package policy
