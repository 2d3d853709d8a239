package connector

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/adb-connector/adb-connector/internal/buildinfo"
)

// Card is the Connector Card, xagent.connector/v1 (§4.1). Build it with
// BuildCard; check it with ValidateCard.
type Card struct {
	Schema          string         `json:"schema"`
	ProtocolVersion string         `json:"protocol_version"`
	Build           buildinfo.Info `json:"build"`
	CardID          string         `json:"connector_card_id"`
	Connector       CardConnector  `json:"connector"`
	Supports        CardSupports   `json:"supports"`
	Tools           []CardTool     `json:"tools"`
	AuthFlows       []AuthFlow     `json:"auth_flows,omitempty"`
	UI              *CardUI        `json:"ui,omitempty"`
	Security        CardSecurity   `json:"security"`
}

// CardConnector is Card.connector.
type CardConnector struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Vendor      string `json:"vendor,omitempty"`
	Description string `json:"description,omitempty"`
}

// CardSupports is Card.supports.
type CardSupports struct {
	UserChannelMode string       `json:"user_channel_mode,omitempty"`
	TargetTypes     []string     `json:"target_types"`
	Targets         []CardTarget `json:"targets,omitempty"`
	Profiles        []string     `json:"profiles"`
}

// CardTarget is one Card.supports.targets entry.
type CardTarget struct {
	TargetType  string `json:"target_type"`
	Provider    string `json:"provider"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// CardTool is one Card.tools entry, the wire shape of a registered Tool.
type CardTool struct {
	ToolID          string         `json:"tool_id"`
	Profile         string         `json:"profile"`
	Title           string         `json:"title,omitempty"`
	Description     string         `json:"description,omitempty"`
	RelatedSkillIDs []string       `json:"related_skill_ids,omitempty"`
	InputSchema     map[string]any `json:"input_schema"`
	OutputSchema    map[string]any `json:"output_schema,omitempty"`
}

// AuthFlow is one Card.auth_flows entry.
type AuthFlow struct {
	ID          string      `json:"id"`
	TargetType  string      `json:"target_type"`
	Type        string      `json:"type"`
	Title       string      `json:"title"`
	Description string      `json:"description,omitempty"`
	Fields      []AuthField `json:"fields,omitempty"`
}

// AuthField is one field of a form AuthFlow.
type AuthField struct {
	Name         string `json:"name"`
	Label        string `json:"label"`
	InputType    string `json:"input_type"`
	Required     bool   `json:"required,omitempty"`
	Placeholder  string `json:"placeholder,omitempty"`
	HelpText     string `json:"help_text,omitempty"`
	Secret       bool   `json:"secret,omitempty"`
	DefaultValue string `json:"default_value,omitempty"`
}

// CardUI is Card.ui.
type CardUI struct {
	LoginFlow *LoginFlow `json:"login_flow,omitempty"`
}

// LoginFlow is Card.ui.login_flow.
type LoginFlow struct {
	FlowID string      `json:"flow_id"`
	Steps  []LoginStep `json:"steps"`
}

// LoginStep is one Card.ui.login_flow.steps entry.
type LoginStep struct {
	Type         string `json:"type"`
	RequestType  string `json:"request_type,omitempty"`
	ResponseType string `json:"response_type,omitempty"`
}

// CardSecurity is Card.security. APIKeyRequired is set by the Server from its
// configuration, whatever the CardConfig says.
type CardSecurity struct {
	TrustLevel     string   `json:"trust_level,omitempty"`
	APIKeyRequired bool     `json:"api_key_required"`
	DataClasses    []string `json:"data_classes,omitempty"`
}

// CardConfig is everything of the Card that is not a tool: fixed by the
// developer (ids, names) and the deployment (auth flows offered). Build
// defaults to buildinfo.Get() when empty.
type CardConfig struct {
	CardID    string
	Connector CardConnector
	Supports  CardSupports
	AuthFlows []AuthFlow
	UI        *CardUI
	Security  CardSecurity
	Build     buildinfo.Info
}

// ToolHandler runs one tool call. It returns the result object (marshalled
// into tool.invoke.ack payload.result) or an error that MapError turns into
// the ack's error (unknown errors become tool_invoke_failed). It must honour
// ctx: it is canceled when the socket closes or the server shuts down.
type ToolHandler func(ctx context.Context, call ToolCall) (result any, err error)

// Tool is a registered tool: its Card declaration plus its Handler.
// InputSchema is the object schema of the model arguments WITHOUT the
// reserved connector_channel_id: the registry adds it with
// WithConnectorChannelIDInputSchema.
type Tool struct {
	ID              string
	Profile         string
	Title           string
	Description     string
	RelatedSkillIDs []string
	InputSchema     map[string]any
	OutputSchema    map[string]any
	Handler         ToolHandler
}

// channelIDArgDescription is the standard description of the reserved argument (§4.1, §10).
const channelIDArgDescription = "Target user-level Connector channel ID. Pass the opaque ID returned by connector_channels_list or inbound source_connector_channel_id unchanged."

// WithConnectorChannelIDInputSchema returns a deep copy of schema with the
// reserved connector_channel_id argument (type string, required) added, as
// §10 asks of a protocol helper. A nil schema stands for {"type":"object"}.
func WithConnectorChannelIDInputSchema(schema map[string]any) map[string]any {
	out := deepCopy(schema)
	if out == nil {
		out = map[string]any{}
	}
	if _, ok := out["type"]; !ok {
		out["type"] = "object"
	}
	props, _ := out["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	props["connector_channel_id"] = map[string]any{"type": "string", "description": channelIDArgDescription}
	out["properties"] = props
	req := []any{"connector_channel_id"}
	switch r := out["required"].(type) {
	case []any:
		for _, v := range r {
			if v != "connector_channel_id" {
				req = append(req, v)
			}
		}
	case []string:
		for _, v := range r {
			if v != "connector_channel_id" {
				req = append(req, v)
			}
		}
	}
	out["required"] = req
	return out
}

// deepCopy copies a JSON-like value through a JSON round trip (schemas are small).
func deepCopy(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return maps.Clone(m)
	}
	var out map[string]any
	if json.Unmarshal(b, &out) != nil {
		return maps.Clone(m)
	}
	return out
}

// Registry holds the tools of this deployment in registration order; it
// produces the Card's tools[]. Safe for concurrent use; register everything
// before New: the Card is built once, and the Server runs only the tools it
// declares (one registered later answers tool_not_found).
type Registry struct {
	mu    sync.RWMutex
	tools []Tool
	byID  map[string]Tool
}

// NewRegistry returns an empty Registry.
func NewRegistry() *Registry { return &Registry{byID: map[string]Tool{}} }

// Register adds a tool. It fails on an empty or duplicate ID or a nil Handler;
// the rest is checked by ValidateCard when the Server builds the Card.
func (r *Registry) Register(t Tool) error {
	if t.ID == "" {
		return fmt.Errorf("register tool: empty ID")
	}
	if t.Handler == nil {
		return fmt.Errorf("register tool %s: nil Handler", t.ID)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.byID[t.ID]; dup {
		return fmt.Errorf("register tool %s: already registered", t.ID)
	}
	r.tools = append(r.tools, t)
	r.byID[t.ID] = t
	return nil
}

// Lookup returns the tool with that ID.
func (r *Registry) Lookup(id string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.byID[id]
	return t, ok
}

// Tools returns the registered tools in registration order.
func (r *Registry) Tools() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.tools)
}

// BuildCard assembles the Card from cfg and the registry (nil means no tools).
// It does not validate: call ValidateCard.
func BuildCard(cfg CardConfig, reg *Registry) Card {
	b := cfg.Build
	if b == (buildinfo.Info{}) {
		b = buildinfo.Get()
	}
	c := Card{
		Schema:          CardSchema,
		ProtocolVersion: ProtocolVersion,
		Build:           b,
		CardID:          cfg.CardID,
		Connector:       cfg.Connector,
		Supports:        cfg.Supports,
		Tools:           []CardTool{},
		AuthFlows:       cfg.AuthFlows,
		UI:              cfg.UI,
		Security:        cfg.Security,
	}
	if reg != nil {
		for _, t := range reg.Tools() {
			c.Tools = append(c.Tools, CardTool{
				ToolID:          t.ID,
				Profile:         t.Profile,
				Title:           t.Title,
				Description:     t.Description,
				RelatedSkillIDs: t.RelatedSkillIDs,
				InputSchema:     WithConnectorChannelIDInputSchema(t.InputSchema),
				OutputSchema:    t.OutputSchema,
			})
		}
	}
	return c
}
