// Package connector implements the xAgent Connector Common Protocol 3.0
// (protocol 3.0) outside any Profile: the Connector
// Card and its tool registry (§4.1, §10), Card and Descriptor hard validation
// (§4.1, §9), the HTTP control plane (/connector-card.json, /skill.md, /health,
// /metrics; §4), the /ws data plane with its packet envelope and dispatch table
// (§6–§8), and the connector_id lease with persisted channels (§8.2, §8.3).
//
// It knows nothing of Android: a Profile (profile.go) supplies Descriptors,
// authentication flows and channel release, and each Tool brings its Handler.
// The wire flow is documented once, in dispatch.go.
package connector
