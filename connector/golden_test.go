package connector_test

import (
	"encoding/json"
	"flag"
	"path/filepath"
	"testing"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// TestCardGolden pins the Card wire shape built from the test registry.
func TestCardGolden(t *testing.T) {
	t.Parallel()
	reg := connector.NewRegistry()
	for _, tool := range testTools(nil, nil)[:2] {
		if err := reg.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	card := connector.BuildCard(cardConfig(), reg)
	if err := connector.ValidateCard(&card); err != nil {
		t.Fatal(err)
	}
	got, _ := json.MarshalIndent(card, "", "  ")
	got = append(got, '\n')
	path := filepath.Join("testdata", "card.golden.json")
	testkit.Golden(t, path, got, *update)
}
