package metrics

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// http3Counters count what the HTTP/3 server (internal/h3) decides per
// request and per connection; the runner reads them around a run to prove
// from the server's side that 0-RTT carried its requests.
type http3Counters struct {
	requests   *prometheus.CounterVec
	handshakes *prometheus.CounterVec
}

func newHTTP3Counters() http3Counters {
	c := http3Counters{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "device_http3_requests_total",
			Help: "HTTP/3 requests, by whether they arrived in 0-RTT early data (before the handshake completed) " +
				"and whether they were passed to the API (accepted) or refused with 425 Too Early, unexecuted (refused).",
		}, []string{"early_data", "outcome"}),
		handshakes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "device_http3_handshakes_total",
			Help: "QUIC connections whose handshake completed, by TLS session resumption and by whether the server accepted 0-RTT early data on them.",
		}, []string{"resumed", "early_data"}),
	}
	// Every combination from zero, so a run's difference is defined from the first request.
	for _, early := range []bool{false, true} {
		for _, outcome := range []string{"accepted", "refused"} {
			c.requests.WithLabelValues(strconv.FormatBool(early), outcome)
		}
		for _, resumed := range []bool{false, true} {
			c.handshakes.WithLabelValues(strconv.FormatBool(resumed), strconv.FormatBool(early))
		}
	}
	return c
}

// HTTP3Request counts one HTTP/3 request: whether it arrived in early data,
// and whether it was refused with 425 rather than passed to the API.
func (m *Metrics) HTTP3Request(earlyData, refused bool) {
	outcome := "accepted"
	if refused {
		outcome = "refused"
	}
	m.http3.requests.WithLabelValues(strconv.FormatBool(earlyData), outcome).Inc()
}

// HTTP3Handshake counts one QUIC connection whose handshake completed.
func (m *Metrics) HTTP3Handshake(resumed, earlyData bool) {
	m.http3.handshakes.WithLabelValues(strconv.FormatBool(resumed), strconv.FormatBool(earlyData)).Inc()
}

// HTTP3SessionOpened records a QUIC connection to device, accepted.
func (m *Metrics) HTTP3SessionOpened(device int) { m.http3Sessions.open(device) }

// HTTP3SessionClosed records the end of a QUIC connection to device.
func (m *Metrics) HTTP3SessionClosed(device int) { m.http3Sessions.close(device) }
