package card

import (
	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/device/auth"
)

// Card identity of this connector (the Card of README "For agent builders").
const (
	CardID           = "device.adb"
	ConnectorName    = "ADB Device Connector"
	ConnectorVersion = "0.2.0"
	TargetType       = "device"
	// TargetProvider and TargetLabel are the Card's supports.targets[0]
	// and every Descriptor's target.
	TargetProvider = "adb"
	TargetLabel    = "Android Device"
)

// AuthFlows returns the Card's auth_flows: device_pairing, a form with the
// device serial and the operator's one-time pairing code (a secret
// password field), and device_request, a polling flow whose request code
// travels in qr_code_text for the user to give the operator.
func AuthFlows() []connector.AuthFlow {
	return []connector.AuthFlow{
		{
			ID:         auth.FlowPairing,
			TargetType: TargetType,
			Type:       "form",
			Title:      "Pair an Android device",
			Description: "Ask the lab operator for a pairing code (they run: adb-connector pair SERIAL), " +
				"then enter the device serial and the code. The code works once and expires.",
			Fields: []connector.AuthField{
				{
					Name: auth.FieldSerial, Label: "Device serial", InputType: "text", Required: true,
					Placeholder: "e.g. R58M123ABC",
					HelpText:    "The serial the operator gave you (as listed by adb-connector devices).",
				},
				{
					Name: auth.FieldPairingCode, Label: "Pairing code", InputType: "password", Required: true, Secret: true,
					Placeholder: "XXXX-XXXX",
					HelpText:    "The one-time code printed by adb-connector pair.",
				},
			},
		},
		{
			ID:         auth.FlowRequest,
			TargetType: TargetType,
			Type:       "qr_login",
			Title:      "Request a device from the operator",
			Description: "Shows a short request code. Give it to the lab operator, who runs " +
				"adb-connector approve CODE; this connection is then bound to a free device.",
		},
	}
}

// LoginUI returns Card.ui: the device_request flow's steps (show the code
// from auth.start.ack, then poll auth.status).
func LoginUI() *connector.CardUI {
	return &connector.CardUI{LoginFlow: &connector.LoginFlow{
		FlowID: auth.FlowRequest,
		Steps: []connector.LoginStep{
			{Type: "qr_code", RequestType: "auth.start", ResponseType: "auth.start.ack"},
			{Type: "polling", RequestType: "auth.status", ResponseType: "auth.status.ack"},
		},
	}}
}

// CardConfig returns everything of the device.adb Card but its tools
// (registered by Tools.Register): identity, supports (profile
// xagent.device.v1, target device/adb, user_channel_mode multiple), the two
// auth flows and security (trust level local; the data classes the tools
// read). Build is left empty: connector.BuildCard fills it.
func CardConfig() connector.CardConfig {
	return connector.CardConfig{
		CardID: CardID,
		Connector: connector.CardConnector{
			Name:    ConnectorName,
			Version: ConnectorVersion,
			Description: "Drive Android phones attached to a lab host through ADB: bind a channel to one phone, " +
				"observe it (screenshots, UI elements with refs, status) and act on it (tap, type, swipe, keys, apps, " +
				"URLs) with verification; wait for the screen, record it and read its logs.",
		},
		Supports: connector.CardSupports{
			UserChannelMode: "multiple",
			TargetTypes:     []string{TargetType},
			Targets:         []connector.CardTarget{{TargetType: TargetType, Provider: TargetProvider, Label: TargetLabel}},
			Profiles:        []string{connector.ProfileDeviceV1},
		},
		AuthFlows: AuthFlows(),
		UI:        LoginUI(),
		Security: connector.CardSecurity{
			TrustLevel:  "local",
			DataClasses: []string{"screen_image", "ui_text", "app_list", "device_state", "logs"},
		},
	}
}
