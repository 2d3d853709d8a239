// Package card is what this connector declares in its Connector Card: its
// identity, the device target, the two auth flows (device_pairing,
// device_request) and the login UI, and the auth.* payloads of those flows
// as agents send them (decoded and checked here, acted on by the Profile).
package card
