package metrics

import "github.com/prometheus/client_golang/prometheus"

// TransportGNMI is the gNMI server (internal/gnmi), served by the daemon.
const TransportGNMI = "gnmi"

// gnmiCounters count what the gNMI server serves.
type gnmiCounters struct {
	rpcs          *prometheus.CounterVec
	subscriptions *prometheus.GaugeVec
	updates       *prometheus.CounterVec
	dropped       prometheus.Counter
}

// gnmiModes are the subscription list modes, exported at zero from start.
var gnmiModes = []string{"once", "poll", "stream"}

func newGNMICounters() gnmiCounters {
	c := gnmiCounters{
		rpcs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "device_gnmi_rpcs_total", Help: "gNMI calls answered, per RPC and gRPC status code.",
		}, []string{"rpc", "code"}),
		subscriptions: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "device_gnmi_subscriptions", Help: "gNMI Subscribe calls open, per subscription list mode.",
		}, []string{"mode"}),
		updates: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "device_gnmi_updates_total", Help: "gNMI notifications sent to subscribers, per subscription list mode.",
		}, []string{"mode"}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "device_gnmi_dropped_subscriptions_total",
			Help: "gNMI STREAM subscriptions dropped because the client fell behind (its send queue was full).",
		}),
	}
	for _, mode := range gnmiModes {
		c.subscriptions.WithLabelValues(mode)
		c.updates.WithLabelValues(mode)
	}
	return c
}

func (c gnmiCounters) collectors() []prometheus.Collector {
	return []prometheus.Collector{c.rpcs, c.subscriptions, c.updates, c.dropped}
}

// GNMIRPC counts one gNMI call by the status code it ended with ("OK").
func (m *Metrics) GNMIRPC(rpc, code string) { m.gnmi.rpcs.WithLabelValues(rpc, code).Inc() }

// GNMISubscriptionOpened records an open Subscribe call of a list mode.
func (m *Metrics) GNMISubscriptionOpened(mode string) {
	m.gnmi.subscriptions.WithLabelValues(mode).Inc()
}

// GNMISubscriptionClosed records the end of one.
func (m *Metrics) GNMISubscriptionClosed(mode string) {
	m.gnmi.subscriptions.WithLabelValues(mode).Dec()
}

// GNMIUpdates counts notifications sent to subscribers of a list mode.
func (m *Metrics) GNMIUpdates(mode string, notifications int) {
	m.gnmi.updates.WithLabelValues(mode).Add(float64(notifications))
}

// GNMISubscriptionDropped counts a subscriber dropped for falling behind.
func (m *Metrics) GNMISubscriptionDropped() { m.gnmi.dropped.Inc() }
