package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adb-connector/adb-connector/device/tools"
	"github.com/adb-connector/adb-connector/internal/testkit"
)

var updateMetrics = flag.Bool("update-metrics", false, "rewrite testdata/metrics.golden")

// promtoolPath finds promtool: $PROMTOOL (make sets it), the repository's
// .bin (make test-deps puts it there), then PATH. Without one the promtool
// check is skipped (the rest of the test runs), except in CI, where it
// must run.
func promtoolPath(t *testing.T) string {
	t.Helper()
	for _, p := range []string{os.Getenv("PROMTOOL"), filepath.Join("..", "..", ".bin", "promtool")} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("promtool"); err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatal("promtool not found: `make test-deps` installs it in .bin")
	}
	return ""
}

// scrape GETs p's /metrics with the API key.
func scrape(t *testing.T, p *serveProc) string {
	t.Helper()
	return string(getWithKey(t, p.URL+"/metrics"))
}

func getWithKey(t *testing.T, url string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), setupWait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e2eKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return body
}

// sample is one line of the text exposition format.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// parseExposition reads the samples and the TYPE of each family of a
// /metrics body (the text format client_golang writes).
func parseExposition(t *testing.T, body string) (samples []sample, types map[string]string) {
	t.Helper()
	types = map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if f, ok := strings.CutPrefix(line, "# TYPE "); ok {
			name, typ, _ := strings.Cut(f, " ")
			types[name] = typ
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s := sample{labels: map[string]string{}}
		rest := line
		if i := strings.IndexAny(rest, "{ "); i >= 0 {
			s.name, rest = rest[:i], rest[i:]
		}
		if strings.HasPrefix(rest, "{") {
			rest = rest[1:]
			for !strings.HasPrefix(rest, "}") {
				name, after, ok := strings.Cut(rest, `="`)
				if !ok {
					t.Fatalf("bad sample line %q", line)
				}
				var val strings.Builder
				i := 0
				for ; i < len(after) && after[i] != '"'; i++ {
					if after[i] == '\\' && i+1 < len(after) {
						i++
					}
					val.WriteByte(after[i])
				}
				s.labels[name] = val.String()
				rest = strings.TrimPrefix(after[i+1:], ",")
			}
			rest = rest[1:]
		}
		v, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
		if err != nil {
			t.Fatalf("bad sample line %q: %v", line, err)
		}
		s.value = v
		samples = append(samples, s)
	}
	return samples, types
}

// value returns the sample of name whose labels include want; found is
// false when there is none.
func value(t *testing.T, body, name string, want map[string]string) (v float64, found bool) {
	t.Helper()
	samples, _ := parseExposition(t, body)
	for _, s := range samples {
		if s.name != name {
			continue
		}
		match := true
		for k, w := range want {
			if s.labels[k] != w {
				match = false
			}
		}
		if match {
			return s.value, true
		}
	}
	return 0, false
}

// metricNames lists each adb_connector family of body as "name type
// label,label" (no le/quantile), sorted: the golden list.
func metricNames(t *testing.T, body string) string {
	t.Helper()
	samples, types := parseExposition(t, body)
	labels := map[string]map[string]bool{}
	for _, s := range samples {
		fam := s.name
		if _, ok := types[fam]; !ok {
			for _, suf := range []string{"_bucket", "_sum", "_count"} {
				if b, ok := strings.CutSuffix(fam, suf); ok && types[b] != "" {
					fam = b
				}
			}
		}
		if labels[fam] == nil {
			labels[fam] = map[string]bool{}
		}
		for k := range s.labels {
			if k != "le" && k != "quantile" {
				labels[fam][k] = true
			}
		}
	}
	var lines []string
	for name, typ := range types {
		if !strings.HasPrefix(name, "adb_connector_") {
			continue // Go runtime and process collectors: their set is Go's
		}
		var ls []string
		for k := range labels[name] {
			ls = append(ls, k)
		}
		slices.Sort(ls)
		lines = append(lines, strings.TrimSpace(name+" "+typ+" "+strings.Join(ls, ",")))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}

// waitMetric scrapes p until name{want} has value v, within setupWait (the
// gauges follow adb tracking, which has no event to wait on from outside).
func waitMetric(t *testing.T, p *serveProc, name string, want map[string]string, v float64) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(setupWait)
	for {
		body := scrape(t, p)
		got, ok := value(t, body, name, want)
		if ok && got == v {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("%s%v = %v (found %v), want %v within %s", name, want, got, ok, v, setupWait)
		}
	}
}

// TestMetrics: a live /metrics scrape of serve with a virtual phone after
// tool calls passes `promtool check metrics`; its adb_connector families
// match testdata/metrics.golden (adding or removing a metric is a
// reviewed change: -update-metrics rewrites it; a labelled family shows
// only once a series exists, so the scenario touches each); the device
// gauges follow events: the phone listed, bound, gone offline, unbound.
func TestMetrics(t *testing.T) {
	t.Parallel()
	env, p, d, a, ch := pairedVirtualPhone(t)
	ep := env.ServerAddr

	// What makes every labelled family appear: a screenshot (and its
	// download), a replayed call, a failed one, a request without the key.
	var shot tools.ScreenshotResult
	result(t, a.invokeID(t, ch, "android_screenshot", "call_metrics_1", map[string]any{}), &shot)
	a.invokeID(t, ch, "android_screenshot", "call_metrics_1", map[string]any{})
	a.invoke(t, ch, "android_tap", map[string]any{"x": -1, "y": 1})
	getWithKey(t, p.URL+shot.DownloadURL)
	if resp, err := http.Get(p.URL + "/health"); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("/health without the key: %v %v, want 401", resp, err)
	} else {
		resp.Body.Close()
	}

	body := scrape(t, p)
	t.Run("promtool", func(t *testing.T) {
		promtool := promtoolPath(t)
		if promtool == "" {
			t.Skip("promtool not found: run `make test-deps` to install it in .bin")
		}
		cmd := exec.CommandContext(t.Context(), promtool, "check", "metrics")
		cmd.Stdin = strings.NewReader(body)
		if out, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
			t.Errorf("promtool check metrics: %v\n%s", err, out)
		}
	})
	testkit.Golden(t, filepath.Join("testdata", "metrics.golden"), []byte(metricNames(t, body)), *updateMetrics)

	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"adb_connector_adb_server_up", map[string]string{"endpoint": ep}, 1},
		{"adb_connector_device_phones", map[string]string{"endpoint": ep, "state": "device"}, 1},
		{"adb_connector_device_phones", map[string]string{"endpoint": ep, "state": "offline"}, 0},
		{"adb_connector_device_phones", map[string]string{"endpoint": ep, "state": "no permissions"}, 0},
		{"adb_connector_device_bindings", map[string]string{"state": "bound"}, 1},
		{"adb_connector_device_bindings", map[string]string{"state": "revoked"}, 0},
		{"adb_connector_tool_screenshot_bytes_count", map[string]string{"format": "png"}, 1},
		{"adb_connector_tool_duration_seconds_count", map[string]string{"tool": "android_screenshot", "outcome": "ok"}, 2},
		{"adb_connector_tool_duration_seconds_count", map[string]string{"tool": "android_tap", "outcome": "invalid_arguments"}, 1},
	} {
		if got, ok := value(t, body, c.name, c.labels); !ok || got != c.want {
			t.Errorf("%s%v = %v (found %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	if v, _ := value(t, body, "adb_connector_tool_screenshot_bytes_sum", map[string]string{"format": "png"}); v != float64(shot.ByteSize) {
		t.Errorf("screenshot bytes sum %v, want the file's %d", v, shot.ByteSize)
	}

	// The phone drops off the network: adb lists it offline.
	if err := d.Vanish(time.Hour); err != nil {
		t.Fatal(err)
	}
	waitMetric(t, p, "adb_connector_device_phones", map[string]string{"endpoint": ep, "state": "offline"}, 1)
	waitMetric(t, p, "adb_connector_device_phones", map[string]string{"endpoint": ep, "state": "device"}, 0)

	p.cli(t, runUnbind, d.Serial())
	waitMetric(t, p, "adb_connector_device_bindings", map[string]string{"state": "bound"}, 0)
	waitMetric(t, p, "adb_connector_device_bindings", map[string]string{"state": "revoked"}, 1)
	if t.Failed() {
		t.Log(p.Logs())
	}
}
