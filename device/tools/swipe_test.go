package tools

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/adb-connector/adb-connector/connector"
)

func TestSwipePath(t *testing.T) {
	t.Parallel()
	screen := area{0, 0, 720, 1280}
	list := area{0, 120, 720, 1280}
	for _, tc := range []struct {
		name     string
		ar       area
		dir      string
		dist     float64
		from, to [2]int
	}{
		{"up 0.6 of the screen", screen, swipeUp, 0.6, [2]int{360, 1024}, [2]int{360, 256}},
		{"down 0.6 of the screen", screen, swipeDown, 0.6, [2]int{360, 256}, [2]int{360, 1024}},
		{"left 0.5", screen, swipeLeft, 0.5, [2]int{540, 640}, [2]int{180, 640}},
		{"right 0.5", screen, swipeRight, 0.5, [2]int{180, 640}, [2]int{540, 640}},
		// The whole distance stays a twentieth away from the edges, where
		// gesture navigation would take it as home or back.
		{"up 1.0 keeps off the edges", screen, swipeUp, 1, [2]int{360, 1215}, [2]int{360, 64}},
		{"left 1.0 keeps off the edges", screen, swipeLeft, 1, [2]int{683, 640}, [2]int{36, 640}},
		{"up inside a list", list, swipeUp, 0.6, [2]int{360, 1048}, [2]int{360, 352}},
		{"up 0.1 inside a list", list, swipeUp, 0.1, [2]int{360, 758}, [2]int{360, 642}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from, to := swipePath(tc.ar, tc.dir, tc.dist)
			if from != tc.from || to != tc.to {
				t.Errorf("swipePath = %v -> %v, want %v -> %v", from, to, tc.from, tc.to)
			}
			for _, p := range [][2]int{from, to} {
				if p[0] < tc.ar[0] || p[0] >= tc.ar[2] || p[1] < tc.ar[1] || p[1] >= tc.ar[3] {
					t.Errorf("%v is outside %v", p, tc.ar)
				}
			}
		})
	}
}

// swipeArgCases are calls android_swipe refuses before touching the phone,
// and the field the message names.
var swipeArgCases = []struct{ args, field string }{
	{`{}`, "direction"},
	{`{"from":[1,2]}`, "to"},
	{`{"to":[1,2]}`, "from"},
	{`{"from":[1,2],"to":[3,4],"direction":"up"}`, "either from and to or direction"},
	{`{"from":[1,2],"to":[3,4],"distance":0.5}`, "distance"},
	{`{"from":[1,2],"to":[3,4],"within":{"text":"a"}}`, "within"},
	{`{"direction":"up","max_swipes":3}`, "max_swipes"},
	{`{"direction":"up","until":{"ref":"e1","screen_id":"s1"}}`, "until.ref"},
	{`{"direction":"up","until":{}}`, "until"},
	{`{"direction":"up","until":{"index":1}}`, "until.index"},
	{`{"direction":"up","within":{"text":"a","resource_id":"b"}}`, "within"},
	{`{"direction":"up","within":{"text":"(","match":"regex"}}`, "within.match"},
	{`{"direction":"up","settle_ms":100}`, "settle_ms"},
}

func TestSwipeArgsCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range swipeArgCases {
		t.Run(tc.args, func(t *testing.T) {
			a, err := decodeArgs[swipeArgs](&invocation{raw: json.RawMessage(tc.args)})
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = a.check()
			var ae *argError
			if !errors.As(err, &ae) || !strings.Contains(ae.Error(), tc.field) {
				t.Errorf("check = %v, want an *ArgError naming %s", err, tc.field)
			}
		})
	}
	for _, ok := range []string{
		`{"from":[1,2],"to":[3,4],"duration_ms":50}`,
		`{"direction":"left"}`,
		`{"direction":"up","distance":0.3,"within":{"resource_id":"list"},"until":{"text":"Item 80"},"max_swipes":20,"verify":true}`,
	} {
		a, err := decodeArgs[swipeArgs](&invocation{raw: json.RawMessage(ok)})
		if err == nil {
			_, _, err = a.check()
		}
		if err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// TestSwipeSchema: the published schema refuses what is out of range or
// unknown, naming the field.
func TestSwipeSchema(t *testing.T) {
	t.Parallel()
	s := publishedSchema(t, swipeTool(&Tools{}))
	for _, tc := range []struct{ args, field string }{
		{`{"direction":"sideways"}`, "direction"},
		{`{"direction":"up","distance":0.05}`, "distance"},
		{`{"direction":"up","distance":1.5}`, "distance"},
		{`{"direction":"up","duration_ms":49}`, "duration_ms"},
		{`{"direction":"up","duration_ms":10001}`, "duration_ms"},
		{`{"direction":"up","until":{"text":"a"},"max_swipes":0}`, "max_swipes"},
		{`{"direction":"up","until":{"text":"a"},"max_swipes":51}`, "max_swipes"},
		{`{"from":[1],"to":[1,2]}`, "from"},
		{`{"from":[1,2,3],"to":[1,2]}`, "from"},
		{`{"from":[-1,2],"to":[1,2]}`, "from"},
		{`{"direction":"up","until":{"txt":"a"}}`, "until.txt"},
	} {
		_, err := s.validate(json.RawMessage(tc.args))
		var ae *argError
		if !errors.As(err, &ae) || !strings.HasPrefix(ae.Field, tc.field) {
			t.Errorf("%s: %v, want an error on %s", tc.args, err, tc.field)
		}
	}
}

// publishedSchema compiles d's input_schema as the Card publishes it.
func publishedSchema(t *testing.T, d *toolDef) *compiledSchema {
	t.Helper()
	s, err := compileInputSchema(d.tool.ID, connector.WithConnectorChannelIDInputSchema(d.tool.InputSchema))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
