// Package auth holds the two auth flows of the Device Profile (protocol
// 3.0 §8.7–8.14) as this connector fills them in: device_pairing, a form
// with the operator's one-time pairing code (Pairing), and device_request,
// a request code polled until an operator approves it (Requests); plus the
// per-install secret (LoadOrCreateSecret) that keys the HMACs the codes are
// stored under. Both flows end in package binding's table. Codes are never
// stored, logged or returned in errors; they are compared in constant time.
package auth
