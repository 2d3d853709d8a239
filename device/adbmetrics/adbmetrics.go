// Package adbmetrics exports what package adb counts and tracks as
// Prometheus metrics: the phones each adb server lists by state, whether
// each adb server answers, and the phone helper's calls, starts and
// failures. It reads at scrape time what the adb Client already holds: no
// I/O, and nothing to keep in step as phones come and go.
package adbmetrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/adb-connector/adb-connector/adb"
)

// phoneStates are the label values of adb_connector_device_phones: adb's
// own words, so a series reads like `adb devices`. A word adb may add
// later is counted as "unknown", which keeps the label set bounded.
var phoneStates = []adb.State{
	adb.StateDevice, adb.StateOffline, adb.StateUnauthorized, adb.StateAuthorizing, adb.StateConnecting,
	adb.StateNoPermissions, adb.StateBootloader, adb.StateRecovery, adb.StateSideload, adb.StateRescue,
	adb.StateHost, adb.StateUnknown,
}

var (
	phonesDesc = prometheus.NewDesc("adb_connector_device_phones",
		"Phones each adb server lists, by adb state; every state is reported, 0 when none.",
		[]string{"endpoint", "state"}, nil)
	serverUpDesc = prometheus.NewDesc("adb_connector_adb_server_up",
		"1 while device tracking follows the adb server, 0 while it is unreachable or not yet answered.",
		[]string{"endpoint"}, nil)
)

var (
	helperCallsDesc = prometheus.NewDesc("adb_connector_helper_calls_total",
		"Phone operations by the path that served them: the resident phone helper, or the stock commands (uiautomator, input, screencap).",
		[]string{"op", "path"}, nil)
	helperStartsDesc = prometheus.NewDesc("adb_connector_helper_starts_total",
		"Phone helper starts attempted (an app_process launched).", nil, nil)
	helperFailuresDesc = prometheus.NewDesc("adb_connector_helper_failures_total",
		"Phone helper failures by reason; each sends the calls to the stock path for a backoff.",
		[]string{"reason"}, nil)
)

// collector reports an adb Client's gauges and counters. Labels are
// bounded: configured endpoints, the fixed state, op, path and reason lists.
type collector struct{ c *adb.Client }

// New returns the collector of c's metrics.
func New(c *adb.Client) prometheus.Collector { return collector{c} }

// Describe implements prometheus.Collector.
func (collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- phonesDesc
	ch <- serverUpDesc
	ch <- helperCallsDesc
	ch <- helperStartsDesc
	ch <- helperFailuresDesc
}

// Collect implements prometheus.Collector.
func (c collector) Collect(ch chan<- prometheus.Metric) {
	if c.c == nil {
		return
	}
	up := c.c.ServersUp()
	counts := make(map[string]map[adb.State]int, len(up))
	for ep := range up {
		counts[ep] = map[adb.State]int{}
	}
	known := make(map[adb.State]bool, len(phoneStates))
	for _, st := range phoneStates {
		known[st] = true
	}
	for _, d := range c.c.Tracked() {
		m := counts[d.Endpoint]
		if m == nil { // not a configured endpoint: cannot happen, and must not add a label value
			continue
		}
		st := d.State
		if !known[st] {
			st = adb.StateUnknown
		}
		m[st]++
	}
	for ep, isUp := range up {
		v := 0.0
		if isUp {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(serverUpDesc, prometheus.GaugeValue, v, ep)
		for _, st := range phoneStates {
			ch <- prometheus.MustNewConstMetric(phonesDesc, prometheus.GaugeValue, float64(counts[ep][st]), ep, string(st))
		}
	}
	c.helpers(ch)
}

// helpers reports the phone helper's counters: every series from the
// start (zero until counted), so a rate over a fresh server sees the
// first one.
func (c collector) helpers(ch chan<- prometheus.Metric) {
	n := c.c.HelperCounts()
	for _, op := range adb.HelperOps {
		for _, path := range []string{adb.PathHelper, adb.PathStock} {
			v := n.Calls[adb.HelperCall{Op: op, Path: path}]
			ch <- prometheus.MustNewConstMetric(helperCallsDesc, prometheus.CounterValue, float64(v), op, path)
		}
	}
	ch <- prometheus.MustNewConstMetric(helperStartsDesc, prometheus.CounterValue, float64(n.Starts))
	for _, why := range adb.HelperFailureReasons {
		ch <- prometheus.MustNewConstMetric(helperFailuresDesc, prometheus.CounterValue, float64(n.Failures[why]), why)
	}
}
