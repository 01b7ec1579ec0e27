package metrics

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// collectErrors counts the failed reads of one source that a collector
// reads at scrape time. The collector owns it and reports it at the end
// of its own Collect: a counter registered beside the collector would be
// gathered concurrently with the read that increments it, so the scrape
// that hit an error might or might not show it.
type collectErrors struct {
	desc  *prometheus.Desc
	count atomic.Uint64
}

func newCollectErrors(source string) *collectErrors {
	return &collectErrors{desc: prometheus.NewDesc("device_collect_errors_total",
		"Failures reading a metrics source at scrape time.", nil, prometheus.Labels{"source": source})}
}

func (e *collectErrors) failed() { e.count.Add(1) }

func (e *collectErrors) metric() prometheus.Metric {
	return prometheus.MustNewConstMetric(e.desc, prometheus.CounterValue, float64(e.count.Load()))
}
