// Package reset resets a phone on every release of its binding (logout, a
// closed channel, operator unbind, a lease's end) before anyone binds it
// again. The binding table records the debt in the release's transaction
// and refuses binds while it stands (binding.ErrResetting,
// binding.ErrNeedsReset); Resets runs it: at once when the device answers,
// else when it comes back; a failed reset is retried when the device
// comes back and every Retry, until it succeeds or the operator clears it.
// Each attempt is an audit row (tool "reset") and a log line.
package reset
