package connector

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
)

// ValidationError is one broken hard-validation rule of §4.1 or §9.
// Field is the JSON path of the offending value.
type ValidationError struct {
	Field   string
	Problem string
}

func (e *ValidationError) Error() string { return e.Field + ": " + e.Problem }

// ErrInvalidCard and ErrInvalidDescriptor wrap every validation failure.
var (
	ErrInvalidCard       = errors.New("invalid connector card")
	ErrInvalidDescriptor = errors.New("invalid connection descriptor")
)

var (
	toolIDRe    = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,256}$`)
	skillNameRe = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
)

type problems []error

func (p *problems) add(field, format string, a ...any) {
	*p = append(*p, &ValidationError{Field: field, Problem: fmt.Sprintf(format, a...)})
}

func (p problems) err(kind error) error {
	if len(p) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %w", kind, errors.Join(p...))
}

// ValidateCard checks every hard-validation rule of §4.1 and §10 and the
// forbidden items that a typed Card can express. The error wraps
// ErrInvalidCard and joins one *ValidationError per broken rule.
func ValidateCard(c *Card) error {
	var p problems
	if c.Schema != CardSchema {
		p.add("schema", "must be %s", CardSchema)
	}
	if c.ProtocolVersion != ProtocolVersion {
		p.add("protocol_version", "must be %s", ProtocolVersion)
	}
	if c.Build.BuildTime == "" {
		p.add("build.build_time", "is required")
	}
	if c.CardID == "" {
		p.add("connector_card_id", "is required")
	}
	if c.Connector.Name == "" {
		p.add("connector.name", "is required")
	}
	if c.Connector.Version == "" {
		p.add("connector.version", "is required")
	}
	switch c.Supports.UserChannelMode {
	case "", "single", "multiple":
	default:
		p.add("supports.user_channel_mode", "must be single or multiple")
	}
	if len(c.Supports.TargetTypes) == 0 {
		p.add("supports.target_types", "must be non-empty")
	}
	for i, tt := range c.Supports.TargetTypes {
		if !targetTypes[tt] {
			p.add(fmt.Sprintf("supports.target_types[%d]", i), "unknown target type %q", tt)
		}
		if slices.Index(c.Supports.TargetTypes, tt) != i {
			p.add(fmt.Sprintf("supports.target_types[%d]", i), "duplicate %q", tt)
		}
	}
	for i, t := range c.Supports.Targets {
		f := fmt.Sprintf("supports.targets[%d]", i)
		if !slices.Contains(c.Supports.TargetTypes, t.TargetType) {
			p.add(f+".target_type", "must appear in supports.target_types")
		}
		if t.Provider == "" || t.Label == "" {
			p.add(f, "provider and label are required")
		}
	}
	if len(c.Supports.Profiles) == 0 {
		p.add("supports.profiles", "must be non-empty")
	}
	for i, prof := range c.Supports.Profiles {
		f := fmt.Sprintf("supports.profiles[%d]", i)
		if prof == "" {
			p.add(f, "must be non-empty")
		}
		if slices.Index(c.Supports.Profiles, prof) != i {
			p.add(f, "duplicate %q", prof)
		}
		if allowed, ok := profileTargetTypes[prof]; ok && !slices.ContainsFunc(allowed, func(tt string) bool {
			return slices.Contains(c.Supports.TargetTypes, tt)
		}) {
			p.add(f, "profile %s allows target types %v, none declared", prof, allowed)
		}
	}
	seen := map[string]bool{}
	for i, t := range c.Tools {
		f := fmt.Sprintf("tools[%d]", i)
		if !toolIDRe.MatchString(t.ToolID) {
			p.add(f+".tool_id", "must be 1-256 ASCII letters, digits, '_', '-', '.'")
		}
		if seen[t.ToolID] {
			p.add(f+".tool_id", "duplicate %q", t.ToolID)
		}
		seen[t.ToolID] = true
		if !slices.Contains(c.Supports.Profiles, t.Profile) {
			p.add(f+".profile", "must appear in supports.profiles")
		}
		for j, s := range t.RelatedSkillIDs {
			if !skillNameRe.MatchString(s) {
				p.add(fmt.Sprintf("%s.related_skill_ids[%d]", f, j), "must be lowercase hyphen-case")
			}
		}
		checkInputSchema(&p, f+".input_schema", t.InputSchema)
	}
	flows := map[string]bool{}
	for i, a := range c.AuthFlows {
		f := fmt.Sprintf("auth_flows[%d]", i)
		if a.ID == "" {
			p.add(f+".id", "is required")
		}
		if flows[a.ID] {
			p.add(f+".id", "duplicate %q", a.ID)
		}
		flows[a.ID] = true
		if !targetTypes[a.TargetType] {
			p.add(f+".target_type", "is required and must be a known target type")
		}
		switch a.Type {
		case "qr_login", "form":
		default:
			p.add(f+".type", "must be qr_login or form")
		}
		if a.Title == "" {
			p.add(f+".title", "is required")
		}
		if a.Type == "form" && len(a.Fields) == 0 {
			p.add(f+".fields", "a form flow needs at least one field")
		}
		if a.Type != "form" && len(a.Fields) > 0 {
			p.add(f+".fields", "only a form flow has fields")
		}
		names := map[string]bool{}
		for j, fl := range a.Fields {
			ff := fmt.Sprintf("%s.fields[%d]", f, j)
			if fl.Name == "" || fl.Label == "" {
				p.add(ff, "name and label are required")
			}
			if names[fl.Name] {
				p.add(ff+".name", "duplicate %q", fl.Name)
			}
			names[fl.Name] = true
			if fl.InputType != "text" && fl.InputType != "password" {
				p.add(ff+".input_type", "must be text or password")
			}
			if fl.InputType == "password" && !fl.Secret {
				p.add(ff+".secret", "a password field must set secret")
			}
			if fl.Secret && fl.DefaultValue != "" {
				p.add(ff+".default_value", "forbidden for a secret field")
			}
		}
	}
	switch c.Security.TrustLevel {
	case "", "unknown", "builtin", "verified", "third_party", "local":
	default:
		p.add("security.trust_level", "unknown trust level")
	}
	return p.err(ErrInvalidCard)
}

func checkInputSchema(p *problems, f string, s map[string]any) {
	if s == nil || s["type"] != "object" {
		p.add(f+".type", "must be an object schema")
		return
	}
	props, _ := s["properties"].(map[string]any)
	ch, _ := props["connector_channel_id"].(map[string]any)
	if ch == nil || ch["type"] != "string" {
		p.add(f+".properties.connector_channel_id", "must exist with type string")
	}
	if _, bad := props["connector_card_id"]; bad {
		p.add(f+".properties.connector_card_id", "must not be a model argument")
	}
	req, _ := s["required"].([]any)
	if !slices.Contains(req, any("connector_channel_id")) {
		p.add(f+".required", "must contain connector_channel_id")
	}
	for i, r := range req {
		if _, ok := r.(string); !ok || slices.Index(req, r) != i {
			p.add(f+".required", "must be unique strings")
			break
		}
	}
}

// ValidateDescriptor checks every hard-validation rule of §9 for the
// Descriptor d of channel channelID under card. The error wraps
// ErrInvalidDescriptor and joins one *ValidationError per broken rule.
func ValidateDescriptor(card *Card, channelID string, d *Descriptor) error {
	var p problems
	if d.Schema != DescriptorSchema {
		p.add("schema", "must be %s", DescriptorSchema)
	}
	cn := d.Connection
	if cn.CardID != card.CardID {
		p.add("connection.connector_card_id", "must equal the Card's connector_card_id")
	}
	if cn.ConnectorID == "" {
		p.add("connection.connector_id", "is required")
	}
	if cn.ChannelID == "" || cn.ChannelID != channelID {
		p.add("connection.connector_channel_id", "must equal the current channel")
	}
	if !targetTypes[cn.TargetType] {
		p.add("connection.target_type", "unknown target type %q", cn.TargetType)
	} else if !slices.Contains(card.Supports.TargetTypes, cn.TargetType) {
		p.add("connection.target_type", "not declared in the Card")
	}
	if len(cn.Profiles) == 0 {
		p.add("connection.profiles", "must be non-empty")
	}
	for i, prof := range cn.Profiles {
		if slices.Index(cn.Profiles, prof) != i {
			p.add(fmt.Sprintf("connection.profiles[%d]", i), "duplicate %q", prof)
		}
		if !slices.Contains(card.Supports.Profiles, prof) {
			p.add(fmt.Sprintf("connection.profiles[%d]", i), "not declared in Card supports.profiles")
		}
	}
	if !connectionStatuses[cn.Status] {
		p.add("connection.status", "unsupported status %q", cn.Status)
	}
	if d.Target.Provider == "" {
		p.add("target.provider", "is required")
	}
	for i, t := range d.Tools {
		f := fmt.Sprintf("tools[%d]", i)
		if t.ToolID == "" {
			p.add(f+".tool_id", "is required")
		} else if !slices.ContainsFunc(card.Tools, func(ct CardTool) bool { return ct.ToolID == t.ToolID }) {
			p.add(f+".tool_id", "tool %q is not in the Card", t.ToolID)
		}
		if !toolStatuses[t.Status] {
			p.add(f+".status", "unsupported tool status %q", t.Status)
		}
		if t.TargetPermissionState != "" && !permStates[t.TargetPermissionState] {
			p.add(f+".target_permission_state", "unsupported value %q", t.TargetPermissionState)
		}
	}
	return p.err(ErrInvalidDescriptor)
}
