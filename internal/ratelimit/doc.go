// Package ratelimit is the token bucket shared by the auth flows (pairing
// attempts per channel and per serial) and the tool pipeline (calls per
// channel): Burst attempts at once, refilled at Burst per Per, one bucket
// per key. Refusals are an *Error that matches ErrLimited and says when to
// retry.
package ratelimit
