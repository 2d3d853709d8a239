package device

import (
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/adb-connector/adb-connector/device/adbmetrics"
	"github.com/adb-connector/adb-connector/device/binding"
)

var bindingsDesc = prometheus.NewDesc("adb_connector_device_bindings",
	"Channel-device bindings, by state (bound, revoked).",
	[]string{"state"}, nil)

// serviceCollector reports the Service's binding gauge at scrape time
// from the binding cache.
type serviceCollector struct{ s *Service }

// Collectors returns the Service's Prometheus collectors, for the
// server's registry: phones by state per adb server, adb server up and
// the phone helper's counters (package adbmetrics), bindings by state,
// lease ends and resets.
func (s *Service) Collectors() []prometheus.Collector {
	return slices.Concat([]prometheus.Collector{serviceCollector{s}, adbmetrics.New(s.cfg.ADB)}, s.leases.Collectors(), s.resets.Collectors())
}

// Describe implements prometheus.Collector.
func (serviceCollector) Describe(ch chan<- *prometheus.Desc) { ch <- bindingsDesc }

// Collect implements prometheus.Collector.
func (c serviceCollector) Collect(ch chan<- prometheus.Metric) {
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
