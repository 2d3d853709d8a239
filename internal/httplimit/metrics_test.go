package httplimit

import (
	"net"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestMetricsLint: the collectors pass promtool's lint and follow
// adb_connector_<subsystem>_<name>_<unit>.
func TestMetricsLint(t *testing.T) {
	t.Parallel()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer inner.Close()
	l := NewListener(inner, Config{})
	reg := prometheus.NewPedanticRegistry()
	for _, c := range l.Collectors() {
		if err := reg.Register(c); err != nil {
			t.Fatal(err)
		}
	}
	problems, err := testutil.GatherAndLint(reg)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Fatalf("lint problems: %+v", problems)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if !strings.HasPrefix(mf.GetName(), "adb_connector_http_connections") {
			t.Errorf("metric %s outside adb_connector_http_connections*", mf.GetName())
		}
	}
	if len(mfs) != 3 {
		t.Errorf("%d metric families, want 3", len(mfs))
	}
}
