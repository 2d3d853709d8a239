package connector

// Descriptor is the Connection Descriptor, xagent.connection/v2 (§9): the
// user-level runtime projection of one channel. The Server builds it from the
// Profile's DescriptorState and the channel's identity; check it with
// ValidateDescriptor.
type Descriptor struct {
	Schema     string               `json:"schema"`
	Connection DescriptorConnection `json:"connection"`
	Target     DescriptorTarget     `json:"target"`
	Tools      []DescriptorTool     `json:"tools,omitempty"`
}

// DescriptorConnection is Descriptor.connection.
type DescriptorConnection struct {
	CardID      string   `json:"connector_card_id"`
	ConnectorID string   `json:"connector_id"`
	ChannelID   string   `json:"connector_channel_id"`
	TargetType  string   `json:"target_type"`
	Profiles    []string `json:"profiles"`
	Status      string   `json:"status"`
}

// DescriptorTarget is Descriptor.target: display-level information and
// redacted hints only (§9).
type DescriptorTarget struct {
	Provider    string `json:"provider"`
	Label       string `json:"label,omitempty"`
	DisplayName string `json:"display_name"`
	AccountHint string `json:"account_hint,omitempty"`
}

// DescriptorTool is one Descriptor.tools entry.
type DescriptorTool struct {
	ToolID                string `json:"tool_id"`
	Status                string `json:"status"`
	TargetPermissionState string `json:"target_permission_state,omitempty"`
	Reason                string `json:"reason,omitempty"`
}

// connection.status values (§9).
const (
	StatusCreated        = "created"
	StatusAuthenticating = "authenticating"
	StatusConnected      = "connected"
	StatusDegraded       = "degraded"
	StatusOffline        = "offline"
	StatusExpired        = "expired"
	StatusRevoked        = "revoked"
	StatusError          = "error"
)

// tools[].status values (§9).
const (
	ToolAvailable      = "available"
	ToolUnavailable    = "unavailable"
	ToolDeniedByTarget = "denied_by_target"
	ToolRequiresReauth = "requires_reauth"
	ToolNotSupported   = "not_supported"
)

// tools[].target_permission_state values (§9).
const (
	PermissionUnknown        = "unknown"
	PermissionGranted        = "granted"
	PermissionDenied         = "denied"
	PermissionRequiresReauth = "requires_reauth"
)

var (
	connectionStatuses = set(StatusCreated, StatusAuthenticating, StatusConnected, StatusDegraded,
		StatusOffline, StatusExpired, StatusRevoked, StatusError)
	toolStatuses = set(ToolAvailable, ToolUnavailable, ToolDeniedByTarget, ToolRequiresReauth, ToolNotSupported)
	permStates   = set(PermissionUnknown, PermissionGranted, PermissionDenied, PermissionRequiresReauth)
	targetTypes  = set("im", "email", "calendar", "ticket", "device")
	// profileTargetTypes is the catalog of standard Profiles and their allowed
	// target types (§4.1, §11). Profiles absent from it are not checked.
	profileTargetTypes = map[string][]string{
		ProfileIMV1:     {"im"},
		ProfileIMV2:     {"im"},
		ProfileDeviceV1: {"device"},
	}
)

func set(v ...string) map[string]bool {
	m := make(map[string]bool, len(v))
	for _, s := range v {
		m[s] = true
	}
	return m
}

// buildDescriptor combines the channel identity with the Profile's state.
func buildDescriptor(card *Card, ch Channel, st DescriptorState) Descriptor {
	tt := st.TargetType
	if tt == "" && len(card.Supports.TargetTypes) > 0 {
		tt = card.Supports.TargetTypes[0]
	}
	status := st.Status
	if status == "" {
		status = StatusCreated
	}
	return Descriptor{
		Schema: DescriptorSchema,
		Connection: DescriptorConnection{
			CardID:      card.CardID,
			ConnectorID: ch.ConnectorID,
			ChannelID:   ch.ID,
			TargetType:  tt,
			Profiles:    ch.Profiles,
			Status:      status,
		},
		Target: st.Target,
		Tools:  st.Tools,
	}
}

// defaultDescriptorState is what a channel shows with no Profile set: created,
// the Card's first target, no tools.
func defaultDescriptorState(card *Card) DescriptorState {
	st := DescriptorState{Status: StatusCreated}
	if len(card.Supports.Targets) > 0 {
		t := card.Supports.Targets[0]
		st.TargetType = t.TargetType
		st.Target = DescriptorTarget{Provider: t.Provider, Label: t.Label, DisplayName: t.Label + " not bound"}
	} else {
		st.Target = DescriptorTarget{Provider: card.CardID, DisplayName: card.Connector.Name}
	}
	return st
}
