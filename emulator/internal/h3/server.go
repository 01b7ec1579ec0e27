// Package h3 serves the device's HTTP API over HTTP/3 (QUIC, UDP port 443)
// with quic-go, for every device of a fleet: the handler nginx proxies
// HTTPS to, behind what nginx adds to a request (forwarded.go), with each
// device's TLS groups (tls.go) and 0-RTT accepted for safe methods only
// (earlydata.go). nginx cannot serve this: Debian 13's nginx 1.26 has
// HTTP/3 but accepts no early data with OpenSSL.
package h3

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"transportlab/emulator/internal/fleet"
)

const (
	// IdleTimeout closes a QUIC connection without traffic for this long.
	// The benchmark keeps connections open across modes, idle for minutes
	// in between; the negotiated timeout is the smaller of both sides', so
	// a client keeping a connection that long raises its own as well (or
	// sends keep-alives).
	IdleTimeout = 10 * time.Minute
	// MaxStreams bounds the requests one connection has open at once; a
	// client opening more waits for stream credit, as quic-go's own
	// default (100) has it.
	MaxStreams = 100
	// MaxHeaderBytes bounds a request's header section: nginx's
	// large_client_header_buffers (4 x 8k). Larger gets 431.
	MaxHeaderBytes = 32 << 10
	// bodyTimeout bounds the time a request's body may take to arrive
	// (nginx: client_body_timeout, 15 s between reads), so a client that
	// stops sending holds no handler for ever.
	bodyTimeout = 60 * time.Second
)

// Recorder receives what the server serves; *metrics.Metrics implements it.
type Recorder interface {
	HTTP3Request(earlyData, refused bool)
	HTTP3Handshake(resumed, earlyData bool)
	HTTP3SessionOpened(device int)
	HTTP3SessionClosed(device int)
}

// Options are what the server serves and with what.
type Options struct {
	// Handler is the device API (api.NewHandler).
	Handler http.Handler
	// Certificate is the device's, the one nginx serves.
	Certificate tls.Certificate
	// Plan tells which device of the fleet owns the address a client reached.
	Plan fleet.Plan
	// Groups are device k's TLS groups at k-1 (cryptoprofile.GoGroups):
	// nil for Go's defaults, empty for none (its handshakes fail).
	Groups   [][]tls.CurveID
	Recorder Recorder
	Log      *slog.Logger
}

// Server is the HTTP/3 server of the device.
type Server struct {
	http *http3.Server
	o    Options
}

// New prepares the server; Serve runs it on a UDP socket.
func New(o Options) (*Server, error) {
	if len(o.Groups) != o.Plan.Size() {
		return nil, errors.New("h3: one group list per device of the fleet is needed")
	}
	s := &Server{o: o}
	tlsConfig, err := s.tlsConfig()
	if err != nil {
		return nil, err
	}
	s.http = &http3.Server{
		TLSConfig: tlsConfig,
		QUICConfig: &quic.Config{
			Allow0RTT:          true,
			MaxIdleTimeout:     IdleTimeout,
			MaxIncomingStreams: MaxStreams,
		},
		Handler:        s.earlyDataPolicy(s.asNginxForwards(o.Handler)),
		MaxHeaderBytes: MaxHeaderBytes,
		ConnContext:    s.trackConnection,
		Logger:         o.Log,
	}
	return s, nil
}

// Serve answers QUIC on conn until Shutdown; conn should be bound to the
// wildcard address, as nginx's listen 443: on Linux quic-go then learns
// each packet's destination address, which names the device reached. It
// answers a packet of an unknown QUIC version with Version Negotiation
// (quic-go's default, kept: the runner probes the UDP port's round trip
// with it).
func (s *Server) Serve(conn net.PacketConn) error {
	return s.http.Serve(conn)
}

// Shutdown stops accepting, sends GOAWAY on every connection and waits for
// their requests until ctx ends, then closes what is left. The caller
// closes the socket.
func (s *Server) Shutdown(ctx context.Context) error {
	return s.http.Shutdown(ctx)
}
