package connector

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the connector subsystem's collectors. Label values are bounded:
// packet types from the dispatch table (else "other"), error codes, tool ids.
type metrics struct {
	connections   prometheus.Gauge
	packetsIn     *prometheus.CounterVec
	packetsOut    *prometheus.CounterVec
	errors        *prometheus.CounterVec
	authFailures  *prometheus.CounterVec
	slowPeers     prometheus.Counter
	leaseExpiries prometheus.Counter
}

func newMetrics(reg *prometheus.Registry) *metrics {
	m := &metrics{
		connections: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "adb_connector_ws_connections", Help: "Open /ws data-plane connections."}),
		packetsIn: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adb_connector_ws_packets_received_total", Help: "Packets received, by type."}, []string{"type"}),
		packetsOut: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adb_connector_ws_packets_sent_total", Help: "Packets sent, by type."}, []string{"type"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adb_connector_ws_errors_sent_total", Help: "Error packets and ack errors sent, by code."}, []string{"code"}),
		authFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adb_connector_http_auth_failures_total", Help: "Requests refused for a missing or wrong API key."}, []string{"reason"}),
		slowPeers: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "adb_connector_ws_slow_peer_disconnects_total", Help: "Connections dropped because the peer did not read."}),
		leaseExpiries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "adb_connector_lease_expirations_total", Help: "connector_id leases that expired (§8.2)."}),
	}
	reg.MustRegister(m.connections, m.packetsIn, m.packetsOut, m.errors, m.authFailures, m.slowPeers,
		m.leaseExpiries,
		// Goroutines, memory and open file descriptors: a long-running lab
		// server shows a leak coming before it runs out.
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// knownType bounds the packet-type label to the dispatch table and the types we send.
func knownType(t string) string {
	if _, ok := dispatch[t]; ok {
		return t
	}
	switch t {
	case TypeHelloAck, TypeChannelOpenAck, TypeChannelCloseAck, TypeAuthStartAck, TypeAuthStatusAck,
		TypeAuthCancelAck, TypeAuthLogoutAck, TypeDescriptorGetAck, TypeDescriptorPush, TypeToolInvokeAck,
		TypeToolProgressPush, TypePong, TypeError:
		return t
	}
	return typeLabelUnrecognised
}
