// Package metrics is the head-end's Prometheus metrics: exec requests by ssh
// mode and outcome with their durations, SSH dials by outcome, and the
// pool's idle connections. A registry of its own keeps the page to these.
package metrics

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics implements the api and sshpool packages' observers.
type Metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	dials    *prometheus.CounterVec
	idle     prometheus.Gauge
}

// New registers the metrics.
func New() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "headend_requests_total",
			Help: "Exec requests by ssh mode (fresh, pooled, invalid) and outcome (ok, bad_request, unauthorized, forbidden, ssh_error, timeout).",
		}, []string{"ssh", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "headend_request_duration_seconds",
			Help: "Exec request time in the head-end, by ssh mode.",
			// From a pooled command on the LAN to the 30 s default timeout.
			Buckets: []float64{.002, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"ssh"}),
		dials: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "headend_ssh_dials_total",
			Help: "SSH connections dialed to devices (connect and login), by outcome (ok, error).",
		}, []string{"outcome"}),
		idle: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "headend_ssh_pool_idle_connections",
			Help: "Idle pooled SSH connections, all devices together.",
		}),
	}
	m.registry.MustRegister(m.requests, m.duration, m.dials, m.idle)
	return m
}

// Request counts an exec request.
func (m *Metrics) Request(ssh, outcome string, d time.Duration) {
	m.requests.WithLabelValues(ssh, outcome).Inc()
	m.duration.WithLabelValues(ssh).Observe(d.Seconds())
}

// Dialed counts an SSH dial.
func (m *Metrics) Dialed(ok bool) {
	outcome := "error"
	if ok {
		outcome = "ok"
	}
	m.dials.WithLabelValues(outcome).Inc()
}

// IdleConnections sets the pool's size.
func (m *Metrics) IdleConnections(n int) { m.idle.Set(float64(n)) }

// Handler serves the metrics in Prometheus' text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}
