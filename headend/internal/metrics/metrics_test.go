package metrics

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestPage(t *testing.T) {
	m := New()
	m.Request("pooled", "ok", 30*time.Millisecond)
	m.Request("fresh", "timeout", 2*time.Second)
	m.Dialed(true)
	m.Dialed(true)
	m.Dialed(false)
	m.IdleConnections(3)

	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	page, _ := io.ReadAll(rec.Body)
	for _, line := range []string{
		`headend_requests_total{outcome="ok",ssh="pooled"} 1`,
		`headend_requests_total{outcome="timeout",ssh="fresh"} 1`,
		`headend_request_duration_seconds_count{ssh="pooled"} 1`,
		`headend_request_duration_seconds_bucket{ssh="pooled",le="0.05"} 1`,
		`headend_ssh_dials_total{outcome="ok"} 2`,
		`headend_ssh_dials_total{outcome="error"} 1`,
		`headend_ssh_pool_idle_connections 3`,
	} {
		if !strings.Contains(string(page), line+"\n") {
			t.Errorf("no line %q in:\n%s", line, page)
		}
	}
}
