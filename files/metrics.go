package files

import "github.com/prometheus/client_golang/prometheus"

// Download results, the values of the "result" label of downloads_total.
const (
	resultOK               = "ok"
	resultNotFound         = "not_found"
	resultForbidden        = "forbidden"
	resultMethodNotAllowed = "method_not_allowed"
	resultError            = "error"
)

type metrics struct {
	files     prometheus.Gauge
	bytes     prometheus.Gauge
	evictions prometheus.Counter
	expired   prometheus.Counter
	downloads *prometheus.CounterVec
}

func newMetrics() *metrics {
	m := &metrics{
		files: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "adb_connector_files_stored",
			Help: "Files currently kept for download.",
		}),
		bytes: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "adb_connector_files_stored_bytes",
			Help: "Total size of the files currently kept for download.",
		}),
		evictions: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "adb_connector_files_evictions_total",
			Help: "Files removed before their expiry to stay under the total size cap.",
		}),
		expired: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "adb_connector_files_expired_total",
			Help: "Files removed by the janitor after their TTL.",
		}),
		downloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adb_connector_files_downloads_total",
			Help: "Requests to /files/refs/{file_ref} by result (any method).",
		}, []string{"result"}),
	}
	for _, r := range []string{resultOK, resultNotFound, resultForbidden, resultMethodNotAllowed, resultError} {
		m.downloads.WithLabelValues(r)
	}
	return m
}

// publishTotalsLocked sets the stored-files gauges. s.mu must be held: it
// reads idx without idxMu, which is safe because idx changes only under mu.
func (s *Store) publishTotalsLocked() {
	s.metrics.files.Set(float64(len(s.idx)))
	s.metrics.bytes.Set(float64(s.totalBytes))
}

// Collectors returns the Store's metrics for the server's registry:
// adb_connector_files_stored, adb_connector_files_stored_bytes,
// adb_connector_files_evictions_total, adb_connector_files_expired_total and
// adb_connector_files_downloads_total{result}. Each Store has its own.
func (s *Store) Collectors() []prometheus.Collector {
	m := s.metrics
	return []prometheus.Collector{m.files, m.bytes, m.evictions, m.expired, m.downloads}
}
