package descriptor

import (
	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/device/binding"
)

// Presence is what the adb layer currently knows of a bound device.
type Presence string

// Device presences.
const (
	PresenceOnline       Presence = "online"       // adb state "device": answers and is authorized
	PresenceOffline      Presence = "offline"      // gone, or adb says "offline"
	PresenceUnauthorized Presence = "unauthorized" // USB debugging not authorized on the phone
	// PresenceUnknown: not seen since the connector started; a restored
	// binding is not connected until its device answers (Profile §5).
	PresenceUnknown Presence = "unknown"
)

// PresenceFromADBState maps an adb device state ("device", "offline",
// "unauthorized", "authorizing", "connecting", ...) to a Presence.
func PresenceFromADBState(state string) Presence {
	switch adb.State(state) {
	case adb.StateDevice:
		return PresenceOnline
	case adb.StateUnauthorized:
		return PresenceUnauthorized
	case "":
		return PresenceUnknown
	}
	return PresenceOffline
}

// ConnStatus is the Descriptor's connection.status (protocol §9).
type ConnStatus string

// Connection statuses this connector reports.
const (
	StatusCreated   ConnStatus = "created"   // no device bound
	StatusConnected ConnStatus = "connected" // bound, online, authorized
	StatusOffline   ConnStatus = "offline"   // bound; device or its adb server gone, or not seen yet
	StatusDegraded  ConnStatus = "degraded"  // bound; USB debugging not authorized
	StatusRevoked   ConnStatus = "revoked"   // operator unbind
	StatusExpired   ConnStatus = "expired"   // the lease ended (idle or too long); auth.start binds again
)

// ToolStatus is a Descriptor tools[].status (§9).
type ToolStatus string

// Tool statuses this connector reports.
const (
	ToolAvailable      ToolStatus = "available"
	ToolUnavailable    ToolStatus = "unavailable"
	ToolDeniedByTarget ToolStatus = "denied_by_target"
	// ToolNotSupported: the operator does not offer the tool on this device.
	ToolNotSupported ToolStatus = "not_supported"
)

// PermissionState is a Descriptor tools[].target_permission_state (§9).
type PermissionState string

// Target permission states.
const (
	PermissionUnknown        PermissionState = "unknown"
	PermissionGranted        PermissionState = "granted"
	PermissionDenied         PermissionState = "denied"
	PermissionRequiresReauth PermissionState = "requires_reauth"
)

// StateInput is everything the Descriptor's state depends on.
type StateInput struct {
	Binding  binding.State // none, bound, revoked, expired
	Presence Presence      // of the bound device; offline while its adb server is lost
}

// State is the Descriptor state of one channel: connection.status and the
// status and permission every tool of the channel gets.
type State struct {
	Status     ConnStatus
	Tool       ToolStatus
	Permission PermissionState
}

// ComputeState derives the Descriptor state. It is a pure function; the
// table in descriptor_state_test.go is its specification:
//
//	no binding                 -> created,   tools unavailable, permission unknown
//	revoked                    -> revoked,   tools unavailable, permission requires_reauth
//	expired (lease ended)      -> expired,   tools unavailable, permission requires_reauth
//	bound, device offline      -> offline,   tools unavailable, permission unknown
//	  (or its adb server down)
//	bound, not seen (restart)  -> offline,   tools unavailable, permission unknown
//	bound, unauthorized        -> degraded,  tools denied_by_target, permission denied
//	bound, online              -> connected, tools available, permission granted
func ComputeState(in StateInput) State {
	switch in.Binding {
	case binding.Bound:
	case binding.Revoked:
		return State{StatusRevoked, ToolUnavailable, PermissionRequiresReauth}
	case binding.Expired:
		return State{StatusExpired, ToolUnavailable, PermissionRequiresReauth}
	default:
		return State{StatusCreated, ToolUnavailable, PermissionUnknown}
	}
	switch in.Presence {
	case PresenceOnline:
		return State{StatusConnected, ToolAvailable, PermissionGranted}
	case PresenceUnauthorized:
		return State{StatusDegraded, ToolDeniedByTarget, PermissionDenied}
	}
	return State{StatusOffline, ToolUnavailable, PermissionUnknown}
}

// ToolState is one Descriptor tools[] entry (§9).
type ToolState struct {
	ToolID                string          `json:"tool_id"`
	Status                ToolStatus      `json:"status"`
	TargetPermissionState PermissionState `json:"target_permission_state"`
}

// Tools returns the tools[] entries for the given tool IDs (the Card's
// tools, in Card order), all offered.
func (s State) Tools(toolIDs ...string) []ToolState {
	out := make([]ToolState, len(toolIDs))
	for i, id := range toolIDs {
		out[i] = s.ToolEntry(id, true)
	}
	return out
}

// ToolEntry is one tool's tools[] entry: the channel's tool status and
// permission, or not_supported (permission unknown) when the tool is not
// offered on the bound device. An unbound, revoked or expired channel says
// nothing of a device, so its tools keep the channel's state.
func (s State) ToolEntry(toolID string, offered bool) ToolState {
	if !offered && s.Status != StatusCreated && s.Status != StatusRevoked && s.Status != StatusExpired {
		return ToolState{ToolID: toolID, Status: ToolNotSupported, TargetPermissionState: PermissionUnknown}
	}
	return ToolState{ToolID: toolID, Status: s.Tool, TargetPermissionState: s.Permission}
}
