// Package tools is the android_* tool set of the Device Profile and the
// one pipeline every call runs through (protocol 3.0 §8.18–8.19): arguments
// validated against the very input_schema the Card publishes and decoded
// into a typed struct, idempotency on tool_call_id, a per-channel rate
// limit, device resolution through a Resolver, progress pushes, the audit
// row, metrics, a panic guard, one log line for a failure and the one
// mapping of errors to wire codes (WireError).
//
// To add a tool: a file named after it with its argument struct, its
// declaration through declare (declare.go: Card entry, input_schema
// properties, run function) and the run function (status.go, screenshot.go,
// tap.go are examples), and a line in the catalogue (toolSpecs,
// catalog.go). It never imports the Profile.
package tools
