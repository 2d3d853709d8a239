package connector

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/internal/buildinfo"
)

// testCardConfig is a valid device Card configuration.
func testCardConfig() CardConfig {
	return CardConfig{
		CardID:    "device.adb",
		Connector: CardConnector{Name: "ADB Device Connector", Version: "0.1.0", Vendor: "adb-connector"},
		Supports: CardSupports{
			UserChannelMode: "multiple",
			TargetTypes:     []string{"device"},
			Targets:         []CardTarget{{TargetType: "device", Provider: "adb", Label: "Android Device"}},
			Profiles:        []string{ProfileDeviceV1},
		},
		AuthFlows: []AuthFlow{{ID: "device_pairing", TargetType: "device", Type: "form", Title: "Pair a device",
			Fields: []AuthField{{Name: "pairing_code", Label: "Code", InputType: "password", Secret: true, Required: true}}}},
		Security: CardSecurity{TrustLevel: "local", DataClasses: []string{"screen_image"}},
		Build:    buildinfo.Info{Version: "1", GitRev: "abc", BuildTime: "2612020000"},
	}
}

func validCard(t testing.TB) Card {
	reg := NewRegistry()
	err := reg.Register(Tool{ID: "android_tap", Profile: ProfileDeviceV1, Title: "Tap",
		RelatedSkillIDs: []string{"connector-device-adb"},
		InputSchema:     map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "integer"}}, "required": []string{"x"}},
		Handler:         func(ctx context.Context, call ToolCall) (any, error) { return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	return BuildCard(testCardConfig(), reg)
}

func TestValidateCardRules(t *testing.T) {
	t.Parallel()
	if c := validCard(t); ValidateCard(&c) != nil {
		t.Fatalf("valid card rejected: %v", ValidateCard(&c))
	}
	cases := []struct {
		name  string
		field string
		edit  func(c *Card)
	}{
		{"schema", "schema", func(c *Card) { c.Schema = "xagent.connector/v0" }},
		{"protocol version", "protocol_version", func(c *Card) { c.ProtocolVersion = "2.0" }},
		{"build time", "build.build_time", func(c *Card) { c.Build.BuildTime = "" }},
		{"card id", "connector_card_id", func(c *Card) { c.CardID = "" }},
		{"connector name", "connector.name", func(c *Card) { c.Connector.Name = "" }},
		{"connector version", "connector.version", func(c *Card) { c.Connector.Version = "" }},
		{"user channel mode", "supports.user_channel_mode", func(c *Card) { c.Supports.UserChannelMode = "many" }},
		{"target types empty", "supports.target_types", func(c *Card) { c.Supports.TargetTypes = nil; c.Supports.Targets = nil }},
		{"target type unknown", "supports.target_types[1]", func(c *Card) { c.Supports.TargetTypes = append(c.Supports.TargetTypes, "browser") }},
		{"target type duplicate", "supports.target_types[1]", func(c *Card) { c.Supports.TargetTypes = append(c.Supports.TargetTypes, "device") }},
		{"target not declared", "supports.targets[0].target_type", func(c *Card) { c.Supports.Targets[0].TargetType = "im" }},
		{"target label", "supports.targets[0]", func(c *Card) { c.Supports.Targets[0].Label = "" }},
		{"profiles empty", "supports.profiles", func(c *Card) { c.Supports.Profiles = nil }},
		{"profile duplicate", "supports.profiles[1]", func(c *Card) { c.Supports.Profiles = append(c.Supports.Profiles, ProfileDeviceV1) }},
		{"profile target mismatch", "supports.profiles[1]", func(c *Card) { c.Supports.Profiles = append(c.Supports.Profiles, ProfileIMV2) }},
		{"tool id empty", "tools[0].tool_id", func(c *Card) { c.Tools[0].ToolID = "" }},
		{"tool id chars", "tools[0].tool_id", func(c *Card) { c.Tools[0].ToolID = "tap now" }},
		{"tool id length", "tools[0].tool_id", func(c *Card) { c.Tools[0].ToolID = strings.Repeat("a", 257) }},
		{"tool id duplicate", "tools[1].tool_id", func(c *Card) { c.Tools = append(c.Tools, c.Tools[0]) }},
		{"tool profile", "tools[0].profile", func(c *Card) { c.Tools[0].Profile = ProfileIMV2 }},
		{"related skill", "tools[0].related_skill_ids[0]", func(c *Card) { c.Tools[0].RelatedSkillIDs = []string{"Android_Device"} }},
		{"input schema object", "tools[0].input_schema.type", func(c *Card) { c.Tools[0].InputSchema["type"] = "array" }},
		{"channel id property", "tools[0].input_schema.properties.connector_channel_id", func(c *Card) {
			delete(c.Tools[0].InputSchema["properties"].(map[string]any), "connector_channel_id")
		}},
		{"channel id type", "tools[0].input_schema.properties.connector_channel_id", func(c *Card) {
			c.Tools[0].InputSchema["properties"].(map[string]any)["connector_channel_id"] = map[string]any{"type": "integer"}
		}},
		{"channel id required", "tools[0].input_schema.required", func(c *Card) { c.Tools[0].InputSchema["required"] = []any{"x"} }},
		{"required unique", "tools[0].input_schema.required", func(c *Card) {
			c.Tools[0].InputSchema["required"] = []any{"connector_channel_id", "x", "x"}
		}},
		{"no connector_card_id argument", "tools[0].input_schema.properties.connector_card_id", func(c *Card) {
			c.Tools[0].InputSchema["properties"].(map[string]any)["connector_card_id"] = map[string]any{"type": "string"}
		}},
		{"auth flow id", "auth_flows[0].id", func(c *Card) { c.AuthFlows[0].ID = "" }},
		{"auth flow id duplicate", "auth_flows[1].id", func(c *Card) { c.AuthFlows = append(c.AuthFlows, c.AuthFlows[0]) }},
		{"auth flow target type", "auth_flows[0].target_type", func(c *Card) { c.AuthFlows[0].TargetType = "" }},
		{"auth flow type", "auth_flows[0].type", func(c *Card) { c.AuthFlows[0].Type = "oauth" }},
		{"auth flow title", "auth_flows[0].title", func(c *Card) { c.AuthFlows[0].Title = "" }},
		{"form needs fields", "auth_flows[0].fields", func(c *Card) { c.AuthFlows[0].Fields = nil }},
		{"qr flow has no fields", "auth_flows[0].fields", func(c *Card) { c.AuthFlows[0].Type = "qr_login" }},
		{"field name", "auth_flows[0].fields[0]", func(c *Card) { c.AuthFlows[0].Fields[0].Name = "" }},
		{"field name duplicate", "auth_flows[0].fields[1].name", func(c *Card) {
			c.AuthFlows[0].Fields = append(c.AuthFlows[0].Fields, c.AuthFlows[0].Fields[0])
		}},
		{"field input type", "auth_flows[0].fields[0].input_type", func(c *Card) { c.AuthFlows[0].Fields[0].InputType = "number" }},
		{"password is secret", "auth_flows[0].fields[0].secret", func(c *Card) { c.AuthFlows[0].Fields[0].Secret = false }},
		{"secret default", "auth_flows[0].fields[0].default_value", func(c *Card) { c.AuthFlows[0].Fields[0].DefaultValue = "0000" }},
		{"trust level", "security.trust_level", func(c *Card) { c.Security.TrustLevel = "trusted" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := validCard(t)
			tc.edit(&c)
			err := ValidateCard(&c)
			if !errors.Is(err, ErrInvalidCard) {
				t.Fatalf("ValidateCard = %v, want ErrInvalidCard", err)
			}
			var ve *ValidationError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), tc.field+": ") {
				t.Errorf("error %q does not name field %s", err, tc.field)
			}
		})
	}
}

func validDescriptor(c *Card) Descriptor {
	return Descriptor{
		Schema: DescriptorSchema,
		Connection: DescriptorConnection{CardID: c.CardID, ConnectorID: "conn_x", ChannelID: "cch_1",
			TargetType: "device", Profiles: []string{ProfileDeviceV1}, Status: StatusConnected},
		Target: DescriptorTarget{Provider: "adb", Label: "Android Device", DisplayName: "Pixel (R58***)"},
		Tools:  []DescriptorTool{{ToolID: "android_tap", Status: ToolAvailable, TargetPermissionState: PermissionGranted}},
	}
}

func TestValidateDescriptorRules(t *testing.T) {
	t.Parallel()
	card := validCard(t)
	if d := validDescriptor(&card); ValidateDescriptor(&card, "cch_1", &d) != nil {
		t.Fatalf("valid descriptor rejected: %v", ValidateDescriptor(&card, "cch_1", &d))
	}
	cases := []struct {
		name  string
		field string
		edit  func(d *Descriptor)
	}{
		{"schema", "schema", func(d *Descriptor) { d.Schema = "xagent.connection/v1" }},
		{"card id", "connection.connector_card_id", func(d *Descriptor) { d.Connection.CardID = "im.wechat" }},
		{"connector id", "connection.connector_id", func(d *Descriptor) { d.Connection.ConnectorID = "" }},
		{"channel id", "connection.connector_channel_id", func(d *Descriptor) { d.Connection.ChannelID = "cch_2" }},
		{"target type unknown", "connection.target_type", func(d *Descriptor) { d.Connection.TargetType = "browser" }},
		{"target type not in card", "connection.target_type", func(d *Descriptor) { d.Connection.TargetType = "im" }},
		{"profiles empty", "connection.profiles", func(d *Descriptor) { d.Connection.Profiles = nil }},
		{"profiles unique", "connection.profiles[1]", func(d *Descriptor) { d.Connection.Profiles = []string{ProfileDeviceV1, ProfileDeviceV1} }},
		{"profile not in card", "connection.profiles[0]", func(d *Descriptor) { d.Connection.Profiles = []string{ProfileIMV2} }},
		{"status", "connection.status", func(d *Descriptor) { d.Connection.Status = "bound" }},
		{"provider", "target.provider", func(d *Descriptor) { d.Target.Provider = "" }},
		{"tool id", "tools[0].tool_id", func(d *Descriptor) { d.Tools[0].ToolID = "" }},
		{"tool not in card", "tools[0].tool_id", func(d *Descriptor) { d.Tools[0].ToolID = "android_shell" }},
		{"tool status", "tools[0].status", func(d *Descriptor) { d.Tools[0].Status = "ok" }},
		{"permission state", "tools[0].target_permission_state", func(d *Descriptor) { d.Tools[0].TargetPermissionState = "yes" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := validDescriptor(&card)
			tc.edit(&d)
			err := ValidateDescriptor(&card, "cch_1", &d)
			if !errors.Is(err, ErrInvalidDescriptor) || !strings.Contains(err.Error(), tc.field+": ") {
				t.Errorf("ValidateDescriptor = %v, want a problem with %s", err, tc.field)
			}
		})
	}
}

func TestWithConnectorChannelIDInputSchema(t *testing.T) {
	t.Parallel()
	in := map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "integer"}}, "required": []string{"x"}}
	out := WithConnectorChannelIDInputSchema(in)
	if _, touched := in["properties"].(map[string]any)["connector_channel_id"]; touched {
		t.Error("input schema was modified in place")
	}
	req := out["required"].([]any)
	if len(req) != 2 || req[0] != "connector_channel_id" || req[1] != "x" {
		t.Errorf("required = %v", req)
	}
	if WithConnectorChannelIDInputSchema(nil)["type"] != "object" {
		t.Error("nil schema should become an object schema")
	}
}
