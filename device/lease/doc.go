// Package lease ends device bindings whose lease ran out (Device Profile
// §3 leaves leases to each connector): after IdleTimeout without a tool
// call, or MaxDuration after the binding began. Leases holds one lease per
// bound channel, fed by the binding table's bind and release events, and
// expires the binding through the table; the release then resets the
// phone (package reset).
package lease
