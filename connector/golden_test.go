package connector_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adb-connector/adb-connector/connector"
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
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestCardGolden -update)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("card differs from %s (-want +got):\n%s", path, diff)
	}
}
