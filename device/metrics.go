package device

import (
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/adb-connector/adb-connector/adb"
	"github.com/adb-connector/adb-connector/device/binding"
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
	bindingsDesc = prometheus.NewDesc("adb_connector_device_bindings",
		"Channel-device bindings, by state (bound, revoked).",
		[]string{"state"}, nil)
)

// serviceCollector reports the Service's device and binding gauges at
// scrape time from what tracking and the binding cache already hold: no
// I/O, and nothing to keep in step as devices come and go. Labels are
// bounded: configured endpoints, the fixed state lists.
type serviceCollector struct{ s *Service }

// Collectors returns the Service's Prometheus collectors, for the
// server's registry: phones by state per adb server, adb server up,
// bindings by state, lease ends and resets.
func (s *Service) Collectors() []prometheus.Collector {
	return slices.Concat([]prometheus.Collector{serviceCollector{s}, helperCollector{s.cfg.ADB}}, s.leases.Collectors(), s.resets.Collectors())
}

// Describe implements prometheus.Collector.
func (serviceCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- phonesDesc
	ch <- serverUpDesc
	ch <- bindingsDesc
}

// Collect implements prometheus.Collector.
func (c serviceCollector) Collect(ch chan<- prometheus.Metric) {
	up := c.s.cfg.ADB.ServersUp()
	counts := make(map[string]map[adb.State]int, len(up))
	for ep := range up {
		counts[ep] = map[adb.State]int{}
	}
	known := make(map[adb.State]bool, len(phoneStates))
	for _, st := range phoneStates {
		known[st] = true
	}
	for _, d := range c.s.cfg.ADB.Tracked() {
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
	byState := map[binding.State]int{}
	c.s.mu.RLock()
	for _, b := range c.s.byChannel {
		byState[b.State]++
	}
	c.s.mu.RUnlock()
	for _, st := range []binding.State{binding.Bound, binding.Revoked} {
		ch <- prometheus.MustNewConstMetric(bindingsDesc, prometheus.GaugeValue, float64(byState[st]), string(st))
	}
}
