package connector_test

import (
	"encoding/json"
	"testing"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/connector/xagenttest"
)

// FuzzValidateCard decodes arbitrary JSON as a Card and a Descriptor and
// validates both. Property: validation never panics, and whatever
// ValidateCard/ValidateDescriptor accept also matches the public JSON Schema.
func FuzzValidateCard(f *testing.F) {
	good := connector.BuildCard(cardConfig(), nil)
	seed, _ := json.Marshal(good)
	f.Add(seed, []byte(`{"schema":"xagent.connection/v2","connection":{"connector_card_id":"device.adb","connector_id":"c","connector_channel_id":"cch_1","target_type":"device","profiles":["xagent.device.v1"],"status":"created"},"target":{"provider":"adb","display_name":"x"}}`))
	f.Add([]byte(`{"schema":"xagent.connector/v1","protocol_version":"3.0","tools":[{"tool_id":"a b"}]}`), []byte(`{}`))
	f.Add([]byte(`{"supports":{"target_types":["im"],"profiles":["xagent.device.v1"]}}`), []byte(`{"tools":[{"tool_id":""}]}`))
	f.Add([]byte(`{"tools":[{"tool_id":"t","profile":"xagent.device.v1","input_schema":{"type":"object","properties":{"connector_channel_id":{"type":"string"}},"required":["connector_channel_id"]}}]}`), []byte(`null`))
	v, err := xagenttest.LoadValidator()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, cardJSON, descJSON []byte) {
		var card connector.Card
		if json.Unmarshal(cardJSON, &card) != nil {
			return
		}
		if connector.ValidateCard(&card) == nil {
			b, _ := json.Marshal(card)
			if err := v.Card(b); err != nil {
				t.Fatalf("ValidateCard accepted a card the schema rejects: %v\n%s", err, b)
			}
		}
		var d connector.Descriptor
		if json.Unmarshal(descJSON, &d) != nil {
			return
		}
		if connector.ValidateDescriptor(&good, "cch_1", &d) == nil {
			b, _ := json.Marshal(d)
			if err := v.Descriptor(b); err != nil {
				t.Fatalf("ValidateDescriptor accepted a descriptor the schema rejects: %v\n%s", err, b)
			}
		}
	})
}
