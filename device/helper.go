package device

import (
	"github.com/adb-connector/adb-connector/adb"
	"github.com/prometheus/client_golang/prometheus"
)

// The phone helper (package adb runs it) as the operator controls and
// sees it: the policy's phone_helper applied to each device, and its
// counters as metrics (the console reads its state from adb itself).

// applyHelperPolicy turns the helper on or off on the known devices (all
// when keys is empty) as the policy in force says (phone_helper).
func (s *Service) applyHelperPolicy(keys ...string) {
	if s.cfg.Policy == nil {
		return
	}
	if len(keys) == 0 {
		s.mu.RLock()
		for k := range s.presence {
			keys = append(keys, k)
		}
		s.mu.RUnlock()
	}
	for _, key := range keys {
		s.mu.RLock()
		dev := s.deviceLocked(key)
		s.mu.RUnlock()
		if d, err := s.cfg.ADB.Device(key); err == nil {
			d.SetHelper(s.cfg.Policy.For(dev).HelperOn())
		}
	}
}

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

// helperCollector exports the adb Client's helper counters.
type helperCollector struct{ c *adb.Client }

// Describe implements prometheus.Collector.
func (helperCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- helperCallsDesc
	ch <- helperStartsDesc
	ch <- helperFailuresDesc
}

// Collect implements prometheus.Collector.
func (h helperCollector) Collect(ch chan<- prometheus.Metric) {
	if h.c == nil {
		return
	}
	// Every series from the start (zero until counted), so a rate over
	// a fresh server sees the first one.
	n := h.c.HelperCounts()
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
