package device

import (
	"encoding/json"
	"flag"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adb-connector/adb-connector/connector"
	"github.com/adb-connector/adb-connector/connector/xagenttest"
	"github.com/adb-connector/adb-connector/device/card"
	"github.com/adb-connector/adb-connector/device/policy"
	"github.com/adb-connector/adb-connector/device/tools"
	"github.com/adb-connector/adb-connector/internal/buildinfo"
	"github.com/adb-connector/adb-connector/internal/testkit"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata golden files")

// TestCardGolden: the Card as served — CardConfig plus the registered
// tools — validates and matches testdata/card.golden.json (run with
// -update after an intended change). The operator's config names a shelf
// and allows uninstalling, so the Card has the tools only such a config
// offers (android_shell aside, whose schema has its own tests).
func TestCardGolden(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, 0, nil)
	pol, err := policy.Parse([]byte("policies:\n  default:\n    apps: {install_dir: /srv/apks, uninstall: true}\n"), policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := tools.New(tools.Config{Resolver: e.svc, Files: e.files, DB: e.db, Policy: policy.NewHolder(pol)})
	if err != nil {
		t.Fatal(err)
	}
	reg := connector.NewRegistry()
	if err := ts.Register(reg); err != nil {
		t.Fatal(err)
	}
	cfg := card.CardConfig()
	cfg.Build = buildinfo.Info{Version: "0.1.0", GitTag: "v0.1.0", GitRev: "0000000", BuildTime: "2026-12-02T00:00:00Z"}
	built := connector.BuildCard(cfg, reg)
	if err := connector.ValidateCard(&built); err != nil {
		t.Fatalf("ValidateCard: %v", err)
	}
	got, err := json.MarshalIndent(built, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "card.golden.json")
	testkit.Golden(t, path, got, *updateGolden)
	v, err := xagenttest.LoadValidator()
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Card(got); err != nil {
		t.Errorf("Card fails the connector card schema: %v", err)
	}
	// tools.IDs, which the Descriptor lists, is exactly the Card's tools, in order.
	var ids []string
	for _, ct := range built.Tools {
		ids = append(ids, ct.ToolID)
	}
	if diff := cmp.Diff(ids, tools.IDs(tools.Set{Files: true, Install: true, Uninstall: true})); diff != "" {
		t.Errorf("tool ids (-card +IDs):\n%s", diff)
	}
}
