package device

import "github.com/prometheus/client_golang/prometheus"

// leaseMetrics count lease ends and resets. Labels are bounded: a reason
// from a fixed set, an outcome from a fixed set.
type leaseMetrics struct {
	leaseEnds *prometheus.CounterVec
	resets    *prometheus.CounterVec
	resetDur  prometheus.Histogram
}

func newLeaseMetrics() *leaseMetrics {
	return &leaseMetrics{
		leaseEnds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adb_connector_device_lease_ends_total",
			Help: "Device bindings ended by their lease, by reason (idle_timeout, max_duration).",
		}, []string{"reason"}),
		resets: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adb_connector_device_resets_total",
			Help: "Resets of released devices, by outcome (ok, reset_failed, device_offline).",
		}, []string{"outcome"}),
		resetDur: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "adb_connector_device_reset_duration_seconds",
			Help:    "How long a reset of a released device took.",
			Buckets: []float64{0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60},
		}),
	}
}

// leaseCollectors are the lease and reset metrics (see Collectors).
func (s *Service) leaseCollectors() []prometheus.Collector {
	return []prometheus.Collector{s.metrics.leaseEnds, s.metrics.resets, s.metrics.resetDur}
}
