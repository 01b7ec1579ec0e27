// Package api is the device's HTTP management API. nginx terminates TLS on
// TCP port 443 and proxies to this handler over a unix socket; the HTTP/3
// server (internal/h3) serves the same handler on UDP port 443.
// Authentication is checked here so every transport shares one user
// database.
package api

import (
	"fmt"
	"net/http"

	"transportlab/emulator/internal/engine"
)

// Recorder receives what the API serves; *metrics.Metrics implements it.
type Recorder interface {
	CommandServed(transport string, device int, errorKind string)
	APIRequest(route string, code int)
	AuthFailed(transport string)
}

// MaxBodyBytes bounds a configuration upload (nginx enforces the same).
const MaxBodyBytes = 1 << 20

// Server answers API requests against one engine, for every device of a
// fleet.
type Server struct {
	engine   *engine.Engine
	creds    Credentials
	recorder Recorder
	fleet    Fleet
}

// NewHandler returns the API routes:
//
//	GET  /healthz              "ok", no authentication
//	GET  /admin/exec/{cmds...} exec commands, one per path segment
//	POST /admin/config         configuration lines in a text/plain body
//	GET  /admin/fleet          the emulated devices, JSON: {"platform":"cisco_iosxe",
//	                           "devices":[{"index":1,"name":"lab-r1","address":"198.18.100.129",
//	                           "crypto_profile":"cisco_iosxe","crypto":{"source":...,"ssh":{"kex":[...],
//	                           ...},"tls":{...}}}, ...]}; a list the profile leaves to the build
//	                           reads "defaults of OpenSSH_9.2p1" (or of OpenSSL, or of nginx)
//	GET  /bulk/{size}          10M, 100M or 1G bytes: the tunnel target's payloads, direct
//	/restconf/...              the device's RESTCONF handler
//
// Exec, configuration and RESTCONF requests are for the device on the
// address the client connected to (DeviceAddressHeader); bulk payloads
// are shared.
func NewHandler(e *engine.Engine, creds Credentials, recorder Recorder, fleet Fleet) (http.Handler, error) {
	if len(fleet.Devices) != fleet.Plan.Size() || len(fleet.Devices) == 0 {
		return nil, fmt.Errorf("api: %d device states for a fleet of %d", len(fleet.Devices), fleet.Plan.Size())
	}
	s := &Server{engine: e, creds: creds, recorder: recorder, fleet: fleet}
	mux := http.NewServeMux()
	mux.Handle("GET /healthz", s.counted("healthz", http.HandlerFunc(handleHealth)))
	mux.Handle("GET /admin/exec/", s.counted("exec", s.authenticated(http.HandlerFunc(s.handleExec))))
	mux.Handle("POST /admin/config", s.counted("config", s.authenticated(http.HandlerFunc(s.handleConfig))))
	mux.Handle("GET /admin/fleet", s.counted("fleet", s.authenticated(http.HandlerFunc(s.handleFleet))))
	mux.Handle("GET /bulk/{size}", s.counted("bulk", s.authenticated(http.HandlerFunc(handleBulk))))
	mux.Handle("/restconf/", s.counted("restconf", s.authenticated(http.HandlerFunc(s.handleRESTCONF))))
	mux.Handle("/.well-known/host-meta", s.counted("restconf", http.HandlerFunc(s.handleRESTCONF)))
	return mux, nil
}

func handleHealth(w http.ResponseWriter, _ *http.Request) {
	writeText(w, http.StatusOK, "ok\n")
}

func writeText(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(body))
}

// counted records the status code of every answered request per route.
func (s *Server) counted(route string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, record: func(code int) { s.recorder.APIRequest(route, code) }}
		next.ServeHTTP(sw, r)
		sw.commit(http.StatusOK) // a handler that wrote nothing answered 200
	})
}

// statusWriter records the status code when the handler commits to it,
// before any of the response can reach the client: a client that has seen
// a response finds it counted, even a download still streaming.
type statusWriter struct {
	http.ResponseWriter
	record    func(code int)
	committed bool
}

func (w *statusWriter) commit(code int) {
	if !w.committed {
		w.committed = true
		w.record(code)
	}
}

func (w *statusWriter) WriteHeader(code int) {
	w.commit(code)
	w.ResponseWriter.WriteHeader(code)
}

// Write without WriteHeader answers 200, as net/http does.
func (w *statusWriter) Write(b []byte) (int, error) {
	w.commit(http.StatusOK)
	return w.ResponseWriter.Write(b)
}
