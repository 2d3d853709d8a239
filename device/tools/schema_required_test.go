package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/connector"
)

// missingField matches the reasons a tool gives when the call lacks an
// argument (or a combination of them) that its input_schema could have said
// it needs.
var missingField = regexp.MustCompile(`is required|needs one of|needs a selector`)

// TestSchemasRequireWhatToolsRequire checks every tool of the Card: an
// argument object its input_schema accepts is never refused by the tool for
// a missing field. A client that reads the Card (the same JSON Schema
// validator, santhosh-tekuri/jsonschema, draft 2020-12) must be able to tell
// a complete call from an incomplete one. The objects tried are {}, each
// property alone with each sample value, and each nested object property
// with {} and each of its own properties alone. Calls the schema accepts
// run through the pipeline on a virtual phone, each bounded by a short
// context: only an invalid_arguments answer is looked at.
func TestSchemasRequireWhatToolsRequire(t *testing.T) {
	e := newToolsEnv(t, 1, func(c *Config) { c.RatePerMinute = 1 << 20 })
	card := connector.BuildCard(connector.CardConfig{CardID: "device.adb"}, e.reg)
	ch := devChannel(0)
	n := 0
	for _, ct := range card.Tools {
		s, err := compileInputSchema(ct.ToolID, ct.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		props, _ := ct.InputSchema["properties"].(map[string]any)
		for _, args := range candidateArgs(props) {
			raw, _ := json.Marshal(args)
			if _, err := s.validate(json.RawMessage(withChannelArg(string(raw), ch))); err != nil {
				continue // the schema refuses it: a client knows
			}
			n++
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
			a := e.call(t, ctx, ch, ct.ToolID, string(raw), "", nil)
			cancel()
			if a.Err != nil && a.Err.Code == connector.CodeInvalidArguments && missingField.MatchString(a.Err.Message) {
				t.Errorf("%s: the schema accepts %s, the tool refuses it: %s", ct.ToolID, raw, a.Err.Message)
			}
		}
	}
	if n == 0 {
		t.Fatal("no argument object was accepted by any schema")
	}
	// The schema's refusal names the combinations, not one leaf of them.
	a := e.call(t, t.Context(), ch, "android_tap", `{}`, "", nil)
	if want := "invalid arguments: needs one of: x and y | ref and screen_id | text | resource_id | content_desc"; a.Err == nil || a.Err.Message != want {
		t.Errorf("tap {}: %+v, want %q", a.Err, want)
	}
}

// candidateArgs are {} and each property of props alone, with each of its
// sample values.
func candidateArgs(props map[string]any) []map[string]any {
	out := []map[string]any{{}}
	names := make([]string, 0, len(props))
	for k := range props {
		if k != "connector_channel_id" {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		for _, v := range samples(props[k]) {
			out = append(out, map[string]any{k: v})
		}
	}
	return out
}

// samples are values a property schema accepts (when it has no pattern):
// each enum value, the smallest string, number or array, true, and for an
// object {} and each of its properties alone.
func samples(p any) []any {
	m, _ := p.(map[string]any)
	if enum, ok := m["enum"].([]any); ok {
		return enum
	}
	num := func(key string, def float64) float64 {
		switch v := m[key].(type) {
		case int:
			return float64(v)
		case float64:
			return v
		}
		return def
	}
	switch m["type"] {
	case "string":
		return []any{strings.Repeat("a", max(int(num("minLength", 1)), 1))}
	case "integer":
		return []any{int(num("minimum", 0))}
	case "number":
		return []any{num("minimum", 0.5)}
	case "boolean":
		return []any{true}
	case "array":
		item := samples(m["items"])
		if len(item) == 0 {
			return nil
		}
		arr := make([]any, int(num("minItems", 1)))
		for i := range arr {
			arr[i] = item[0]
		}
		return []any{arr}
	case "object":
		props, _ := m["properties"].(map[string]any)
		var out []any
		for _, c := range candidateArgs(props) {
			out = append(out, c)
		}
		return out
	}
	panic(fmt.Sprintf("no sample for schema %v", m))
}
